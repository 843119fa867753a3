// Where numintel keeps its settings: NUMINTEL_CONFIG_DIR, else the XDG config home, else ~/.config.
import { isAbsolute, join } from 'node:path';

export type Env = Readonly<Record<string, string | undefined>>;

/** An empty variable counts as unset, as shells make `VAR= cmd` the usual way to clear one. */
export function envValue(env: Env, name: string): string | undefined {
  const value = env[name];
  return value === undefined || value === '' ? undefined : value;
}

export function configDir(env: Env, homedir: string): string {
  const own = envValue(env, 'NUMINTEL_CONFIG_DIR');
  if (own) return own;
  // The XDG spec says a relative XDG_CONFIG_HOME is invalid and must be ignored.
  const xdg = envValue(env, 'XDG_CONFIG_HOME');
  if (xdg && isAbsolute(xdg)) return join(xdg, 'numintel');
  return join(homedir, '.config', 'numintel');
}

const CONFIG_FILE_NAME = 'config.json';

export function configFilePath(env: Env, homedir: string): string {
  return join(configDir(env, homedir), CONFIG_FILE_NAME);
}
