// The pacer: when each lookup kind's next request may go, for one API key at one service. It fills
// every window the service enforces (window-model.ts) once the answers report their budget, and
// falls back to a token bucket (rate-limiter.ts) while they say nothing. One object per key and
// service, made by whoever owns the connection and handed to the runner (RunDeps.pacer), so
// several runs of one process can share it; `pacerFor` makes one from a run's rates.
//
// The user's --rate is a hard ceiling (a bucket in front of everything); without it the pace
// rises to whatever limit the service advertises. Kinds whose answers show they spend one budget
// (a CNAM request lowers LRN's remaining) are merged onto one budget.
//
// A 429 is read with its headers: one that shows room left in the window (a gateway's, a fault)
// costs only its own retry; one that shows the window spent stops the kind until the window
// ends (the accounting already has room ≤ 0); one with no headers at all, from a service that never
// sent any, halves the bucket's pace (additive increase, multiplicative decrease; the climb back
// stops just under the pace refused, rate-limiter.ts).
import type { LookupKind } from '../../core/lookups.js';
import type { RateInfo } from '../../core/transport.js';
import { RateLimiter } from './rate-limiter.js';
import type { Random } from './retry.js';
import { WindowBudget, type Ticket } from './window-model.js';

/** What the runner hands back with each request; opaque to it. */
export interface PaceTicket {
  readonly kind: LookupKind;
  readonly budget: WindowBudget;
  readonly window: Ticket;
}

export interface Pacing {
  /** A ticket when a request of `kind` may go now (it is counted); else the ms to wait first. */
  take(kind: LookupKind, now: number): PaceTicket | number;
  /** The answer to a request: its rate info, and whether it was a 429 (with the service's hint). */
  settle(ticket: PaceTicket, answer: PaceAnswer, now: number): void;
}

export interface PaceAnswer {
  readonly rate: RateInfo | undefined;
  readonly rateLimited: boolean;
  readonly ok: boolean;
  readonly waitMs?: number | undefined;
}

export interface PacerOptions {
  /** Each kind's start pace, requests/s, while the service has said nothing (its documented limit). */
  readonly defaults: Partial<Record<LookupKind, number>>;
  /** The user's --rate per kind: a hard ceiling, requests/s; 0 = no client-side limit. */
  readonly ceilings?: Partial<Record<LookupKind, number>>;
  readonly now: number;
  readonly random?: Random;
}

interface Lane {
  /** The budget this kind spends (merged lanes point at the same one). */
  budget: WindowBudget;
  /** The pace while the service reports no budget: the ceiling, else the default. */
  readonly bucket: RateLimiter;
  /** The user's --rate, checked even once the window rules. */
  readonly ceiling: RateLimiter | undefined;
  /** A 429 that showed the window spent (or said nothing of it): nothing of this kind before its hint. */
  holdUntil: number;
}

/** Kinds are merged when one's answers show a drop in room this large a share of another's sends. */
const SHARED_EVIDENCE = 0.5;

export class Pacer implements Pacing {
  private readonly lanes = new Map<LookupKind, Lane>();

  constructor(private readonly options: PacerOptions) {}

  private lane(kind: LookupKind, now: number): Lane {
    let lane = this.lanes.get(kind);
    if (lane) return lane;
    const ceiling = this.options.ceilings?.[kind];
    const start = ceiling ?? this.options.defaults[kind] ?? 0;
    const random = this.options.random ?? Math.random;
    lane = {
      // The documented pace caps a window not yet confirmed; --rate (0 = none) is no such pace.
      budget: new WindowBudget(this.options.defaults[kind] ?? start),
      bucket: new RateLimiter(start, now, random),
      ceiling: ceiling === undefined || ceiling === 0 ? undefined : new RateLimiter(ceiling, now, random),
      holdUntil: 0,
    };
    this.lanes.set(kind, lane);
    return lane;
  }

  take(kind: LookupKind, now: number): PaceTicket | number {
    const lane = this.lane(kind, now);
    const budget = lane.budget;
    if (now < lane.holdUntil) return lane.holdUntil - now;
    if (budget.known) {
      const wait = budget.wait(now);
      if (wait > 0) return wait;
      if (lane.ceiling) {
        const c = lane.ceiling.take(now);
        if (c > 0) return c;
      }
    } else {
      // The ceiling counts these requests too: once the service's budget is known it paces alone,
      // and a fresh token of its own would let one more through in the first second.
      const c = lane.ceiling?.ready(now) ?? 0;
      if (c > 0) return c;
      const wait = lane.bucket.take(now);
      if (wait > 0) return wait;
      lane.ceiling?.take(now);
    }
    return { kind, budget, window: budget.send(now) };
  }

  settle(ticket: PaceTicket, answer: PaceAnswer, now: number): void {
    const lane = this.lane(ticket.kind, now);
    ticket.budget.target().answered(ticket.window, answer.rate, now, answer.rateLimited);
    const budget = lane.budget;
    if (budget.known && budget.foreign > 0) this.findSharing(lane);
    if (!budget.known) {
      // The service says nothing of its windows: the bucket is all there is.
      lane.bucket.observe(answer.rate, now);
      if (answer.rateLimited) lane.bucket.rateLimited(answer.waitMs, now);
      else if (answer.ok) lane.bucket.succeeded(now);
      return;
    }
    // Room left in the window: a gateway's 429, not the budget's; only its own retry waits.
    const spent = answer.rate?.remaining === undefined || answer.rate.remaining <= 0;
    if (answer.rateLimited && spent && answer.waitMs !== undefined) {
      // Every lane on this budget waits as long as the service asked (Retry-After is a floor).
      for (const l of this.lanes.values()) if (l.budget === budget) l.holdUntil = Math.max(l.holdUntil, now + answer.waitMs);
    }
  }

  /**
   * Merges lanes that spend one budget: each one's room fell by about what the other sent in the
   * same window (a CNAM request lowered LRN's remaining, and an LRN request CNAM's).
   */
  private findSharing(lane: Lane): void {
    const a = lane.budget;
    for (const other of this.lanes.values()) {
      const b = other.budget;
      if (b === a || !b.known || b.limit() !== a.limit()) continue;
      if (b.sentHere < 4 || a.sentHere < 4) continue;
      if (a.foreign < SHARED_EVIDENCE * b.sentHere || b.foreign < SHARED_EVIDENCE * a.sentHere) continue;
      a.absorb(b);
      for (const l of this.lanes.values()) if (l.budget === b) l.budget = a;
    }
  }
}

/** A pacer for one run's lookups: `rates` are the user's ceilings (--rate), defaults the documented limits. */
export function pacerFor(
  kinds: readonly { readonly kind: LookupKind; readonly defaultRate: number }[],
  rates: Partial<Record<LookupKind, number>> | undefined,
  now: number,
  random?: Random,
): Pacer {
  const defaults: Partial<Record<LookupKind, number>> = {};
  for (const d of kinds) defaults[d.kind] = d.defaultRate;
  return new Pacer({ defaults, ...(rates ? { ceilings: rates } : {}), now, ...(random ? { random } : {}) });
}
