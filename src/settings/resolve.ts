// One value per setting from flag > environment > config file profile > default, remembering
// where each came from so --verbose and error messages can say so.
import { BadOptionError, ConfigError, InputError, NoApiKeyError, NoBaseUrlError, NumintelError } from '../core/errors.js';
import { ioReasonWithCode } from '../core/io-errors.js';
import { configFilePath, envValue, type Env } from './user-dirs.js';
import { DEFAULT_PROFILE, effectiveValues, hasProfile, type ConfigData, isValidProfileName, loadConfig, profileNames } from './config-file.js';
import { SETTINGS, findSetting, parseSetting, type RawValue, type SettingProperty, type SettingSpec, type SettingValues } from './known-settings.js';
import { pricesFrom, type Prices } from './prices.js';
import { trimOneNewline } from './secret-input.js';

export type Source = 'flag' | 'env' | 'config' | 'default';

/** Flag values by setting name (`'base-url'`, `rate`, ...); undefined = flag not given. Never the key. */
export type SettingFlags = Partial<Record<string, RawValue | undefined>>;

export interface ResolveInput {
  readonly flags: SettingFlags;
  readonly env: Env;
  readonly home: string;
  /** `--api-key-file` */
  readonly apiKeyFile?: string;
  /** Reads `--api-key-file`; `-` means stdin (the CLI passes secret-input's apiKeyFileReader). */
  readonly readApiKeyFile: (pathOrDash: string) => Promise<string>;
  /** `--profile` */
  readonly profile?: string;
  /** `--sandbox`: the key is the sandbox's own, so none is read (no prompt for stdin either). */
  readonly skipApiKey?: boolean;
  /** Hears warnings about the config file (one that others may read). */
  readonly warn?: (line: string) => void;
}

export interface Settings extends SettingValues {
  readonly profile: string;
  readonly configPath: string;
  /** Where each value came from; 'default' with no value means nothing configured it. */
  readonly source: Readonly<Record<SettingProperty, Source>>;
}

/** The profile from `--profile`, else NUMINTEL_PROFILE, else "default" (the only implicit one). */
export function chooseProfile(flag: string | undefined, env: Env): { name: string; explicit: boolean } {
  const named = flag ?? envValue(env, 'NUMINTEL_PROFILE');
  if (named === undefined) return { name: DEFAULT_PROFILE, explicit: false };
  if (!isValidProfileName(named)) {
    throw new BadOptionError(`invalid profile name ${JSON.stringify(named)}`, 'a profile name is up to 64 letters, digits, ".", "_" and "-", starting with a letter or digit');
  }
  return { name: named, explicit: true };
}

/** A profile named explicitly must exist (a typo must not silently fall back); "default" may be empty. */
export function requireProfile(config: ConfigData, profile: { name: string; explicit: boolean }, configPath: string): void {
  if (!profile.explicit || profile.name === DEFAULT_PROFILE || hasProfile(config, profile.name)) return;
  const known = profileNames(config);
  throw new ConfigError(
    `unknown profile ${JSON.stringify(profile.name)} (not in ${configPath})`,
    `known profiles: ${known.join(', ')}; create it with \`numintel config set --profile ${profile.name} base-url https://…\``,
  );
}

async function keyFromFile(input: ResolveInput, path: string): Promise<string> {
  const where = path === '-' ? 'standard input' : path;
  let text: string;
  try {
    text = trimOneNewline(await input.readApiKeyFile(path));
  } catch (err) {
    if (err instanceof NumintelError) throw err;
    throw new InputError(`cannot read the API key from ${where}: ${ioReasonWithCode(err)}`);
  }
  if (text === '') throw new InputError(path === '-' ? 'no API key on standard input (--api-key-file -)' : `the API key file ${where} is empty`);
  return text;
}

/** A value from the config file, parsed, or a config error naming the profile and file it is in. */
function storedValue(spec: SettingSpec, raw: unknown, origin: string) {
  if (typeof raw !== 'string' && typeof raw !== 'number') {
    throw new ConfigError(`invalid ${spec.name} in ${origin}`, `${spec.name} must be ${spec.expects}`);
  }
  return parseSetting(spec, raw, origin);
}

/**
 * `--price` over the profile's `price.<lookup>` settings (inherited from default), for `report`:
 * it reads no other setting, so a bad one elsewhere in the file or the environment cannot fail it.
 */
