// Where requests go, and the one rule that keeps the key off the wire in clear text.
import { BadBaseUrlError } from '../core/errors.js';
import { withoutTrailingSlashes } from '../core/text.js';
import { isLoopback } from '../core/loopback.js';
import { CLI_ADVICE, type Advice } from '../core/advice.js';

/**
 * The base URL as it may be shown: never its user:password@ nor its query or fragment, where a
 * key may hide (`?key=…`).
 */
export function shownUrl(raw: string): string {
  let text = raw.trim();
  const cut = Math.min(...['?', '#'].map((c) => text.indexOf(c)).filter((i) => i !== -1));
  if (Number.isFinite(cut)) text = `${text.slice(0, cut)}${text[cut]}…`;
  const scheme = text.indexOf('//');
  const at = text.indexOf('@', scheme + 2);
  const slash = text.indexOf('/', scheme + 2);
  if (scheme !== -1 && at !== -1 && (slash === -1 || at < slash)) text = `${text.slice(0, scheme + 2)}…@${text.slice(at + 1)}`;
  return text;
}

const KEY_HINT = 'use an https:// base URL, or a loopback address (127.0.0.1, ::1, localhost) for a local service';

/**
 * Parses and vets the base URL. Throws a usage error for an unparseable URL, a scheme other than
 * http(s), credentials or a query in the URL, and for a key that would travel over plain http:// to
 * a host other than loopback (anyone on the network path could read it).
 */
export function checkBaseUrl(baseUrl: string, hasKey: boolean, advice: Advice = CLI_ADVICE): URL {
  let url: URL;
  try {
    url = new URL(baseUrl.trim());
  } catch {
    throw new BadBaseUrlError(`base URL "${shownUrl(baseUrl)}" is not a valid URL`, 'give an absolute URL such as https://api.example.com');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new BadBaseUrlError(
      `base URL "${shownUrl(baseUrl)}" uses ${url.protocol.replace(/:$/, '')}://, but only http:// and https:// are supported`,
      'give an absolute URL such as https://api.example.com',
    );
  }
  if (url.username || url.password) {
    // Never echo the URL here: the credentials in it may be the very secret.
    throw new BadBaseUrlError(
      'the base URL must not carry credentials (user:password@)',
      `put the API key in ${advice.apiKey}`,
    );
  }
  if (url.search || url.hash) {
    throw new BadBaseUrlError(`base URL "${shownUrl(baseUrl)}" must not have a query or fragment`, 'give only scheme, host, port and an optional path prefix');
  }
  if (hasKey && url.protocol === 'http:' && !isLoopback(url.hostname)) {
    throw new BadBaseUrlError(
      `refusing to send the API key over plain http:// to ${url.host}: anyone on the network path could read it`,
      KEY_HINT,
    );
  }
  return url;
}

export interface Endpoint {
  /** The request path, with the base URL's own path prefix in front. */
  readonly path: string;
  /** For traces. */
  readonly href: string;
}

/** Joins a service path onto the base URL, keeping its path prefix (`http://h/proxy` + `/api/v1/lrn`). */
export function endpoint(base: URL, servicePath: string): Endpoint {
  const prefix = withoutTrailingSlashes(base.pathname);
  const path = `${prefix}/${servicePath.replace(/^\/+/, '')}`;
  return { path, href: `${base.origin}${path}` };
}
