// The error codes services put in their bodies, and what each means for a lookup: one table for
// REST bodies (`{"error","code"}`, `{"error":{"code","message"}}`) and GraphQL `extensions.code`.
// The real service spells some of them two ways (rate_limited, RATE_LIMIT_EXCEEDED): see
// shared/spec/real-service-notes.md.
import type { LookupErrorCode } from '../core/records.js';
import { isObject } from '../core/json.js';

export type CodeClass = Exclude<LookupErrorCode, 'network_error' | 'not_attempted' | 'timeout' | 'bad_response'>;

const CLASS_OF: Readonly<Record<string, CodeClass>> = {
  RATE_LIMITED: 'rate_limited',
  RATE_LIMIT_EXCEEDED: 'rate_limited',
  TOO_MANY_REQUESTS: 'rate_limited',
  PROVIDER_ERROR: 'server_error',
  INTERNAL_ERROR: 'server_error',
  SERVER_ERROR: 'server_error',
  INTERNAL_SERVER_ERROR: 'server_error',
  SERVICE_UNAVAILABLE: 'server_error',
  INSUFFICIENT_BALANCE: 'payment_required',
  PAYMENT_REQUIRED: 'payment_required',
  INVALID_API_KEY: 'unauthorized',
  MISSING_API_KEY: 'unauthorized',
  AUTH_REQUIRED: 'unauthorized',
  AUTH_FAILED: 'unauthorized',
  UNAUTHENTICATED: 'unauthorized',
  UNAUTHORIZED: 'unauthorized',
  FORBIDDEN: 'unauthorized',
  INVALID_PHONE_NUMBER: 'invalid_number',
  INTERNATIONAL_NOT_SUPPORTED: 'invalid_number',
  INVALID_NUMBER: 'invalid_number',
  BAD_USER_INPUT: 'invalid_number',
  // Our request lacked the number: a fault of the request, not of the number.
  MISSING_PHONE_NUMBER: 'http_error',
  GRAPHQL_PARSE_FAILED: 'http_error',
  GRAPHQL_VALIDATION_FAILED: 'http_error',
};

/** What a code means, whatever its case; undefined for a code nobody documented. */
export function classOfCode(code: unknown): CodeClass | undefined {
  return typeof code === 'string' && code.length <= 64 ? CLASS_OF[code.trim().toUpperCase()] : undefined;
}

/**
 * The code of a REST error body: `{"error":"…","code":"…"}` or `{"error":{"code":"…"}}`. A body
 * that carries data (`{"data":{…},"errors":[…]}`) is an answer, whatever else it says.
 */
export function bodyCodeClass(json: unknown): CodeClass | undefined {
  if (!isObject(json) || isObject(json.data)) return undefined;
  if (isObject(json.error)) return classOfCode(json.error.code);
  if (json.error !== undefined || json.success === false) return classOfCode(json.code);
  return undefined;
}
