// `numintel cache stats|prune|clear|path`: the flags, turned into options; the work happens in
// run-cache.
import { Command, Option } from 'commander';
import { LOOKUP_KINDS, type LookupKind } from '../core/lookups.js';
import { defaultMaxAgeText } from '../settings/max-age.js';
import { cacheDir } from '../settings/user-dirs.js';
import type { FiguresFormat } from './figures.js';
import type { World } from './world.js';
import { examples } from './help.js';

const run = () => import('./run-cache.js');

export function cacheCommand(world: World): Command {
  const cache = new Command('cache')
    .description(`the persistent lookup cache, in ${cacheDir(world.env, world.home)}`)
    .addHelpText(
      'after',
      examples([
        ['numintel cache stats', 'entries per lookup, fresh and expired, size on disk'],
        ['numintel cache prune', 'remove expired entries now'],
        ['numintel cache clear --lookup cnam', "forget one lookup's answers"],
      ]),
    )
    .configureOutput({ writeOut: (s) => world.stdout.write(s), writeErr: (s) => world.stderr.write(s) });
  const maxAgeOption = () => new Option('--max-age <dur>', `judge freshness by this max age (e.g. 12h, lrn=7d,cnam=30d; default: the config's max-age, else ${defaultMaxAgeText()})`);
  const profileOption = () => new Option('--profile <name>', 'config profile whose max-age applies (or NUMINTEL_PROFILE)');

  cache
    .command('stats')
    .description('entries per lookup (fresh and expired), size on disk, path')
    .addOption(new Option('-f, --format <format>', 'table (default on a terminal), text or json').choices(['table', 'text', 'json']))
    .addOption(maxAgeOption())
    .addOption(profileOption())
    .action(async (flags: { format?: FiguresFormat; maxAge?: string; profile?: string }) => {
      await (await run()).runCacheStats({ format: flags.format, maxAge: flags.maxAge, profile: flags.profile }, world);
    });

  cache
    .command('prune')
    .description('remove expired entries (runs also do this by themselves, at most once a day)')
    .addOption(maxAgeOption())
    .addOption(profileOption())
    .action(async (flags: { maxAge?: string; profile?: string }) => {
      await (await run()).runCachePrune({ maxAge: flags.maxAge, profile: flags.profile }, world);
    });

  cache
    .command('clear')
    .description('remove every entry (the file itself, so its space is freed), or those of one lookup')
    .addOption(new Option('--lookup <kind>', 'only this lookup').choices([...LOOKUP_KINDS]))
    .action(async (flags: { lookup?: LookupKind }) => {
      await (await run()).runCacheClear({ lookup: flags.lookup }, world);
    });

  cache
    .command('path')
    .description('print the path of the cache file')
    .action(async () => (await run()).runCachePath(world));

  return cache;
}
