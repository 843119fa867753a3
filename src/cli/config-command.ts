// `numintel config set|get|list|unset|profiles|path`: the flags, turned into options; the work
// happens in run-config.
import { Command } from 'commander';
import { DEFAULT_PROFILE } from '../settings/config-file.js';
import { SETTINGS } from '../settings/known-settings.js';
import { configFilePath } from '../settings/user-dirs.js';
import type { World } from './world.js';
import { examples } from './help.js';

const run = () => import('./run-config.js');

const PROFILE_FLAG = '--profile <name>';
const PROFILE_HELP = 'profile to use (default: NUMINTEL_PROFILE, else "default")';

const KNOWN_KEYS_HELP = `\nSettings:\n${SETTINGS.map((s) => `  ${s.name}`).join('\n')}\n(each with its flag, variable and default: numintel help environment)\n`;

const profileOf = (cmd: Command) => cmd.optsWithGlobals<{ profile?: string }>().profile;

export function configCommand(world: World): Command {
  const config = new Command('config')
    .description(`stored settings (API key, base URL, defaults), per profile, in ${configFilePath(world.env, world.home)}`)
    .addHelpText(
      'after',
      examples([
        ['numintel config set base-url https://api.example.com', 'where the service is'],
        ['numintel config set api-key', 'the key, asked for without echo (or piped in)'],
        ['numintel config set concurrency 32 --profile bulk', 'a profile: it inherits the rest from default'],
        ['numintel config list --profile bulk', 'what a profile holds and inherits'],
        ['numintel help environment', 'every key, with its flag, variable and default'],
      ]),
    )
    .configureOutput({
      writeOut: (s) => world.stdout.write(s),
      writeErr: (s) => world.stderr.write(s),
    });

  config
    .command('set')
    .description('store a setting; the api-key is read from a hidden prompt or from stdin, never from the command line')
    .argument('<key>', 'setting name')
    .argument('[value]', 'its value (not for api-key)')
    .option(PROFILE_FLAG, PROFILE_HELP)
    .addHelpText('after', KNOWN_KEYS_HELP)
    .action(async (key: string, value: string | undefined, _opts: unknown, cmd: Command) => {
      await (await run()).runConfigSet({ key, value, profile: profileOf(cmd) }, world);
    });

  config
    .command('get')
    .description('print a stored setting (the api-key masked)')
    .argument('<key>', 'setting name')
    .option(PROFILE_FLAG, PROFILE_HELP)
    .addHelpText('after', KNOWN_KEYS_HELP)
    .action(async (key: string, _opts: unknown, cmd: Command) => {
      await (await run()).runConfigGet({ key, profile: profileOf(cmd) }, world);
    });

  config
    .command('list')
    .description(`print the settings of a profile as key=value (the api-key masked), with those it takes from ${DEFAULT_PROFILE}`)
    .option(PROFILE_FLAG, PROFILE_HELP)
    .action(async (_opts: unknown, cmd: Command) => {
      await (await run()).runConfigList({ profile: profileOf(cmd) }, world);
    });

  config
    .command('unset')
    .description('remove a stored setting from a profile')
    .argument('<key>', 'setting name')
    .option(PROFILE_FLAG, PROFILE_HELP)
    .action(async (key: string, _opts: unknown, cmd: Command) => {
      await (await run()).runConfigUnset({ key, profile: profileOf(cmd) }, world);
    });

  config
    .command('profiles')
    .description(`print the profile names, one per line (${DEFAULT_PROFILE} always; the others inherit what they leave unset from it)`)
    .action(async () => (await run()).runConfigProfiles(world));

  config
    .command('path')
    .description('print the path of the config file')
    .option(PROFILE_FLAG, PROFILE_HELP)
    .action(async () => (await run()).runConfigPath(world));

  return config;
}
