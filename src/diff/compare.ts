// The change kinds between two snapshots of one number. A field is compared only when both runs
// have it (an output without trust columns says nothing about flags); each kind names the fields
// that show it, for the before/after columns.
import { isTrue, lineClass, parseIso } from '../report/normalise.js';
import { isRealName, nameKey } from '../report/caller-names.js';
import type { DiffField, Snapshot } from './snapshot.js';

export const CHANGE_KINDS = ['ported', 'carrier', 'line_type', 'messaging', 'caller_name', 'flagged', 'unflagged', 'trust_level', 'score', 'added', 'removed', 'failed'] as const;
export type ChangeKind = (typeof CHANGE_KINDS)[number];

export interface Change {
  readonly kinds: ChangeKind[];
  /** The fields whose before and after values a changes row shows, in DIFF_FIELDS order. */
  readonly fields: DiffField[];
}

const FLAGS = ['is_spam', 'is_robocall', 'is_scam'] as const;

const same = (a: string, b: string) => a.trim().toUpperCase() === b.trim().toUpperCase();

function both(b: Snapshot, a: Snapshot, field: DiffField): [string, string] | undefined {
  const x = b[field];
  const y = a[field];
  // The same text is no change of any kind: most fields of most rows stop here.
  return x === undefined || y === undefined || x === y ? undefined : [x, y];
}

/** Whether a lookup failed in `x` and answered in `y`. */
function failedOnce(x: Snapshot, y: Snapshot): boolean {
  if (!x.error || !y.answered) return false;
  const answered = y.answered.split(';');
  return x.error.split(';').some((e) => e.includes(': ') && answered.includes(e.slice(0, e.indexOf(': '))));
}

/** What changed for a number in both runs; no kinds when nothing did. */
export function compare(b: Snapshot, a: Snapshot, scoreDelta: number): Change {
  const kinds: ChangeKind[] = [];
  const fields = new Set<DiffField>();
  const mark = (kind: ChangeKind, ...f: DiffField[]) => {
    if (!kinds.includes(kind)) kinds.push(kind);
    for (const x of f) fields.add(x);
  };

  const lrn = both(b, a, 'lrn');
  if (lrn && lrn[0] !== '' && lrn[1] !== '' && lrn[0].replace(/\D/g, '') !== lrn[1].replace(/\D/g, '')) mark('ported', 'lrn');
  const at = both(b, a, 'lrn_activated_at');
  if (at && at[0] !== '' && at[1] !== '' && parseIso(at[1]) > parseIso(at[0])) mark('ported', 'lrn_activated_at');

  const carrier = both(b, a, 'carrier');
  if (carrier && carrier[0] !== '' && carrier[1] !== '' && !same(carrier[0], carrier[1])) mark('carrier', 'carrier');
  const type = both(b, a, 'carrier_type');
  if (type && type[0] !== '' && type[1] !== '' && lineClass(type[0]) !== lineClass(type[1])) mark('line_type', 'carrier_type');
  const msg = both(b, a, 'messaging_provider');
  if (msg && !same(msg[0], msg[1])) mark('messaging', 'messaging_provider');

  const cnam = both(b, a, 'cnam');
  if (cnam && isRealName(cnam[0]) && isRealName(cnam[1]) && nameKey(cnam[0]) !== nameKey(cnam[1])) mark('caller_name', 'cnam');

  for (const flag of FLAGS) {
    const v = both(b, a, flag);
    if (!v || v[0] === '' || v[1] === '') continue;
    const [was, is] = [isTrue(v[0]), isTrue(v[1])];
    if (!was && is) mark('flagged', flag);
    if (was && !is) mark('unflagged', flag);
  }

  const level = both(b, a, 'trust_level');
  if (level && level[0] !== '' && level[1] !== '' && !same(level[0], level[1])) mark('trust_level', 'trust_level');
  const score = both(b, a, 'reputation_score');
  if (score && score[0].trim() !== '' && score[1].trim() !== '') {
    const [x, y] = [Number(score[0]), Number(score[1])];
    if (Number.isFinite(x) && Number.isFinite(y) && Math.abs(y - x) >= scoreDelta) mark('score', 'reputation_score');
  }

  // A lookup that failed in one run and answered in the other, either way round; a failure in
  // both, or a lookup only one run made, is no change.
  if ((b.error ?? '') !== (a.error ?? '') && (failedOnce(b, a) || failedOnce(a, b))) mark('failed', 'error');

  const order: DiffField[] = ['lrn', 'lrn_activated_at', 'carrier', 'carrier_type', 'messaging_provider', 'cnam', 'is_spam', 'is_robocall', 'is_scam', 'trust_level', 'reputation_score', 'error'];
  return { kinds: CHANGE_KINDS.filter((k) => kinds.includes(k)), fields: order.filter((f) => fields.has(f)) };
}
