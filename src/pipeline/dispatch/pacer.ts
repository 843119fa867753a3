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
// A 429 with a hint (Retry-After, retry_after, the reset of a spent window) holds its whole
// endpoint for the key until the hint's time: no request of any kind sent there goes out before
// it, since the service refuses them again and may throttle the key harder. Only a hint-less 429
// whose headers show room left in the window (a gateway's) costs just its own number a backoff; a
// hint-less one that shows no room holds the endpoint for a backoff. From a service that never
// sent rate headers, a 429 also halves the bucket's pace (additive increase, multiplicative
// decrease; the climb back stops just under the pace refused, rate-limiter.ts).
import type { LookupKind } from '../../core/lookups.js';

/**
 * What the pacer paces: a lookup kind's single requests (`lrn`), or its bulk requests
 * (`lrn:bulk`, see laneOf), each with its own limit.
 */
export type Lane = LookupKind | `${LookupKind}:bulk`;

/** The lane of a kind's requests: its bulk endpoint's when they carry several numbers. */
export const laneOf = (kind: LookupKind, batched: boolean): Lane => (batched ? `${kind}:bulk` : kind);
import type { RateInfo } from '../../core/transport.js';
import { RateLimiter } from './rate-limiter.js';
import { backoffMs, type Random } from './retry.js';
import { WindowBudget, type Ticket } from './window-model.js';

/** What the runner hands back with each request; opaque to it. */
export interface PaceTicket {
  readonly kind: Lane;
  readonly budget: WindowBudget;
  readonly window: Ticket;
}

export interface Pacing {
  /** A ticket when a request of `kind` may go now (it is counted); else the ms to wait first. */
  take(kind: Lane, now: number): PaceTicket | number;
  /** The answer to a request: its rate info, and whether it was a 429 (with the service's hint). */
  settle(ticket: PaceTicket, answer: PaceAnswer, now: number): void;
}

export interface PaceAnswer {
  readonly rate: RateInfo | undefined;
  readonly rateLimited: boolean;
  readonly ok: boolean;
  /** The service's hint, ms from now (see waitHintMs): set only when it gave one. */
  readonly waitMs?: number | undefined;
}

export interface PacerOptions {
  /** Each kind's start pace, requests/s, while the service has said nothing (its documented limit). */
  readonly defaults: Partial<Record<Lane, number>>;
  /** The user's --rate per kind: a hard ceiling, requests/s; 0 = no client-side limit. */
  readonly ceilings?: Partial<Record<Lane, number>>;
  readonly now: number;
  readonly random?: Random;
  /**
   * The endpoint each kind's requests go to: kinds on one endpoint (GraphQL's) are held together by
   * a 429's hint. Default: each kind its own.
   */
  readonly endpointOf?: (kind: Lane) => string;
}

interface LaneState {
  /** The budget this kind spends (merged lanes point at the same one). */
  budget: WindowBudget;
  /** The pace while the service reports no budget: the ceiling, else the default. */
  readonly bucket: RateLimiter;
  /** The user's --rate, checked even once the window rules. */
  readonly ceiling: RateLimiter | undefined;
  readonly endpoint: string;
  /** A 429's hint on this lane's budget: nothing of this kind before this time. */
  holdUntil: number;
  /** Hint-less 429s in a row that showed no room: the endpoint's backoff grows with them. */
  refusals: number;
}

/** Kinds are merged when one's answers show a drop in room this large a share of another's sends. */
const SHARED_EVIDENCE = 0.5;

export class Pacer implements Pacing {
  private readonly lanes = new Map<Lane, LaneState>();
  /** Per endpoint: a 429's hint holds it until this time, also for kinds not yet sent. */
  private readonly holds = new Map<string, number>();

  constructor(private readonly options: PacerOptions) {}

  private lane(kind: Lane, now: number): LaneState {
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
      endpoint: this.options.endpointOf?.(kind) ?? kind,
      holdUntil: 0,
      refusals: 0,
    };
    this.lanes.set(kind, lane);
    return lane;
  }

  take(kind: Lane, now: number): PaceTicket | number {
    const lane = this.lane(kind, now);
    const budget = lane.budget;
    const held = Math.max(lane.holdUntil, this.holds.get(lane.endpoint) ?? 0);
    if (now < held) return held - now;
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
    if (answer.rateLimited) this.refused(lane, answer, now);
    else if (answer.ok) lane.refusals = 0;
    if (!budget.known) {
      // The service says nothing of its windows: the bucket is all there is.
      lane.bucket.observe(answer.rate, now);
      if (answer.rateLimited) lane.bucket.rateLimited(answer.waitMs, now);
      else if (answer.ok) lane.bucket.succeeded(now);
    }
  }

  /** A 429: how long it holds the endpoint (see the top of this file). */
  private refused(lane: LaneState, answer: PaceAnswer, now: number): void {
    if (answer.waitMs !== undefined) {
      this.hold(lane, now + answer.waitMs);
      return;
    }
    const roomLeft = answer.rate?.remaining !== undefined && answer.rate.remaining > 0;
    if (roomLeft) return;
    lane.refusals += 1;
    this.hold(lane, now + backoffMs(lane.refusals, this.options.random ?? Math.random));
  }

  /** Every kind on this lane's endpoint or budget waits until `until` (never shortened). */
  private hold(lane: LaneState, until: number): void {
    if ((this.holds.get(lane.endpoint) ?? 0) < until) this.holds.set(lane.endpoint, until);
    for (const l of this.lanes.values()) if (l.budget === lane.budget && l.holdUntil < until) l.holdUntil = until;
  }

  /**
   * Merges lanes that spend one budget: each one's room fell by about what the other sent in the
   * same window (a CNAM request lowered LRN's remaining, and an LRN request CNAM's).
   */
  private findSharing(lane: LaneState): void {
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

/**
 * A pacer for one run's lookups: `rates` are the user's ceilings (--rate), defaults the documented
 * limits; with GraphQL every kind goes to one endpoint.
 */
export function pacerFor(
  kinds: readonly { readonly kind: LookupKind; readonly defaultRate: number; readonly bulk?: { readonly defaultRate: number } | undefined }[],
  rates: Partial<Record<LookupKind, number>> | undefined,
  now: number,
  random?: Random,
  transport: 'rest' | 'graphql' | 'bulk' = 'rest',
): Pacer {
  const defaults: Partial<Record<Lane, number>> = {};
  const ceilings: Partial<Record<Lane, number>> = {};
  for (const d of kinds) {
    defaults[d.kind] = d.defaultRate;
    const rate = rates?.[d.kind];
    if (rate !== undefined) ceilings[d.kind] = rate;
    if (!d.bulk) continue;
    // A bulk endpoint's limit counts requests, whatever the numbers each carries; so does --rate.
    defaults[laneOf(d.kind, true)] = d.bulk.defaultRate;
    if (rate !== undefined) ceilings[laneOf(d.kind, true)] = rate;
  }
  return new Pacer({ defaults, ...(rates ? { ceilings } : {}), now, ...(random ? { random } : {}), ...(transport === 'graphql' ? { endpointOf: () => 'graphql' } : {}) });
}
