// What went wrong on the wire, as an Attempt: timeouts and dropped connections are worth another
// try, a name that does not resolve is not, and a certificate or TLS failure stops the run (no
// request can succeed until the trust or the base URL is fixed).
import { CLI_ADVICE, type Advice } from '../core/advice.js';
import type { Attempt } from '../core/transport.js';
import { isObject } from '../core/json.js';
import { oneLine } from './body.js';
import { shownProxy } from './proxy.js';

const TIMEOUTS: Readonly<Record<string, string>> = {
  UND_ERR_CONNECT_TIMEOUT: 'could not connect',
  UND_ERR_HEADERS_TIMEOUT: 'no answer',
  UND_ERR_BODY_TIMEOUT: 'the answer stalled',
  // --timeout bounds the whole request: a body dripped byte by byte ends here.
  NUMINTEL_ANSWER_TIMEOUT: 'the whole answer did not arrive',
  ETIMEDOUT: 'could not connect',
  ESOCKETTIMEDOUT: 'no answer',
};

const TRANSIENT = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'ECONNABORTED',
  'EPIPE',
  'UND_ERR_SOCKET',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENETDOWN',
  'EAI_AGAIN',
]);

/**
 * An answer arrived but could not be read: a framing no HTTP parser may read on (Node's llhttp and
 * undici's give HPE_ codes, or undici an HTTPParserError without one), a body longer or shorter
 * than its Content-Length, headers past the size cap, or an interim 100 Continue, which undici's
 * pool refuses (undici-wire.ts).
 */
const UNREADABLE = new Set(['UND_ERR_RES_CONTENT_LENGTH_MISMATCH', 'UND_ERR_HEADERS_OVERFLOW', 'NUMINTEL_INTERIM_REFUSED']);

/** Whether `err` says the service answered and its answer could not be read (see UNREADABLE). */
export function unreadableAnswer(err: unknown): boolean {
  return codesOf(err).some((c) => c.startsWith('HPE_') || UNREADABLE.has(c)) || (err instanceof Error && err.name === 'HTTPParserError');
}

/** OpenSSL's verdicts on a certificate chain that no trusted CA vouches for. */
const UNTRUSTED = new Set([
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'CERT_UNTRUSTED',
  'CERT_REJECTED',
  'CERT_SIGNATURE_FAILURE',
  'CERT_CHAIN_TOO_LONG',
  'CERT_REVOKED',
  'INVALID_CA',
  'INVALID_PURPOSE',
  'PATH_LENGTH_EXCEEDED',
  'UNABLE_TO_DECRYPT_CERT_SIGNATURE',
  'UNABLE_TO_DECODE_ISSUER_PUBLIC_KEY',
]);

const OUT_OF_DATE = new Set([
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'ERROR_IN_CERT_NOT_BEFORE_FIELD',
  'ERROR_IN_CERT_NOT_AFTER_FIELD',
]);

/** Codes of the error, its cause and, for happy-eyeballs AggregateErrors, each attempt. */
function codesOf(err: unknown, depth = 0): string[] {
  if (!isObject(err)) return [];
  const e = err as { code?: unknown; cause?: unknown; errors?: unknown };
  const own = typeof e.code === 'string' ? [e.code] : [];
  if (depth > 3) return own;
  const nested = [e.cause, ...(Array.isArray(e.errors) ? e.errors : [])].flatMap((c) => codesOf(c, depth + 1));
  return [...own, ...nested];
}

export interface WireContext {
  readonly origin: string;
  readonly timeoutMs: number;
  readonly secret?: string | undefined;
  /** The proxy URL requests to `origin` go through, when one applies (HTTPS_PROXY …). */
  readonly proxy?: string | undefined;
  /** The user's names for the settings a message tells them to change. Default: the command line's. */
  readonly advice?: Advice | undefined;
}

/** The innermost message: undici wraps a tunnel's TLS failure in an error of its own. */
function rootMessage(err: unknown, depth = 0): string {
  if (!(err instanceof Error)) return String(err);
  const cause = (err as { cause?: unknown }).cause;
  return cause instanceof Error && depth < 3 ? rootMessage(cause, depth + 1) : err.message;
}

/**
 * A certificate or TLS failure as a fatal attempt whose message names the cause and the fix; the
 * code stays network_error (the contract's), the fatal kind is what stops the run as a setup error.
 */
