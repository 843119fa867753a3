// The error bodies of the sandbox in one of two styles. `numintel` (the default) is the dialect of
// our description: each endpoint its own envelope (see bodies.ts). `vri` is what the real service's
// public pages show (shared/spec/real-service-notes.md): `{"error","code","details"}`, nested
// `{"error":{"code","message"}}` and `{"data","errors"}`, taken in turn so every endpoint meets all
// three; 429s spelled `rate_limited` and `RATE_LIMIT_EXCEEDED` in turn; `INSUFFICIENT_BALANCE`,
// `INVALID_PHONE_NUMBER`, `INTERNATIONAL_NOT_SUPPORTED`, `PROVIDER_ERROR`; and the codes of GraphQL
// errors renamed the same way.
import type { LookupDescriptor } from '../core/lookups.js';
import {
  PAYMENT_REQUIRED_BODY,
  UNAUTHORIZED_BODY,
  UNAUTHORIZED_MESSAGE,
  errorBody,
  invalidNumberBody,
  type RateRefusal,
  rateLimitedBody,
  rateLimitedMessage,
} from './bodies.js';
import { ERROR_TEXT } from './faults.js';
import type { ErrorStyle } from './options.js';

export interface ErrorBodies {
  unauthorized(): string;
  paymentRequired(): string;
  rateLimited(d: LookupDescriptor, refusal: RateRefusal): string;
  /** `phone`: what was sent, so a non-U.S. number can be told apart. */
  invalidNumber(d: LookupDescriptor, phone: string): string;
  /** Another 4xx about the request (method, media type, malformed body). */
  request(d: LookupDescriptor, short: string, detail: string): string;
  /** An injected 500/502/503. */
  serverError(d: LookupDescriptor, status: number): string;
  /** The extensions.code a GraphQL error carries in this style. */
  graphqlCode(code: string): string;
}

const numintelBodies: ErrorBodies = {
  unauthorized: () => UNAUTHORIZED_BODY,
  paymentRequired: () => PAYMENT_REQUIRED_BODY,
  rateLimited: rateLimitedBody,
  invalidNumber: (d) => invalidNumberBody(d),
  request: errorBody,
  serverError: (d, status) => errorBody(d, 'Server error', ERROR_TEXT[status] ?? 'server error'),
  graphqlCode: (code) => code,
};

const VRI_GRAPHQL_CODES: Readonly<Record<string, string>> = {
  UNAUTHENTICATED: 'INVALID_API_KEY',
  PAYMENT_REQUIRED: 'INSUFFICIENT_BALANCE',
  INVALID_NUMBER: 'INVALID_PHONE_NUMBER',
  INTERNAL_SERVER_ERROR: 'PROVIDER_ERROR',
};

const VRI_SERVER_CODES: Readonly<Record<number, [code: string, message: string]>> = {
  500: ['INTERNAL_ERROR', 'internal error'],
  502: ['SERVER_ERROR', 'bad gateway'],
  503: ['PROVIDER_ERROR', 'upstream provider unavailable — retry after a few seconds'],
};

/** The real service's shapes, the three formats in turn (one counter per sandbox). */
function vriBodies(): ErrorBodies {
  let turn = 0;
  const shaped = (error: string, code: string, details: Record<string, unknown> = {}, extra: Record<string, unknown> = {}): string => {
    switch (turn++ % 3) {
      case 0:
        return JSON.stringify({ error, code, details, ...extra });
      case 1:
        return JSON.stringify({ error: { code, message: error, details, ...extra } });
      default:
        return JSON.stringify({ data: null, errors: [error] });
    }
  };
  let rateTurn = 0;
  return {
    unauthorized: () => shaped(`Invalid API key: ${UNAUTHORIZED_MESSAGE}`, 'INVALID_API_KEY'),
    paymentRequired: () => shaped('Insufficient balance: fund the wallet to continue', 'INSUFFICIENT_BALANCE', { balance: 0 }),
    rateLimited: (d, r) => {
      // Both spellings on every endpoint, and the 429 body of the rate-limit page, bucket and all.
      const code = rateTurn++ % 2 === 0 ? 'rate_limited' : 'RATE_LIMIT_EXCEEDED';
      return shaped(`Too Many Requests: ${rateLimitedMessage(d, r)}`, code, {}, { bucket: 'per_api_key', window_seconds: r.windowSeconds, retry_after: r.retryAfter });
    },
    invalidNumber: (d, phone) =>
      // A number given in another country's international form is not a U.S. number at all.
      phone.trimStart().startsWith('+') && !phone.trimStart().startsWith('+1')
        ? shaped('International numbers are not supported', 'INTERNATIONAL_NOT_SUPPORTED', { phone_number: phone.slice(0, 40) })
        : shaped(`Invalid phone number: phone_number ${d.numbers.rule}`, 'INVALID_PHONE_NUMBER', { phone_number: phone.slice(0, 40) }),
    request: (_d, short, detail) => shaped(`${short}: ${detail}`, 'INVALID_REQUEST'),
    serverError: (_d, status) => {
      const [code, message] = VRI_SERVER_CODES[status] ?? ['SERVER_ERROR', 'server error'];
      return shaped(`${message} (injected fault)`, code);
    },
    graphqlCode: (code) => VRI_GRAPHQL_CODES[code] ?? code,
  };
}

export function errorBodies(style: ErrorStyle): ErrorBodies {
  return style === 'vri' ? vriBodies() : numintelBodies;
}
