// `numintel cache stats|prune|clear|path`: the persistent lookup cache (src/store). Every entry of
// every service is counted and pruned; freshness is judged by max-age (--max-age, the config's
// max-age, else the defaults).
import { Command, Option } from 'commander';
import { rmSync, statSync } from 'node:fs';
import { UsageError } from '../core/errors.js';
import { ioReason } from '../core/io-errors.js';
import { LOOKUP_KINDS, type LookupKind } from '../core/lookups.js';
import { defaultMaxAge, defaultMaxAgeText, formatDuration, parseMaxAge, type MaxAge } from '../settings/max-age.js';
import { cacheDir, configFilePath } from '../settings/user-dirs.js';
import { effectiveValues, loadConfig } from '../settings/config-file.js';
import { chooseProfile, requireProfile } from '../settings/resolve.js';
import { cacheFilePath, lockFilePath } from '../store/cache-files.js';
import { checkedFilePath } from '../store/lmdb-file.js';
import type { CacheStats, LmdbAnswerStore } from '../store/lmdb-store.js';
import type { Figures } from './figures.js';
import type { World } from './world.js';
import { examples } from './help.js';

// The report helpers (and cli-table3) load when a cache command runs, not with every command.
const figures = () => import('./figures.js');

interface CacheFlags {
  maxAge?: string;
  profile?: string;
  format?: string;
  lookup?: string;
}

