// The records numintel writes: one per input number (or per CSV row), in input order.
import type { LookupKind } from './lookups.js';

/** Per-number error codes of the command-line contract. */
export type LookupErrorCode =
  | 'invalid_number'
  | 'unauthorized'
  | 'payment_required'
  | 'rate_limited'
  | 'server_error'
  | 'timeout'
  | 'network_error'
  | 'bad_response'
  | 'http_error'
  // The run stopped (Ctrl-C, a refused key, a tripped circuit breaker) before this row was looked up.
  | 'not_attempted';

/**
 * The transient conditions: worth another try, and a sign of the service's health that the
 * circuit breaker counts. Everything else (a refused number, another 4xx, an unreadable answer)
 * would fail the same way again.
 */
export const TRANSIENT: ReadonlySet<LookupErrorCode> = new Set<LookupErrorCode>(['rate_limited', 'server_error', 'timeout', 'network_error']);

export const isTransient = (code: LookupErrorCode): boolean => TRANSIENT.has(code);

export interface LookupError {
  readonly code: LookupErrorCode;
  readonly message: string;
  readonly status?: number;
}

export type Result = Record<string, unknown>;

/** What a lookup command writes for one input number. */
export interface LookupRecord {
  /** The input row as an object, for CSV input only (written last in the record). */
  row?: Record<string, string>;
  input: string;
  number: string | null;
  lookup: LookupKind;
  ok: boolean;
  result: Result | null;
  error: LookupError | null;
  /** The answer came from the persistent cache (no request, no charge). */
  cached: boolean;
  /** When the answer was fetched from the service (ISO 8601 UTC); null without an answer. */
  fetched_at: string | null;
}

/** What `enrich` writes for one input number: several lookups side by side. */
export interface EnrichRecord {
  row?: Record<string, string>;
  input: string;
  number: string | null;
  ok: boolean;
  results: Partial<Record<LookupKind, Result | null>>;
  errors: Partial<Record<LookupKind, LookupError | null>>;
  cached: Partial<Record<LookupKind, boolean>>;
  fetched_at: Partial<Record<LookupKind, string | null>>;
}

export type OutputRecord = LookupRecord | EnrichRecord;

export function isEnrichRecord(r: OutputRecord): r is EnrichRecord {
  return 'results' in r;
}
