// HTTPS_PROXY, HTTP_PROXY and NO_PROXY (either case, the lower-case one first, as curl and undici
// read them), taken from the environment the caller passes, never from the process's own.
import { ProxyError } from '../core/errors.js';

type Env = Readonly<Record<string, string | undefined>>;

export interface ProxySettings {
  /** '' when not set: undici reads process.env for an undefined value. */
  readonly httpProxy: string;
  readonly httpsProxy: string;
  readonly noProxy: string;
}

/** The variable's value, and its name as the user set it (for messages). */
function pick(env: Env, name: string): { value: string; name: string } {
  const lower = name.toLowerCase();
  const value = env[lower] ?? env[name];
  return { value: (value ?? '').trim(), name: env[lower] !== undefined ? lower : name };
}

/** A proxy URL as curl takes it: `proxy:3128` means http://proxy:3128. Throws a usage error when it is no URL. */
function proxyUrl({ value, name }: { value: string; name: string }): string {
  if (value === '') return '';
  const url = /^[a-z][a-z\d+.-]*:\/\//i.test(value) ? value : `http://${value}`;
  let parsed: URL | undefined;
  try {
    parsed = new URL(url);
  } catch {
    parsed = undefined;
  }
  if (parsed?.protocol !== 'http:' && parsed?.protocol !== 'https:') {
    throw new ProxyError(`${name} is not an http:// or https:// proxy URL: ${JSON.stringify(shownProxy(value))}`, `e.g. ${name}=http://proxy.example:3128`);
  }
  return url;
}

/** The proxy variables of `env`, or undefined when it names no proxy (the common case: no proxy code loads). */
export function proxyFromEnv(env: Env | undefined): ProxySettings | undefined {
  if (env === undefined) return undefined;
  const settings = { httpProxy: proxyUrl(pick(env, 'HTTP_PROXY')), httpsProxy: proxyUrl(pick(env, 'HTTPS_PROXY')), noProxy: pick(env, 'NO_PROXY').value };
  return settings.httpProxy || settings.httpsProxy ? settings : undefined;
}

/** The proxy a request to `url` goes through ('' for none): HTTPS_PROXY for https, else HTTP_PROXY. */
export function proxyFor(p: ProxySettings, url: string): string {
  return url.startsWith('https:') ? p.httpsProxy || p.httpProxy : p.httpProxy;
}

/** The proxy URL as it may be shown: without the user and password it may carry. */
export function shownProxy(url: string): string {
  return url.replace(/^([^/@]*\/\/)?[^/@]*@/, '$1…@');
}