export function cacheCommand(world: World): Command {
  const dir = cacheDir(world.env, world.home);
  const path = cacheFilePath(dir);
  const out = (text: string) => void world.stdout.write(text);
  const warn = (message: string) => void world.stderr.write(`numintel: warning: ${message}\n`);

  /** --max-age, else the profile's max-age (or the one it inherits from default), else the defaults. */
  async function maxAgeOf(flags: CacheFlags): Promise<MaxAge> {
    if (flags.maxAge !== undefined) return parseMaxAge(flags.maxAge, '--max-age');
    const profile = chooseProfile(flags.profile, world.env);
    const configPath = configFilePath(world.env, world.home);
    const config = await loadConfig(configPath);
    requireProfile(config, profile, configPath);
    const { values, from } = effectiveValues(config, profile.name);
    const stored = values['max-age'];
    return stored === undefined ? defaultMaxAge() : parseMaxAge(String(stored), `profile ${from['max-age']} of the config file`);
  }

  /**
   * False only when the cache file is plainly not there yet (ENOENT): then clear and prune have
   * nothing to do and must not create it. Any other failure (a file in the directory's place:
   * ENOTDIR, which `throwIfNoEntry: false` also hides on newer Nodes) is left to the command,
   * which reports it.
   */
  function cacheExists(): boolean {
    try {
      statSync(path);
      return true;
    } catch (err) {
      return (err as NodeJS.ErrnoException).code !== 'ENOENT';
    }
  }
  const nothingTo = (verb: string) => out(`nothing to ${verb}: there is no cache at ${path} yet\n`);

  /**
   * `maxAge` only matters to commands that judge freshness (stats, prune); clear needs none. A
   * cache that cannot be used fails the command with one line (a run goes on without it, but a
   * command about the cache has nothing else to do), unless `whatever` (clear, which removes it).
   */
  async function open(maxAge: MaxAge, readOnly: boolean, whatever = false): Promise<LmdbAnswerStore> {
    // The database (a native module) loads only when a cache command runs.
    const { LmdbAnswerStore } = await import('../store/lmdb-store.js');
    // A failure later on (a write refused) still warns; one at opening is dealt with here.
    let opened = false;
    const store = await LmdbAnswerStore.open({
      dir,
      service: '',
      clock: world.clock,
      maxAge,
      readOnly,
      warn: (m) => opened && warn(m),
      ...(world.processes ? { processes: world.processes } : {}),
    });
    opened = true;
    if (store.failure && !whatever) {
      await store.close();
      throw new UsageError(`the lookup cache cannot be used (${store.failure.reason}): ${store.failure.remedy}`);
    }
    return store;
  }

  const cache = new Command('cache')
    .description(`the persistent lookup cache, in ${dir}`)
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
    .action(async (flags: CacheFlags) => {
      const store = await open(await maxAgeOf(flags), true);
      const stats = await store.stats();
      await store.close();
      const f = await figures();
      const format = f.figuresFormat(flags.format, world.stdout);
      if (format === 'json') out(`${JSON.stringify(statsJson(stats), null, 2)}\n`);
      else out(f.renderFigures(statsFigures(stats, f), format));
    });

  cache
    .command('prune')
    .description('remove expired entries (runs also do this by themselves, at most once a day)')
    .addOption(maxAgeOption())
    .addOption(profileOption())
    .action(async (flags: CacheFlags) => {
      const maxAge = await maxAgeOf(flags);
      if (!cacheExists()) return nothingTo('prune');
      const store = await open(maxAge, false);
      const { removed, left } = await store.prune();
      await store.close();
      const { count } = await figures();
      out(`removed ${count(removed)} expired ${removed === 1 ? 'entry' : 'entries'}; ${count(left)} left\n`);
    });

  cache
    .command('clear')
    .description('remove every entry (the file itself, so its space is freed), or those of one lookup')
    .addOption(new Option('--lookup <kind>', 'only this lookup').choices([...LOOKUP_KINDS]))
    .action(async (flags: CacheFlags) => {
      const kind = flags.lookup as LookupKind | undefined;
      if (!cacheExists()) return nothingTo('clear');
      // Without --lookup a damaged cache is removed whole; one lookup's entries need it readable.
      const store = await open(defaultMaxAge(), kind === undefined, kind === undefined);
      const failure = store.failure;
      if (kind !== undefined) {
        const removed = await store.clear(kind as LookupKind);
        await store.close();
        const { count } = await figures();
        out(`removed ${count(removed)} ${kind} ${removed === 1 ? 'entry' : 'entries'} from ${path}\n`);
        return;
      }
      // LMDB never gives a file's pages back to the disk, so clearing all removes the files. A
      // process that has them open keeps its own (unlinked) copy; the next run starts a new one.
      const removed = failure ? 0 : (await store.stats()).entries;
      await store.close();
      for (const file of [path, lockFilePath(path), checkedFilePath(path)]) {
        try {
          rmSync(file, { force: true });
        } catch (err) {
          // NUMINTEL_CACHE_DIR naming a file, a directory nobody may write: the user's to fix.
          throw new UsageError(`cannot remove ${file}: ${ioReason(err)}`, 'the cache is in NUMINTEL_CACHE_DIR, else $XDG_CACHE_HOME/numintel, else ~/.cache/numintel');
        }
      }
      const { count } = await figures();
      out(failure ? `removed the cache ${path}, which could not be used (${failure.reason})\n` : `removed ${count(removed)} ${removed === 1 ? 'entry' : 'entries'} from ${path}\n`);
    });

  cache
    .command('path')
    .description('print the path of the cache file')
    .action(() => out(`${path}\n`));

  return cache;
}

function statsJson(s: CacheStats) {
  return {
    path: s.path,
    bytes: s.bytes,
    entries: s.entries,
    lookups: Object.fromEntries(LOOKUP_KINDS.map((k) => [k, { ...s.kinds[k], max_age_ms: s.maxAge[k] }])),
    pruned_at: s.prunedAt === undefined ? null : new Date(s.prunedAt).toISOString(),
  };
}

function statsFigures(s: CacheStats, { bytes, count }: typeof import('./figures.js')): Figures {
  const perEntry = s.entries > 0 ? ` (${Math.round(s.bytes / s.entries)} bytes an entry)` : '';
  return {
    title: 'Lookup cache',
    lines: [
      ['path', s.path],
      ['size', `${bytes(s.bytes)}${perEntry}`],
      ['entries', count(s.entries)],
      ['last pruned', s.prunedAt === undefined ? 'never' : new Date(s.prunedAt).toISOString()],
    ] as [string, string][],
    table: {
      head: ['lookup', 'entries', 'fresh', 'expired', 'max age'],
      rows: LOOKUP_KINDS.map((k) => [k, count(s.kinds[k].entries), count(s.kinds[k].fresh), count(s.kinds[k].expired), formatDuration(s.maxAge[k])]),
    },
  };
}
