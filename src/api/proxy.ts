// HTTPS_PROXY, HTTP_PROXY and NO_PROXY (either case, the lower-case one first, as curl and undici
// read them), taken from the environment the caller passes, never from the process's own.
type Env = Readonly<Record<string, string | undefined>>;

export interface ProxySettings {
  /** '' when not set: undici reads process.env for an undefined value. */
  readonly httpProxy: string;
  readonly httpsProxy: string;
  readonly noProxy: string;
}

const pick = (env: Env, name: string): string => (env[name.toLowerCase()] ?? env[name] ?? '').trim();

/** The proxy variables of `env`, or undefined when it names no proxy (the common case: no proxy code loads). */
export function proxyFromEnv(env: Env | undefined): ProxySettings | undefined {
  if (env === undefined) return undefined;
  const settings = { httpProxy: pick(env, 'HTTP_PROXY'), httpsProxy: pick(env, 'HTTPS_PROXY'), noProxy: pick(env, 'NO_PROXY') };
  return settings.httpProxy || settings.httpsProxy ? settings : undefined;
}

/** The proxy URL as it may be shown: without the user and password it may carry. */
export function shownProxy(url: string): string {
  return url.replace(/\/\/[^/@]*@/, '//…@');
}
