// What a report reads from one output row, whichever form the row came in (a CSV row, a JSON
// record, a record as a run writes it): the number, and per lookup its answer or its error.
import { isObject } from '../core/json.js';
import { LOOKUP_KINDS, LOOKUPS, type LookupKind } from '../core/lookups.js';

/** The fields a report uses, as text ('' for null or empty); undefined = not in this output. */
export interface Answer {
  lrn?: string;
  activatedAt?: string;
  carrier?: string;
  carrierType?: string;
  state?: string;
  timezone?: string;
  msgProvider?: string;
  msgEnabled?: string;
  cnam?: string;
  spamType?: string;
  isSpam?: string;
  isRobocall?: string;
  isScam?: string;
  score?: string;
  level?: string;
}

export interface LookupFacts {
  readonly kind: LookupKind;
  /** null when the lookup failed (or was never made). */
  readonly answer: Answer | null;
  readonly errorCode: string | null;
  readonly errorMessage: string;
  /** true/false when the output says whether the answer came from the cache; undefined otherwise. */
  readonly cached: boolean | undefined;
}

export interface RowFacts {
  /** The normalised number, or null when there is none (an invalid input). */
  readonly number: string | null;
  readonly lookups: readonly LookupFacts[];
  /** The row's input columns, name and text, when the reader was asked for them. */
  readonly inputs?: readonly (readonly [string, string])[];
}

/**
 * Each lookup's flattened column names (as in its CSV columns, see core/lookups.ts) → Answer keys:
 * the report's charts are about these lookups' answers; another lookup gets the generic figures only.
 */
export const ANSWER_FIELDS: Readonly<Partial<Record<LookupKind, readonly (readonly [string, keyof Answer])[]>>> = {
  lrn: [
    ['lrn', 'lrn'],
    ['lrn_activated_at', 'activatedAt'],
    ['carrier', 'carrier'],
    ['carrier_type', 'carrierType'],
    ['state', 'state'],
    ['timezone', 'timezone'],
    ['messaging_provider', 'msgProvider'],
    ['messaging_enabled', 'msgEnabled'],
  ],
  cnam: [
    ['cnam', 'cnam'],
    ['spam_type', 'spamType'],
  ],
  trust: [
    ['is_spam', 'isSpam'],
    ['is_robocall', 'isRobocall'],
    ['is_scam', 'isScam'],
    ['spam_type', 'spamType'],
    ['reputation_score', 'score'],
    ['trust_level', 'level'],
  ],
};

export function text(value: unknown): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

/** The answer of a JSON result object: sub-objects (enhanced, messaging) flattened as in CSV. */
function answerOf(kind: LookupKind, result: Record<string, unknown>): Answer {
  const flat = new Map<string, unknown>();
  for (const f of LOOKUPS[kind].fields) {
    if (!(f.name in result)) continue;
    if (f.type !== 'object') {
      flat.set(f.name, result[f.name]);
      continue;
    }
    const sub = result[f.name];
    if (!isObject(sub)) continue;
    for (const s of f.fields ?? []) flat.set(`${f.csvPrefix ?? ''}${s.name}`, sub[s.name]);
  }
  const answer: Answer = {};
  for (const [column, key] of ANSWER_FIELDS[kind] ?? []) if (flat.has(column)) answer[key] = text(flat.get(column));
  return answer;
}

function cachedOf(record: Record<string, unknown>, kind: LookupKind): boolean | undefined {
  const c = record.cached;
  if (typeof c === 'boolean') return c;
  if (isObject(c) && typeof c[kind] === 'boolean') return c[kind];
  if (Array.isArray(c)) return c.includes(kind);
  return undefined;
}

function lookupFacts(kind: LookupKind, result: unknown, error: unknown, record: Record<string, unknown>): LookupFacts {
  const err = isObject(error) ? error : null;
  const answer = isObject(result) ? answerOf(kind, result) : null;
  return {
    kind,
    answer,
    errorCode: err ? text(err.code) || 'error' : answer ? null : 'error',
    errorMessage: err ? text(err.message) : '',
    cached: answer ? cachedOf(record, kind) : undefined,
  };
}

/**
 * The facts of one JSON record (a line of jsonl, an element of json, or a record as a run writes
 * it); null for anything that is not a numintel record.
 */
export function recordFacts(record: unknown): RowFacts | null {
  if (!isObject(record) || !('number' in record)) return null;
  const number = typeof record.number === 'string' && record.number !== '' ? record.number : null;
  if (isObject(record.results)) {
    const results = record.results;
    const errors = isObject(record.errors) ? record.errors : {};
    const lookups = LOOKUP_KINDS.filter((k) => k in results || k in errors).map((k) => lookupFacts(k, results[k], errors[k], record));
    return { number, lookups };
  }
  if (typeof record.lookup === 'string' && (LOOKUP_KINDS as readonly string[]).includes(record.lookup)) {
    return { number, lookups: [lookupFacts(record.lookup as LookupKind, record.result, record.error, record)] };
  }
  return null;
}
