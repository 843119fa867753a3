// config.json: read leniently (missing = empty), written safely (0600, atomic rename).
//
// Shape, keys as in `numintel config set <key>`, values typed (numbers stay numbers):
//   { "profiles": { "default": { "base-url": "https://api.example.com", "concurrency": 32 },
//                   "staging": { "base-url": "https://staging.example.com", "api-key": "…" } } }
// Other top-level members are kept as they are on save, so a newer numintel's additions survive.
// Every run reads the config, synchronously: a small file, read before anything else happens, and
// neither node:fs/promises (a millisecond to load) nor libuv's thread pool (threads to start) is
// needed for it. It must be a regular file of at most MAX_CONFIG_BYTES (regular-file.ts: a FIFO
// would hang the run, /dev/zero fill its memory).
import { chmodSync, realpathSync } from 'node:fs';
import { ConfigError } from '../core/errors.js';
import { isObject } from '../core/json.js';
import { fileProblem, readRegularFile } from '../fs/regular-file.js';
import { writeFileAtomically } from '../fs/write-file-atomically.js';

/** Far more than any config numintel writes: a larger file is not one. */
const MAX_CONFIG_BYTES = 1024 * 1024;

export type ProfileValues = Record<string, unknown>;

export interface ConfigData {
  readonly profiles: Readonly<Record<string, ProfileValues>>;
  /** Top-level members this version does not use, kept on save. */
  readonly other?: Readonly<Record<string, unknown>>;
}

export const DEFAULT_PROFILE = 'default';
const EMPTY_CONFIG: ConfigData = { profiles: {} };

const PROFILE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

export function isValidProfileName(name: string): boolean {
  return PROFILE_NAME.test(name);
}


/** Where the JSON breaks, without quoting the file: it may hold the API key. */
function jsonErrorPlace(text: string, err: unknown): string {
  const pos = /position (\d+)/.exec(err instanceof Error ? err.message : '')?.[1];
  if (pos === undefined) return '';
  const before = text.slice(0, Number(pos)).split('\n');
  return ` (line ${before.length}, column ${(before.at(-1)?.length ?? 0) + 1})`;
}

function corrupt(path: string, why: string) {
  return new ConfigError(
    `config file ${path} ${why}`,
    `fix it in an editor, or move it away and set your settings again with \`numintel config set\``,
  );
}

/**
 * Reads config.json; a missing file is an empty config, a damaged one a usage error. `warn` hears
 * of a file others may read that holds an API key (ssh refuses such a key file; we say so).
 */
export async function loadConfig(path: string, warn?: (line: string) => void): Promise<ConfigData> {
  let text: string;
  let mode: number;
  try {
    const { bytes, info } = readRegularFile(path, MAX_CONFIG_BYTES);
    text = bytes.toString('utf8');
    mode = info.mode & 0o777;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return EMPTY_CONFIG;
    throw new ConfigError(`cannot read config file ${path}: ${fileProblem(err)}`, 'numintel reads its settings from a regular file; move this one away and set your settings again with `numintel config set`');
  }
  if (warn && text.includes('"api-key"')) {
    if (mode & 0o077) warn(`config file ${path} holds an API key and others may read it (mode ${mode.toString(8).padStart(4, '0')}): run \`chmod 600 ${path}\``);
  }
  if (text.trim() === '') return EMPTY_CONFIG;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch (err) {
    throw corrupt(path, `is not valid JSON${jsonErrorPlace(text, err)}`);
  }
  if (!isObject(parsed)) throw corrupt(path, 'must hold a JSON object');
  const { profiles = {}, ...other } = parsed;
  if (!isObject(profiles)) throw corrupt(path, 'has "profiles" that is not an object');
  for (const [name, values] of Object.entries(profiles)) {
    if (!isObject(values)) throw corrupt(path, `has profile ${JSON.stringify(name)} that is not an object`);
  }
  return { profiles: profiles as Record<string, ProfileValues>, other };
}

/**
 * Writes config.json so that a crash or a full disk never leaves a half-written or world-readable
 * file: temp file (0600) in the same directory, fsync, rename over the old one.
 */
export async function saveConfig(path: string, data: ConfigData): Promise<void> {
  try {
    await writeConfig(path, data);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? (err instanceof Error ? err.message : String(err));
    throw new ConfigError(`cannot write config file ${path} (${code})`, 'choose a writable place with NUMINTEL_CONFIG_DIR=<dir>');
  }
}

async function writeConfig(link: string, data: ConfigData): Promise<void> {
  // A config.json that is a symlink (a dotfiles repository) stays one: the file it points to is replaced.
  let path = link;
  try {
    path = realpathSync(link);
  } catch {
    // not there yet
  }
  const text = `${JSON.stringify({ ...data.other, profiles: data.profiles }, null, 2)}\n`;
  writeFileAtomically(path, text, { mode: 0o600, durable: true, makeDir: true });
  // The rename already replaced any older, looser file; this covers file systems that keep modes.
  chmodSync(path, 0o600);
}

/**
 * A profile's settings as they apply: its own, and for what it leaves unset, those of `default`
 * (so `--profile bulk` needs to hold only what differs). `from` names the profile each came from.
 */
export function effectiveValues(data: ConfigData, profile: string): { values: ProfileValues; from: Record<string, string> } {
  const base = profile === DEFAULT_PROFILE ? {} : (data.profiles[DEFAULT_PROFILE] ?? {});
  const own = data.profiles[profile] ?? {};
  const from: Record<string, string> = {};
  for (const key of Object.keys(base)) from[key] = DEFAULT_PROFILE;
  for (const key of Object.keys(own)) from[key] = profile;
  return { values: { ...base, ...own }, from };
}

/** The profiles, default always and first, then the others as the file has them: one order wherever they are listed. */
export function profileNames(data: ConfigData): string[] {
  return [DEFAULT_PROFILE, ...Object.keys(data.profiles).filter((n) => n !== DEFAULT_PROFILE)];
}

export function hasProfile(data: ConfigData, profile: string): boolean {
  return Object.hasOwn(data.profiles, profile);
}

/** A copy of `data` with `key` set (or removed when `value` is undefined) in `profile`. */
export function withValue(data: ConfigData, profile: string, key: string, value: unknown): ConfigData {
  const values: ProfileValues = { ...(hasProfile(data, profile) ? data.profiles[profile] : {}) };
  if (value === undefined) delete values[key];
  else values[key] = value;
  return { ...data, profiles: { ...data.profiles, [profile]: values } };
}
