// The spend cap: never more requests leave than `--max-lookups`, nor more than `--max-spend`
// would pay for at the known prices. Every request counts, first tries and retries alike (a
// client cannot tell which ones the service bills); one that never left (no connection) is given
// back. Shared by every run of a process, so a library client's calls draw on one budget.
//
// Enrich reserves a row's first tries together (reserve) when the row is admitted: a row either
// has all its billable lookups paid for or sends none, so a capped run stops between whole rows and
// pays for nothing a resume pays again. A retry takes one request (take) from what no row has
// reserved: retries still count, and can take the last requests, but never one a row holds; a
// retry the cap refuses stops the run there, and that row (and any finished after it, which the
// output cannot write before it) is looked up again on resume. Single lookups take one request
// as each one leaves, as before: a row is one request.
import type { LookupKind } from '../../core/lookups.js';

export interface SpendCapLimits {
  /** Requests at most. */
  readonly maxLookups?: number;
  /** Money at most, at `prices` per request. */
  readonly maxSpend?: number;
  /** Price of one request per lookup kind; every kind a run sends needs one when maxSpend is set. */
  readonly prices?: Partial<Record<LookupKind, number>>;
}

export class SpendCap {
  private requests = 0;
  private spent = 0;

  constructor(private readonly limits: SpendCapLimits) {}

  /** Takes one request of `kind` from the budget; false (and nothing taken) when it would go over. */
  take(kind: LookupKind): boolean {
    return this.reserve([kind]);
  }

  /**
   * Takes one request of each kind together (a row's first tries), or none when they would not
   * all fit. A reserved request that never leaves is given back.
   */
  reserve(kinds: readonly LookupKind[]): boolean {
    let price = 0;
    for (const kind of kinds) price += this.limits.prices?.[kind] ?? 0;
    if (this.limits.maxLookups !== undefined && this.requests + kinds.length > this.limits.maxLookups) return false;
    // A hair of tolerance: 0.1 + 0.2 must fit a cap of 0.3.
    if (this.limits.maxSpend !== undefined && this.spent + price > this.limits.maxSpend + 1e-9) return false;
    this.requests += kinds.length;
    this.spent += price;
    return true;
  }

  /** A request taken or reserved that never left. */
  giveBack(kind: LookupKind): void {
    this.requests -= 1;
    this.spent -= this.limits.prices?.[kind] ?? 0;
  }

  /** What the cap was, for the message of a run it stopped. */
  describe(): string {
    const parts: string[] = [];
    if (this.limits.maxLookups !== undefined) parts.push(`--max-lookups ${this.limits.maxLookups}`);
    if (this.limits.maxSpend !== undefined) parts.push(`--max-spend ${this.limits.maxSpend}`);
    return parts.join(' and ');
  }
}