function tlsFailure(codes: readonly string[], err: unknown, ctx: WireContext): Attempt | undefined {
  const host = new URL(ctx.origin).host;
  const why = oneLine(rootMessage(err), ctx.secret);
  const fatal = (message: string): Attempt => ({ kind: 'fatal', setup: 'tls', error: { code: 'network_error', message: `TLS: ${message}` } });
  if (codes.some((c) => UNTRUSTED.has(c))) {
    // Node 24 appends advice of its own ("; if the root CA is installed locally, try …"): the fix
    // below says what applies to numintel.
    const verdict = why.split(';', 1)[0] ?? why;
    return fatal(`the certificate of ${host} is not trusted (${verdict}); if this is a private CA, pass ${(ctx.advice ?? CLI_ADVICE).ca} or set NODE_EXTRA_CA_CERTS`);
  }
  if (codes.some((c) => OUT_OF_DATE.has(c))) {
    return fatal(`the certificate of ${host} is not valid now (${why}); the service must renew it, or this machine's clock is wrong`);
  }
  if (codes.includes('ERR_TLS_CERT_ALTNAME_INVALID') || codes.includes('HOSTNAME_MISMATCH')) {
    const names = certificateNames(err);
    const said = names ? `it is for ${names}` : why;
    return fatal(`the certificate of ${host} is not for that name (${said}); use a host name the certificate names in the base URL`);
  }
  const handshake = codes.some((c) => c.startsWith('ERR_SSL_') || c === 'EPROTO' || c === 'ERR_TLS_INVALID_PROTOCOL_VERSION');
  if (!handshake) return undefined;
  // OpenSSL's reason, without its library, function and source file.
  const reason = /SSL routines:[^:]*:([^:]+)/.exec(why)?.[1] ?? why;
  if (/wrong version number|packet length too long|http request/i.test(reason)) {
    return fatal(`${host} did not answer in TLS (${reason}); is the service plain http://? check the base URL`);
  }
  return fatal(`the handshake with ${host} failed (${reason}); check the base URL, or whether a proxy or firewall intercepts HTTPS`);
}

/** The names in the peer certificate that Node attaches to a name-mismatch error ("DNS:a, IP Address:b"). */
function certificateNames(err: unknown, depth = 0): string | undefined {
  if (!isObject(err) || depth > 3) return undefined;
  const e = err as { cert?: { subjectaltname?: unknown }; cause?: unknown };
  if (typeof e.cert?.subjectaltname === 'string' && e.cert.subjectaltname !== '') return e.cert.subjectaltname;
  return certificateNames(e.cause, depth + 1);
}

/**
 * A proxy's answer to CONNECT other than 200 stops the run as a setup error: a refusal (407 wants
 * credentials, 403 forbids the host) refuses every request alike, and a proxy that cannot reach the
 * service (502, 503) is the user's proxy to look at before anything is sent through it.
 */
function proxyAnswer(text: string, ctx: WireContext): Attempt | undefined {
  const status = Number(/Proxy response \((\d+)\)/.exec(text)?.[1]);
  if (!status) return undefined;
  const host = new URL(ctx.origin).host;
  const proxy = ctx.proxy ? ` ${shownProxy(ctx.proxy)}` : '';
  const message =
    status >= 500
      ? `the proxy${proxy} could not reach ${host} (HTTP ${status} to CONNECT); check the proxy, HTTPS_PROXY, NO_PROXY and the base URL`
      : `the proxy${proxy} refused the tunnel to ${host} (HTTP ${status}); ${status === 407 ? 'the proxy wants credentials: put them in the proxy URL (http://user:password@proxy:port)' : 'check HTTPS_PROXY, HTTP_PROXY and NO_PROXY'}`;
  return proxyFailure(message);
}

/** A failure of the proxy itself: no request can pass until it is fixed, so the run stops at once (exit 2). */
const proxyFailure = (message: string): Attempt => ({ kind: 'fatal', setup: 'proxy', error: { code: 'network_error', message } });

/** Where the connection failed: the address and port, or the name that did not resolve. */
function failedAt(err: unknown, depth = 0): { address?: string; port?: number; hostname?: string } | undefined {
  if (!isObject(err) || depth > 3) return undefined;
  const e = err as { address?: unknown; port?: unknown; hostname?: unknown; cause?: unknown; errors?: unknown };
  if (typeof e.port === 'number' || typeof e.hostname === 'string') {
    return {
      ...(typeof e.address === 'string' && { address: e.address }),
      ...(typeof e.port === 'number' && { port: e.port }),
      ...(typeof e.hostname === 'string' && { hostname: e.hostname }),
    };
  }
  for (const inner of [e.cause, ...(Array.isArray(e.errors) ? e.errors : [])]) {
    const found = failedAt(inner, depth + 1);
    if (found) return found;
  }
  return undefined;
}

