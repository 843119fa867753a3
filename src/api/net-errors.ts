// What went wrong on the wire, as an Attempt: timeouts and dropped connections are worth another
// try, a name that does not resolve is not.
import type { Attempt } from '../core/transport.js';
import { isObject } from '../core/json.js';
import { oneLine } from './body.js';

const TIMEOUTS: Readonly<Record<string, string>> = {
  UND_ERR_CONNECT_TIMEOUT: 'could not connect',
  UND_ERR_HEADERS_TIMEOUT: 'no answer',
  UND_ERR_BODY_TIMEOUT: 'the answer stalled',
  ETIMEDOUT: 'could not connect',
  ESOCKETTIMEDOUT: 'no answer',
};

const TRANSIENT = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'ECONNABORTED',
  'EPIPE',
  'UND_ERR_SOCKET',
  'UND_ERR_RES_CONTENT_LENGTH_MISMATCH',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENETDOWN',
  'EAI_AGAIN',
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
}

/** Classifies an error thrown by the request. The caller has already ruled out its own abort. */
export function wireFailure(err: unknown, ctx: WireContext): Attempt {
  const codes = codesOf(err);
  const text = oneLine(err instanceof Error ? err.message : String(err), ctx.secret);
  const timeout = codes.find((c) => c in TIMEOUTS);
  if (timeout !== undefined) {
    const message = `${TIMEOUTS[timeout]} from ${ctx.origin} within ${ctx.timeoutMs}ms (${timeout}); try again later or raise --timeout`;
    return { kind: 'retry', rateLimited: false, error: { code: 'timeout', message } };
  }
  const code = codes.find((c) => TRANSIENT.has(c)) ?? (/other side closed|socket hang up/i.test(text) ? 'UND_ERR_SOCKET' : undefined);
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
