// Every error body the sandbox sends, in the dialect of the endpoint that sends it (see
// shared/spec/unspecified.md): LRN {error, details}, CNAM {data, errors}, trust {success:false, error}.
import type { Envelope, LookupDescriptor } from '../core/lookups.js';

export const UNAUTHORIZED_MESSAGE = 'missing, malformed, unknown or revoked API key: send "Authorization: Bearer <key>"';
export const UNAUTHORIZED_BODY = JSON.stringify({ error: 'unauthorized', message: UNAUTHORIZED_MESSAGE });
export const UNAUTHORIZED_HEADERS = ['WWW-Authenticate', 'Bearer realm="numintel-sandbox"'];

export const PAYMENT_REQUIRED_MESSAGE = 'the lookup quota of this API key is used up: fund the wallet to continue';
export const PAYMENT_REQUIRED_BODY = JSON.stringify({ error: 'payment_required', message: PAYMENT_REQUIRED_MESSAGE });

/** A 4xx/5xx body other than 401/402/429, shaped like the endpoint's own errors. */
export function errorBody(envelope: Envelope, short: string, detail: string): string {
  switch (envelope) {
    case 'none':
      return JSON.stringify({ error: short, details: detail });
    case 'data-errors':
      return JSON.stringify({ data: null, errors: [`${short}: ${detail}`] });
    case 'success-data':
      return JSON.stringify({ success: false, error: `${short}: ${detail}` });
  }
}

export function rateLimitedMessage(d: LookupDescriptor, retryAfter: number): string {
  return `rate limit of ${d.title} lookups per second for this API key exceeded; retry in ${retryAfter} s`;
}

export function rateLimitedBody(d: LookupDescriptor, retryAfter: number): string {
  const message = rateLimitedMessage(d, retryAfter);
  switch (d.envelope) {
    case 'none':
      return JSON.stringify({ error: 'rate_limit_exceeded', message, retry_after: retryAfter });
    case 'data-errors':
      return JSON.stringify({ data: null, errors: [message] });
    case 'success-data':
      return JSON.stringify({ success: false, error: message });
  }
}

/** The invalid-number answer: CNAM keeps its envelope with spam_type INVALID_NUMBER (spec 7.3). */
export function invalidNumberBody(d: LookupDescriptor, rule: string): string {
  switch (d.envelope) {
    case 'none':
      return JSON.stringify({ error: 'Invalid phone number format', details: `phone_number ${rule}` });
    case 'data-errors':
      return JSON.stringify({
        data: { number: '', cnam: null, spam_type: 'INVALID_NUMBER' },
        errors: [`Invalid phone number format: phone_number ${rule}`],
      });
    case 'success-data':
      return JSON.stringify({ success: false, error: `Invalid phone number format: phone_number ${rule}` });
  }
}

export function plainError(code: string, message: string): string {
  return JSON.stringify({ error: code, message });
}

export function graphqlError(code: string, message: string, extra: Record<string, unknown> = {}): string {
  return JSON.stringify({ errors: [{ message, extensions: { code, ...extra } }], data: null });
}
