// The numbers to act on: rows flagged scam, robocall or spam, with low trust, or ported in the last
// 30 days. Every such number is counted; only the `limit` most severe are kept, so memory stays
// bounded however many rows the output has.
import { sameNumber } from './normalise.js';
import type { ActOn, ActOnRow, ActReason } from './report.js';

/** Most severe first: each reason outweighs all those after it together. */
export const ACT_REASONS: readonly ActReason[] = ['scam', 'robocall', 'spam', 'low_trust', 'ported_30d'];
/** A row's reasons as bits of one number, which is also its severity. */
export const REASON_BIT: Readonly<Record<ActReason, number>> = { scam: 16, robocall: 8, spam: 4, low_trust: 2, ported_30d: 1 };

export const maskOf = (reasons: Iterable<ActReason>): number => [...reasons].reduce((m, r) => m | REASON_BIT[r], 0);

export const ACT_ON_LIMIT = 20;

/** How many input columns say who a row is, beside its number. */
const ID_COLUMNS = 2;

export interface ActCandidate {
  readonly row: number;
  readonly number: string;
  /** The reasons' REASON_BITs. */
  readonly mask: number;
  readonly level?: string;
  readonly score?: number;
  readonly portedDaysAgo?: number;
  readonly inputs?: readonly (readonly [string, string])[];
}

type Rank = Pick<ActCandidate, 'mask' | 'score' | 'row'>;

/** Whether `a` comes before `b`: more severe, then the lower reputation score, then the earlier row. */
function before(a: Rank, b: Rank): boolean {
  if (a.mask !== b.mask) return a.mask > b.mask;
  const sa = a.score ?? Number.POSITIVE_INFINITY;
  const sb = b.score ?? Number.POSITIVE_INFINITY;
  if (sa !== sb) return sa < sb;
  return a.row < b.row;
}

export class ActOnList {
  private total = 0;
  private readonly byReason = new Map<ActReason, number>();
  /** The most severe so far, in order; at most `limit`. */
  private readonly kept: ActCandidate[] = [];

  constructor(private readonly limit: number = ACT_ON_LIMIT) {}

  add(c: ActCandidate): void {
    if (this.note(c)) this.keep(c);
  }

  /**
   * Counts a number with these reasons, and says whether it is among the most severe so far: then
   * `keep` it (so a row's candidate is made only when it may be listed).
   */
  note(r: Rank): boolean {
    if (r.mask === 0) return false;
    this.total++;
    for (const reason of ACT_REASONS) if (r.mask & REASON_BIT[reason]) this.byReason.set(reason, (this.byReason.get(reason) ?? 0) + 1);
    if (this.limit === 0) return false;
    const last = this.kept[this.kept.length - 1];
    return this.kept.length < this.limit || last === undefined || before(r, last);
  }

  keep(e: ActCandidate): void {
    const kept = this.kept;
    let lo = 0;
    let hi = kept.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (before(kept[mid] as ActCandidate, e)) lo = mid + 1;
      else hi = mid;
    }
    kept.splice(lo, 0, e);
    if (kept.length > this.limit) kept.pop();
  }

  /** `known`: the reasons the output can tell. */
  finish(known: ReadonlySet<ActReason>): ActOn {
    const columns = idColumns(this.kept);
    const rows: ActOnRow[] = this.kept.map((e) => {
      const inputs = new Map(e.inputs ?? []);
      return {
        row: e.row,
        number: e.number,
        inputs: columns.map((c) => inputs.get(c) ?? ''),
        reasons: ACT_REASONS.filter((r) => e.mask & REASON_BIT[r]),
        ...(e.level === undefined ? {} : { trust_level: e.level }),
        ...(e.score === undefined ? {} : { score: e.score }),
        ...(e.portedDaysAgo === undefined ? {} : { ported_days_ago: e.portedDaysAgo }),
      };
    });
    return {
      total: this.total,
      by_reason: Object.fromEntries(ACT_REASONS.filter((r) => known.has(r)).map((r) => [r, this.byReason.get(r) ?? 0])),
      limit: this.limit,
      columns,
      rows,
      more: this.total - rows.length,
    };
  }
}

/**
 * The input columns that say who the rows are: the first ones that are not the phone number (a
 * column whose every value is the row's number) nor a list input's own `input` column.
 */
function idColumns(kept: readonly ActCandidate[]): string[] {
  const names = kept.find((e) => e.inputs !== undefined)?.inputs?.map(([name]) => name) ?? [];
  const out: string[] = [];
  for (const name of names) {
    if (out.length === ID_COLUMNS) break;
    if (name === 'input' || name === '' || out.includes(name)) continue;
    let phone = false;
    let other = false;
    for (const e of kept) {
      const value = e.inputs?.find(([n]) => n === name)?.[1] ?? '';
      if (value.trim() === '') continue;
      if (/\d{7}/.test(value.replace(/\D/g, '')) && sameNumber(value, e.number)) phone = true;
      else other = true;
    }
    if (phone && !other) continue;
    out.push(name);
  }
  return out;
}