export async function reportPrices(flag: Prices | undefined, profileFlag: string | undefined, env: Env, home: string): Promise<Prices> {
  const { configPath, stored, storedIn } = await profileValues(profileFlag, env, home);
  const settings: Record<`price${string}`, number | undefined> = {};
  for (const spec of SETTINGS.filter((s) => s.name.startsWith('price.'))) {
    const raw = stored[spec.name];
    if (raw !== undefined) settings[spec.property as `price${string}`] = storedValue(spec, raw, `profile ${storedIn[spec.name]} of ${configPath}`) as number;
  }
  return { ...pricesFrom(settings, undefined), ...flag };
}

/** The chosen profile's stored values (inherited from default) and the profile each comes from. */
async function profileValues(profileFlag: string | undefined, env: Env, home: string, warn?: (line: string) => void) {
  const profile = chooseProfile(profileFlag, env);
  const configPath = configFilePath(env, home);
  const config = await loadConfig(configPath, warn);
  requireProfile(config, profile, configPath);
  const { values: stored, from: storedIn } = effectiveValues(config, profile.name);
  return { profile, configPath, stored, storedIn };
}

/**
 * A line for each name in a profile's values that is no setting (a hand-edited typo such as
 * "base_url"): ignored, which a run says rather than quietly using the default.
 */
export function unknownSettings(values: Readonly<Record<string, unknown>>, from: Readonly<Record<string, string>>): string[] {
  return Object.keys(values)
    .filter((name) => !findSetting(name))
    .map((name) => {
      const profile = from[name] ?? DEFAULT_PROFILE;
      const flag = profile === DEFAULT_PROFILE ? '' : ` --profile ${profile}`;
      return `profile ${profile} holds unknown setting ${JSON.stringify(name)}; it is ignored (remove it with \`numintel config unset ${name}${flag}\`)`;
    });
}

export async function resolveSettings(input: ResolveInput): Promise<Settings> {
  const { profile, configPath, stored, storedIn } = await profileValues(input.profile, input.env, input.home, input.warn);
  if (input.warn) for (const line of unknownSettings(stored, storedIn)) input.warn(line);
  const values: Record<string, unknown> = {};
  const source: Partial<Record<SettingProperty, Source>> = {};

  for (const spec of SETTINGS) {
    if (spec.secret && input.skipApiKey) {
      source[spec.property] = 'default';
      continue;
    }
    const fromFlag = spec.flag ? input.flags[spec.name] : undefined;
    const fromEnv = spec.env ? envValue(input.env, spec.env) : undefined;
    const fromConfig = stored[spec.name];
    let value: unknown;
    let from: Source;
    if (spec.secret && input.apiKeyFile !== undefined) {
      value = parseSetting(spec, await keyFromFile(input, input.apiKeyFile), `--api-key-file ${input.apiKeyFile}`);
      from = 'flag';
    } else if (fromFlag !== undefined) {
      value = parseSetting(spec, fromFlag, spec.flag ?? spec.name);
      from = 'flag';
    } else if (fromEnv !== undefined) {
      value = parseSetting(spec, fromEnv, spec.env ?? spec.name);
      from = 'env';
    } else if (fromConfig !== undefined) {
      value = storedValue(spec, fromConfig, `profile ${storedIn[spec.name]} of ${configPath}`);
      from = 'config';
    } else {
      value = spec.default;
      from = 'default';
    }
    if (value !== undefined) values[spec.property] = value;
    source[spec.property] = from;
  }
  return {
    ...(values as unknown as SettingValues),
    profile: profile.name,
    configPath,
    source: source as Record<SettingProperty, Source>,
  };
}

/** The base URL of the service numintel speaks to (VeriRoute Intel's API; real-service-notes.md). */
export const SERVICE_BASE_URL = 'https://api-service.verirouteintel.io';

/** How to configure a base URL: the setting, the known service, the other ways. */
export const SET_BASE_URL_HINT = `set one with \`numintel config set base-url ${SERVICE_BASE_URL}\` (VeriRoute Intel's API), NUMINTEL_BASE_URL or --base-url; or try --sandbox`;

/** The base URL, or the usage error that says how to configure one. */
export function requireBaseUrl(settings: Pick<Settings, 'baseUrl'>): string {
  if (settings.baseUrl) return settings.baseUrl;
  throw new NoBaseUrlError('no base URL configured', SET_BASE_URL_HINT);
}

/** The API key, or the usage error that says where a key may come from (never a flag). */
export function requireApiKey(settings: Pick<Settings, 'apiKey'>): string {
  if (settings.apiKey) return settings.apiKey;
  throw new NoApiKeyError(
    'no API key configured',
    'set NUMINTEL_API_KEY, pass --api-key-file <path|->, or store one with `numintel config set api-key`; or try --sandbox',
  );
}
