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
 * `kind: code` pairs, `;`-separated. Each field is read by name (not through DIFF_FIELDS): this
 * runs for every row of both files.
 */
export function snapshotOf(row: RowFacts): Snapshot {
  const snap: Snapshot = { error: '' };
  let error = '';
  for (const l of row.lookups) {
    const a = l.answer;
    if (a === null) {
      error += `${error === '' ? '' : ';'}${l.kind}: ${l.errorCode ?? 'error'}`;
      continue;
    }
    if (a.lrn !== undefined) snap.lrn ??= a.lrn;
    if (a.activatedAt !== undefined) snap.lrn_activated_at ??= a.activatedAt;
    if (a.carrier !== undefined) snap.carrier ??= a.carrier;
    if (a.carrierType !== undefined) snap.carrier_type ??= a.carrierType;
    if (a.msgProvider !== undefined) snap.messaging_provider ??= a.msgProvider;
    if (a.cnam !== undefined) snap.cnam ??= a.cnam;
    if (a.isSpam !== undefined) snap.is_spam ??= a.isSpam;
    if (a.isRobocall !== undefined) snap.is_robocall ??= a.isRobocall;
    if (a.isScam !== undefined) snap.is_scam ??= a.isScam;
    if (a.level !== undefined) snap.trust_level ??= a.level;
    if (a.score !== undefined) snap.reputation_score ??= a.score;
  }
  snap.error = error;
  return snap;
}

const ORDER: readonly DiffField[] = [...DIFF_FIELDS.map(([f]) => f), 'error'];
const SEP = '\x1f';
const ABSENT = '\x00';

/**
 * A snapshot as one string, the form the before index holds: a million rows of objects would
 * take hundreds of MB, and a joined string is also a copy, so no cell keeps the read chunk it was
 * cut from alive.
 */
export function packSnapshot(snap: Snapshot): string {
  // join, not +=: it makes one flat string, where += would make a tree of the cells themselves.
  const parts: string[] = [];
  for (const field of ORDER) {
    const v = snap[field];
    parts.push(v === undefined ? ABSENT : v.includes(SEP) ? v.replaceAll(SEP, ' ') : v);
  }
  return parts.join(SEP);
}

export function unpackSnapshot(packed: string): Snapshot {
  const snap: Snapshot = {};
  const parts = packed.split(SEP);
  for (let i = 0; i < ORDER.length; i++) {
    const v = parts[i];
    if (v !== undefined && v !== ABSENT) snap[ORDER[i] as DiffField] = v;
  }
  return snap;
}

/** A copy of a short string that does not keep the text it was sliced from alive. */
export function ownCopy(s: string): string {
  return (` ${s}`).slice(1);
}
