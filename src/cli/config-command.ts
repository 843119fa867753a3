// `numintel config set|get|list|unset|profiles|path`: the stored settings of one profile in
// config.json; a profile inherits what it leaves unset from `default`.
import { resolve } from 'node:path';
import { Command } from 'commander';
import { ConfigError, NoApiKeyError, UsageError } from '../core/errors.js';
import { configFilePath } from '../settings/user-dirs.js';
import { DEFAULT_PROFILE, effectiveValues, loadConfig, profileNames, saveConfig, withValue } from '../settings/config-file.js';
import {
  SETTINGS,
  findSetting,
  requireKnownSetting,
  settingToStore,
  showSetting,
  type SettingSpec,
} from '../settings/known-settings.js';
import { chooseProfile, requireProfile, unknownSettings } from '../settings/resolve.js';
import { apiKeyFileReader, trimOneNewline } from '../settings/secret-input.js';
import { checkBaseUrl } from '../api/base-url.js';
import { readCaFile } from './connection.js';
import type { World } from './world.js';
import { examples } from './help.js';

const PROFILE_FLAG = '--profile <name>';
const PROFILE_HELP = 'profile to use (default: NUMINTEL_PROFILE, else "default")';

const KNOWN_KEYS_HELP = `\nSettings:\n${SETTINGS.map((s) => `  ${s.name}`).join('\n')}\n(each with its flag, variable and default: numintel help environment)\n`;

/** The secret comes from a hidden prompt at a terminal, or from whatever is piped in. */
async function readApiKey(world: World): Promise<{ raw: string; origin: string }> {
  // As `--api-key-file -` reads it: a hidden prompt at a terminal, else the pipe, both ended by Ctrl-C.
  const read = apiKeyFileReader(() => world.stdin, world.cwd, { output: world.stderr, signal: world.interrupt });
  if (world.stdin.isTTY) {
    const line = await read('-');
    // Enter alone at the prompt: say so, as for an empty pipe (not "invalid api-key").
    if (line === '') throw new NoApiKeyError('no API key typed at the prompt', 'run it again and type or paste the key, then Enter');
    return { raw: line, origin: 'the prompt' };
  }
  const raw = trimOneNewline(await read('-'));
  if (raw === '') {
    throw new NoApiKeyError('no API key on standard input', 'pipe it in: `printf %s "$KEY" | numintel config set api-key`');
  }
  return { raw, origin: 'standard input' };
}

async function valueToSet(world: World, spec: SettingSpec, value: string | undefined) {
  if (spec.secret) {
    if (value !== undefined) {
      throw new UsageError(
        `the ${spec.name} is never taken from the command line (it would stay in your shell history and process list)`,
        `run \`numintel config set ${spec.name}\` to be asked for it, or pipe it in: \`printf %s "$KEY" | numintel config set ${spec.name}\`; consider replacing the key you typed`,
      );
    }
    const { raw, origin } = await readApiKey(world);
    return settingToStore(spec, raw, origin);
  }
  if (value === undefined) {
    throw new UsageError(`config set ${spec.name} needs a value`, `${spec.name} must be ${spec.expects}`);
  }
  const parsed = settingToStore(spec, value, 'the command line');
  // A CA file is read at each run; one that cannot serve is refused now, not at the first HTTPS
  // lookup. (NUMINTEL_CA_FILE and --ca-file are read at run time and checked there.)
  if (spec.property === 'caFile') {
    await readCaFile(String(parsed), 'config', world.cwd).catch((err: unknown) => {
      throw new UsageError(`ca-file not set: ${err instanceof Error ? err.message : String(err)}`);
    });
    // Stored as the file just checked: a relative path would be read from each later run's
    // working directory, where it may name nothing.
    return resolve(world.cwd, String(parsed));
  }
  // Every lookup sends the key, and a run refuses to send it over plain http:// off loopback: such
  // a base URL is refused now, with the same words, not stored for every later run to fail on.
  if (spec.property === 'baseUrl') checkBaseUrl(String(parsed), true);
  return parsed;
}

