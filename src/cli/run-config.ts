// `numintel config …` at work on config.json: the stored settings of one profile, which inherits
// what it leaves unset from `default`.
import { ConfigError } from '../core/errors.js';
import { configFilePath } from '../settings/user-dirs.js';
import { DEFAULT_PROFILE, effectiveValues, loadConfig, profileNames, saveConfig, withValue } from '../settings/config-file.js';
import { SETTINGS, findSetting, requireKnownSetting, showSetting } from '../settings/known-settings.js';
import { chooseProfile, requireProfile, unknownSettings } from '../settings/resolve.js';
import { valueToSet } from './config-value.js';
import type { World } from './world.js';

export interface ConfigOptions {
  /** --profile; undefined = NUMINTEL_PROFILE, else default. */
  readonly profile?: string;
}

export interface ConfigKeyOptions extends ConfigOptions {
  readonly key: string;
}

export interface ConfigSetOptions extends ConfigKeyOptions {
  /** undefined for the api-key, which is read from a prompt or stdin. */
  readonly value?: string;
}

export async function runConfigSet(opts: ConfigSetOptions, world: World): Promise<void> {
  const spec = requireKnownSetting(opts.key);
  const { path, profile, config } = await open(opts, world, true);
  const parsed = await valueToSet(world, spec, opts.value);
  await saveConfig(path, withValue(config, profile, spec.name, parsed));
  note(world, `${spec.name} set to ${showSetting(spec, parsed)} in profile ${profile} (${path})`);
}

export async function runConfigGet(opts: ConfigKeyOptions, world: World): Promise<void> {
  const spec = requireKnownSetting(opts.key);
  const { profile, values, from } = await open(opts, world);
  const value = values[spec.name];
  if (value === undefined) {
    const fallback = spec.default === undefined ? '' : ` (the default is ${spec.default})`;
    throw new ConfigError(`${spec.name} is not set in profile ${profile}${fallback}`, `set it with \`numintel config set ${spec.name}\``);
  }
  out(world, showSetting(spec, value));
  noteInherited(world, profile, from, [spec.name]);
}

export async function runConfigList(opts: ConfigOptions, world: World): Promise<void> {
  const { profile, values, from } = await open(opts, world);
  const shown = SETTINGS.filter((spec) => values[spec.name] !== undefined);
  for (const spec of shown) out(world, `${spec.name}=${showSetting(spec, values[spec.name])}`);
  noteInherited(world, profile, from, shown.map((s) => s.name));
  for (const line of unknownSettings(values, from)) note(world, line);
}

export async function runConfigUnset(opts: ConfigKeyOptions, world: World): Promise<void> {
  const { path, profile, config, stored } = await open(opts, world);
  // Unknown names may be removed too, so a hand-made typo in the file can be cleaned up.
  const name = findSetting(opts.key)?.name ?? (Object.hasOwn(stored, opts.key) ? opts.key : requireKnownSetting(opts.key).name);
  if (!Object.hasOwn(stored, name)) {
    note(world, `${name} was not set in profile ${profile}`);
    return;
  }
  await saveConfig(path, withValue(config, profile, name, undefined));
  note(world, `${name} removed from profile ${profile}`);
}

export async function runConfigProfiles(world: World): Promise<void> {
  for (const name of profileNames(await loadConfig(configPath(world)))) out(world, name);
}

export function runConfigPath(world: World): void {
  out(world, configPath(world));
}

const configPath = (world: World) => configFilePath(world.env, world.home);
const out = (world: World, line: string) => world.stdout.write(`${line}\n`);
const note = (world: World, line: string) => world.stderr.write(`numintel: ${line}\n`);

/** The chosen profile and the config; an explicitly named profile must exist unless `creating`. */
async function open(opts: ConfigOptions, world: World, creating = false) {
  const path = configPath(world);
  const profile = chooseProfile(opts.profile, world.env);
  const config = await loadConfig(path, (line) => note(world, `warning: ${line}`));
  if (!creating) requireProfile(config, profile, path);
  return { path, profile: profile.name, config, stored: config.profiles[profile.name] ?? {}, ...effectiveValues(config, profile.name) };
}

/** Says which of `keys` a profile takes from `default` (stderr: stdout stays key=value). */
function noteInherited(world: World, profile: string, from: Record<string, string>, keys: string[]) {
  const inherited = keys.filter((k) => from[k] !== undefined && from[k] !== profile);
  if (inherited.length > 0) note(world, `${inherited.join(', ')} ${inherited.length === 1 ? 'comes' : 'come'} from profile ${DEFAULT_PROFILE} (not set in ${profile})`);
}
