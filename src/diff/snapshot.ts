// What a diff keeps of one output row: the few fields it compares, as text, and which lookups
// failed. The before file is held as a Map of these (not whole rows), so memory grows with the
// number of rows only by these few strings.
import type { Answer, RowFacts } from '../report/facts.js';

/** The compared fields, by their output names; each maps to the Answer key the report reads. */
export const DIFF_FIELDS = [
  ['lrn', 'lrn'],
  ['lrn_activated_at', 'activatedAt'],
  ['carrier', 'carrier'],
  ['carrier_type', 'carrierType'],
  ['messaging_provider', 'msgProvider'],
  ['cnam', 'cnam'],
  ['is_spam', 'isSpam'],
  ['is_robocall', 'isRobocall'],
  ['is_scam', 'isScam'],
  ['trust_level', 'level'],
  ['reputation_score', 'score'],
] as const satisfies readonly (readonly [string, keyof Answer])[];

export type DiffField = (typeof DIFF_FIELDS)[number][0] | 'error';

/** Field name → value ('' for empty); a field the output does not have is absent. */
export type Snapshot = Partial<Record<DiffField, string>>;

/**
 * A copy of what a row says (the readers hand out the same objects again for every row). A
 * lookup's fields are taken only when it answered; its failure is kept in `error` as
 * `kind: code` pairs, `;`-separated.
 */
export function snapshotOf(row: RowFacts): Snapshot {
  const snap: Snapshot = {};
  let error = '';
  for (const l of row.lookups) {
    if (l.answer === null) {
      error += `${error === '' ? '' : ';'}${l.kind}: ${l.errorCode ?? 'error'}`;
      continue;
    }
    for (const [field, key] of DIFF_FIELDS) {
      const value = l.answer[key];
      if (value !== undefined && snap[field] === undefined) snap[field] = value;
    }
  }
  snap.error = error;
  return snap;
}
