// What a diff keeps of one output row: the few fields it compares, as text, and which lookups
// answered and which failed. The before file is held as these (packed, in a BeforeIndex), not as
// whole rows.
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

/**
 * Field name → value ('' for empty); a field the output does not have is absent. `answered`: the
 * lookups that answered, `;`-separated (no column of its own: it tells a failure in one run only).
 */
export type Snapshot = Partial<Record<DiffField | 'answered', string>>;

type Kept = keyof Snapshot;

/**
 * A copy of what a row says (the readers hand out the same objects again for every row). A
 * lookup's fields are taken only when it answered; its failure is kept in `error` as
 * `kind: code` pairs, `;`-separated. Each field is read by name (not through DIFF_FIELDS): this
 * runs for every row of both files.
 */
export function snapshotOf(row: RowFacts): Snapshot {
  const snap: Snapshot = { error: '' };
  let error = '';
  let answered = '';
  for (const l of row.lookups) {
    const a = l.answer;
    if (a === null) {
      error += `${error === '' ? '' : ';'}${l.kind}: ${l.errorCode ?? 'error'}`;
      continue;
    }
    answered += answered === '' ? l.kind : `;${l.kind}`;
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
  snap.answered = answered;
  return snap;
}

const ORDER: readonly Kept[] = [...DIFF_FIELDS.map(([f]) => f), 'error', 'answered'];
/** The fields of few distinct values (carriers, types, flags, levels, scores, errors, lookups): kept as codes. */
const CODED: readonly Kept[] = ['carrier', 'carrier_type', 'messaging_provider', 'is_spam', 'is_robocall', 'is_scam', 'trust_level', 'reputation_score', 'error', 'answered'];
const RAW: readonly Kept[] = ORDER.filter((f) => !CODED.includes(f));
const SEP = '\x1f';
const ABSENT = '\x00';
/** Two characters of 0x30–0xF7 per code: one-byte strings, 40,000 codes a field. */
const BASE = 200;
const FIRST = 0x30;

/**
 * Snapshots as strings, the form the before index holds: a million rows of objects would take
 * hundreds of MB. The fields of few distinct values become two-character codes of a dictionary per
 * field; the others are joined as they are. A joined string is also a copy, so no cell keeps the
 * read chunk it was cut from alive. Should a dictionary fill up, rows are packed whole ('r').
 */
export class SnapshotPacker {
  private readonly codes = CODED.map(() => new Map<string, string>());
  private readonly values: string[][] = CODED.map(() => []);
  private full = false;

  /** A number's record: its packed snapshot, then the number itself (last, so it can hold anything). */
  pack(snap: Snapshot, number: string): string {
    const parts: string[] = [];
    let coded = '';
    if (!this.full) {
      for (let i = 0; i < CODED.length; i++) {
        const code = this.code(i, snap[CODED[i] as Kept]);
        if (code === undefined) {
          this.full = true;
          break;
        }
        coded += code;
      }
    }
    // join, not +=: it makes one flat string, where += would make a tree of the cells themselves.
    if (this.full) {
      parts.push('r');
      for (const field of ORDER) parts.push(cell(snap[field]));
    } else {
      parts.push(`c${coded}`);
      for (const field of RAW) parts.push(cell(snap[field]));
    }
    parts.push(number);
    return parts.join(SEP);
  }

  unpack(packed: string): Snapshot {
    const snap: Snapshot = {};
    const parts = packed.split(SEP);
    const head = parts[0] ?? '';
    const fields = head === 'r' ? ORDER : RAW;
    for (let i = 0; i < fields.length; i++) {
      const v = parts[i + 1];
      if (v !== undefined && v !== ABSENT) snap[fields[i] as Kept] = v;
    }
    if (head !== 'r') {
      for (let i = 0; i < CODED.length; i++) {
        const at = 1 + 2 * i;
        const code = (head.charCodeAt(at) - FIRST) * BASE + (head.charCodeAt(at + 1) - FIRST);
        if (code > 0) snap[CODED[i] as Kept] = this.values[i]![code - 1]!;
      }
    }
    return snap;
  }

  /** The number a record is of. */
  numberOf(packed: string): string {
    let at = -1;
    for (let i = packed.startsWith('r') ? ORDER.length : RAW.length; i >= 0; i--) at = packed.indexOf(SEP, at + 1);
    return packed.slice(at + 1);
  }

  /** The code of a value of coded field i (0 = absent); undefined when its dictionary is full. */
  private code(i: number, value: string | undefined): string | undefined {
    if (value === undefined) return String.fromCharCode(FIRST, FIRST);
    const codes = this.codes[i]!;
    let code = codes.get(value);
    if (code === undefined) {
      const values = this.values[i]!;
      const n = values.length + 1;
      if (n >= BASE * BASE) return undefined;
      code = String.fromCharCode(FIRST + Math.floor(n / BASE), FIRST + (n % BASE));
      const own = ownCopy(value);
      values.push(own);
      codes.set(own, code);
    }
    return code;
  }
}

function cell(v: string | undefined): string {
  return v === undefined ? ABSENT : v.includes(SEP) ? v.replaceAll(SEP, ' ') : v;
}

/** A copy of a short string that does not keep the text it was sliced from alive. */
export function ownCopy(s: string): string {
  return ` ${s}`.slice(1);
}