export function configCommand(world: World): Command {
  const path = configFilePath(world.env, world.home);
  const out = (line: string) => world.stdout.write(`${line}\n`);
  const note = (line: string) => world.stderr.write(`numintel: ${line}\n`);

  /** The chosen profile and the config; an explicitly named profile must exist unless `creating`. */
  async function open(cmd: Command, creating = false) {
    const profile = chooseProfile(cmd.optsWithGlobals<{ profile?: string }>().profile, world.env);
    const config = await loadConfig(path, (line) => note(`warning: ${line}`));
    if (!creating) requireProfile(config, profile, path);
    return { profile: profile.name, config, stored: config.profiles[profile.name] ?? {}, ...effectiveValues(config, profile.name) };
  }

  /** Says which of `keys` a profile takes from `default` (stderr: stdout stays key=value). */
  function noteInherited(profile: string, from: Record<string, string>, keys: string[]) {
    const inherited = keys.filter((k) => from[k] !== undefined && from[k] !== profile);
    if (inherited.length > 0) note(`${inherited.join(', ')} ${inherited.length === 1 ? 'comes' : 'come'} from profile ${DEFAULT_PROFILE} (not set in ${profile})`);
  }

  const config = new Command('config')
    .description(`stored settings (API key, base URL, defaults), per profile, in ${path}`)
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
      const spec = requireKnownSetting(key);
      const { profile, config: data } = await open(cmd, true);
      const parsed = await valueToSet(world, spec, value);
      await saveConfig(path, withValue(data, profile, spec.name, parsed));
      note(`${spec.name} set to ${showSetting(spec, parsed)} in profile ${profile} (${path})`);
    });

  config
    .command('get')
    .description('print a stored setting (the api-key masked)')
    .argument('<key>', 'setting name')
    .option(PROFILE_FLAG, PROFILE_HELP)
    .addHelpText('after', KNOWN_KEYS_HELP)
    .action(async (key: string, _opts: unknown, cmd: Command) => {
      const spec = requireKnownSetting(key);
      const { profile, values, from } = await open(cmd);
      const value = values[spec.name];
      if (value === undefined) {
        const fallback = spec.default === undefined ? '' : ` (the default is ${spec.default})`;
        throw new ConfigError(`${spec.name} is not set in profile ${profile}${fallback}`, `set it with \`numintel config set ${spec.name}\``);
      }
      out(showSetting(spec, value));
      noteInherited(profile, from, [spec.name]);
    });

  config
    .command('list')
    .description(`print the settings of a profile as key=value (the api-key masked), with those it takes from ${DEFAULT_PROFILE}`)
    .option(PROFILE_FLAG, PROFILE_HELP)
    .action(async (_opts: unknown, cmd: Command) => {
      const { profile, values, from } = await open(cmd);
      const shown = SETTINGS.filter((spec) => values[spec.name] !== undefined);
      for (const spec of shown) out(`${spec.name}=${showSetting(spec, values[spec.name])}`);
      noteInherited(profile, from, shown.map((s) => s.name));
      for (const line of unknownSettings(values, from)) note(line);
    });

  config
    .command('unset')
    .description('remove a stored setting from a profile')
    .argument('<key>', 'setting name')
    .option(PROFILE_FLAG, PROFILE_HELP)
    .action(async (key: string, _opts: unknown, cmd: Command) => {
      const { profile, config: data, stored } = await open(cmd);
      // Unknown names may be removed too, so a hand-made typo in the file can be cleaned up.
      const name = findSetting(key)?.name ?? (Object.hasOwn(stored, key) ? key : requireKnownSetting(key).name);
      if (!Object.hasOwn(stored, name)) {
        note(`${name} was not set in profile ${profile}`);
        return;
      }
      await saveConfig(path, withValue(data, profile, name, undefined));
      note(`${name} removed from profile ${profile}`);
    });

  config
    .command('profiles')
    .description(`print the profile names, one per line (${DEFAULT_PROFILE} always; the others inherit what they leave unset from it)`)
    .action(async () => {
      for (const name of profileNames(await loadConfig(path))) out(name);
    });

  config
    .command('path')
    .description('print the path of the config file')
    .option(PROFILE_FLAG, PROFILE_HELP)
    .action(() => {
      out(path);
    });

  return config;
}

