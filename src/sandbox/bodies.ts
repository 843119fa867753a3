// Every error body the sandbox sends, in the dialect of the endpoint that sends it (see
// shared/spec/unspecified.md), written by its envelope style (src/api/envelopes/, which the client
// reads with): LRN {error, details}, CNAM {data, errors}, trust {success:false, error}.
import { ENVELOPES } from '../api/envelopes/index.js';
import type { LookupDescriptor } from '../core/lookups.js';

export const UNAUTHORIZED_MESSAGE = 'missing, malformed, unknown or revoked API key: send "Authorization: Bearer <key>"';
export const UNAUTHORIZED_BODY = JSON.stringify({ error: 'unauthorized', message: UNAUTHORIZED_MESSAGE });
export const UNAUTHORIZED_HEADERS = ['WWW-Authenticate', 'Bearer realm="numintel-sandbox"'];

export const PAYMENT_REQUIRED_MESSAGE = 'the lookup quota of this API key is used up: fund the wallet to continue';
export const PAYMENT_REQUIRED_BODY = JSON.stringify({ error: 'payment_required', message: PAYMENT_REQUIRED_MESSAGE });

/** A 4xx/5xx body other than 401/402/429, shaped like the endpoint's own errors. */
export function errorBody(d: LookupDescriptor, short: string, detail: string): string {
  return ENVELOPES[d.envelope].error(short, detail);
}

/** What a 429 says of the budget that ran out: the wait, the window's length, and whose budget it is. */
export interface RateRefusal {
  /** Seconds to wait; absent for a refusal that gives no hint. */
  readonly retryAfter?: number | undefined;
  /** The refusing window in seconds: the rate window, or 1 when a burst cap refused. */
  readonly windowSeconds: number;
  /** The one budget every lookup of the key spends (--shared-limit). */
  readonly shared: boolean;
  /** The budget of the lookup's bulk endpoint. */
  readonly bulk?: boolean;
}

/** A plain one-second refusal of a lookup's own budget (the defaults). */
export const perSecond = (retryAfter: number): RateRefusal => ({ retryAfter, windowSeconds: 1, shared: false });

export function rateLimitedMessage(d: LookupDescriptor, r: RateRefusal): string {
  const whose = r.bulk ? `${d.title} bulk requests` : r.shared ? 'all lookups (shared)' : `${d.title} lookups`;
  const per = r.windowSeconds === 1 ? 'per second' : `per ${r.windowSeconds} s window`;
  return `rate limit of ${whose} ${per} for this API key exceeded${r.retryAfter === undefined ? '' : `; retry in ${r.retryAfter} s`}`;
}

export function rateLimitedBody(d: LookupDescriptor, r: RateRefusal): string {
  return ENVELOPES[d.envelope].rateLimited(rateLimitedMessage(d, r), r.retryAfter);
}

/** The invalid-number answer in the endpoint's envelope, with its result if it carries one (CNAM). */
export function invalidNumberBody(d: LookupDescriptor): string {
  return ENVELOPES[d.envelope].invalidNumber(d.numbers.rule, d.invalidResult);
}

export function plainError(code: string, message: string): string {
  return JSON.stringify({ error: code, message });
}

export function graphqlError(code: string, message: string, extra: Record<string, unknown> = {}): string {
  return JSON.stringify({ errors: [{ message, extensions: { code, ...extra } }], data: null });
}