/**
 * Whether the connection that failed was the one to the proxy, not (through its tunnel) to the
 * service: a refused or unresolvable proxy must be named as such, or the user checks the wrong host.
 */
function atProxy(err: unknown, ctx: WireContext): boolean {
  if (!ctx.proxy) return false;
  const at = failedAt(err);
  if (!at) return false;
  const proxy = new URL(ctx.proxy);
  const host = proxy.hostname.replace(/^\[|\]$/g, '');
  if (at.hostname !== undefined) return at.hostname === host;
  const port = portOf(proxy);
  return at.port === port && (at.address === host || port !== portOf(new URL(ctx.origin)));
}

const portOf = (url: URL): number => Number(url.port || (url.protocol === 'https:' ? 443 : 80));

/** Classifies an error thrown by the request. The caller has already ruled out its own abort. */
export function wireFailure(err: unknown, ctx: WireContext): Attempt {
  const codes = codesOf(err);
  const text = oneLine(err instanceof Error ? err.message : String(err), ctx.secret);
  const setup = tlsFailure(codes, err, ctx) ?? proxyAnswer(text, ctx);
  if (setup) return setup;
  if (unreadableAnswer(err)) {
    // It may have been billed: tried once more at most (see Attempt's `once`), as an answer, not a network fault.
    const label = codes[0] ?? (err instanceof Error ? err.name : 'error');
    const message = `${ctx.origin} answered but the answer could not be read (${label}: ${text}); retried once at most, as it may have been billed`;
    return { kind: 'retry', rateLimited: false, once: true, error: { code: 'bad_response', message } };
  }
  const timeout = codes.find((c) => c in TIMEOUTS);
  if (timeout !== undefined) {
    const message = `${TIMEOUTS[timeout]} from ${ctx.origin} within ${ctx.timeoutMs}ms (${timeout}); try again later or raise ${(ctx.advice ?? CLI_ADVICE).timeout}`;
    return { kind: 'retry', rateLimited: false, error: { code: 'timeout', message } };
  }
  const code = codes.find((c) => TRANSIENT.has(c)) ?? (/other side closed|socket hang up/i.test(text) ? 'UND_ERR_SOCKET' : undefined);
  const proxy = ctx.proxy && atProxy(err, ctx) ? shownProxy(ctx.proxy) : undefined;
  if (proxy !== undefined && (code === 'ECONNREFUSED' || codes.includes('ENOTFOUND'))) {
    const message =
      code === 'ECONNREFUSED'
        ? `connection refused by the proxy ${proxy} (ECONNREFUSED); is the proxy running? check HTTPS_PROXY, HTTP_PROXY and NO_PROXY`
        : `the proxy ${proxy} was not found (ENOTFOUND); check the host name in HTTPS_PROXY or HTTP_PROXY`;
    return proxyFailure(message);
  }
  if (code === 'ECONNREFUSED') {
    const message = `connection refused by ${ctx.origin} (ECONNREFUSED); is the service running at the base URL?`;
    return { kind: 'retry', rateLimited: false, error: { code: 'network_error', message } };
  }
  if (code !== undefined) {
    const message = `the connection to ${ctx.origin} failed before an answer arrived (${code}: ${text})`;
    return { kind: 'retry', rateLimited: false, error: { code: 'network_error', message } };
  }
  const label = codes[0] ?? (err instanceof Error ? err.name : 'error');
  const hint = codes.includes('ENOTFOUND') ? '; check the host name in the base URL' : '';
  return { kind: 'error', error: { code: 'network_error', message: `request to ${ctx.origin} failed (${label}: ${text})${hint}` } };
}

/** Failures before any connection existed: the request never left, the service saw nothing. */
const BEFORE_SENDING = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'ENETDOWN', 'UND_ERR_CONNECT_TIMEOUT']);

/** The failure of `err` marked `unsent` when the request never left (the run's counts leave it out). */
export function markUnsent(err: unknown, attempt: Attempt): Attempt {
  if ((attempt.kind !== 'retry' && attempt.kind !== 'error') || !codesOf(err).some((c) => BEFORE_SENDING.has(c))) return attempt;
  return { ...attempt, unsent: true };
}
