// A model of a service that enforces a rate limit, for the pacer's tests on virtual time: fixed
// windows of any length and phase, one budget per kind or one shared by all, a cap on bursts
// within the window, a reset reported as a delta or a Unix time (whole seconds) or in the IETF
// fields, the limit shown or hidden, spurious 429s that report the window's real state. It
// records every window's count, so a test can assert that none was ever overrun.
import type { Clock } from '../../src/core/clock.js';
import type { LookupDescriptor, LookupKind } from '../../src/core/lookups.js';
import type { Attempt, RateInfo, Transport } from '../../src/core/transport.js';
import { ok, tooMany, type Call } from './fakes.js';

export interface ServiceShape {
  /** Requests per window. */
  readonly limit: number;
  readonly windowMs: number;
  /** Windows start at phaseMs + k·windowMs. */
  readonly phaseMs?: number;
  /** 'first': a window starts at the first request after the last one ended, not on the clock. */
  readonly anchor?: 'clock' | 'first';
  /** How the reset is reported; 'none' = no reset at all, 'silent' = no rate fields at all. */
  readonly reset: 'delta' | 'timestamp' | 'ietf' | 'none' | 'silent';
  readonly hideLimit?: boolean;
  /** At most burst × limit/window-seconds in any wall-clock second. */
  readonly burst?: number;
  /** One budget for every kind. */
  readonly shared?: boolean;
  /** Probability of a 429 that is not the window's (its headers show the real room). */
  readonly spurious?: number;
  /** A spurious 429 says "retry after 1 s" (a hint that holds the endpoint) rather than nothing. */
  readonly spuriousHint?: boolean;
  readonly random?: () => number;
}

interface Count {
  index: number;
  count: number;
}

export class FakeService {
  private readonly windows = new Map<string, Count>();
  private readonly seconds = new Map<string, Count>();
  private readonly anchored = new Map<string, { index: number; end: number }>();
  /** The most requests counted in any one window of any budget. */
  maxInWindow = 0;
  served = 0;
  limited = 0;
  spurious = 0;
  /**
   * Requests sent after a 429 of their budget reached the client that arrived before the time its
   * hint gave (those in flight when it came back could not know of it).
   */
  early = 0;
  private readonly holds = new Map<string, { from: number; until: number }[]>();
  /** Answered (not 429) requests, with the server time they were counted at. */
  readonly counted: number[] = [];

  constructor(private readonly shape: ServiceShape) {}

  /** The answer to `call`, counted at server time `at` (the request's arrival). */
  answer(call: Call, at: number, now: number): Attempt {
    const s = this.shape;
    this.served += 1;
    const budget: LookupKind | 'all' = s.shared ? 'all' : call.kind;
    const { index, end } = s.anchor === 'first' ? this.anchor(budget, at) : this.clockWindow(at);
    const w = bump(this.windows, budget, index);
    const rate = (count: number): RateInfo | undefined => this.info(Math.max(0, s.limit - count), end, now);
    if (this.holds.get(budget)?.some((h) => call.at > h.from && at < h.until)) this.early += 1;
    if (s.spurious && (s.random ?? Math.random)() < s.spurious) {
      this.limited += 1;
      this.spurious += 1;
      if (!s.spuriousHint) return tooMany(undefined, rate(w.count));
      this.hold(budget, now, now + 1000);
      return tooMany(1000, rate(w.count));
    }
    const over = w.count >= s.limit;
    let burstOver = false;
    if (s.burst !== undefined) {
      const sec = bump(this.seconds, budget, Math.floor(at / 1000));
      const cap = Math.floor((s.burst * s.limit * 1000) / s.windowMs);
      burstOver = sec.count >= cap;
      if (!over && !burstOver) sec.count += 1;
    }
    if (over || burstOver) {
      this.limited += 1;
      const until = over ? end : (Math.floor(at / 1000) + 1) * 1000;
      const wait = Math.max(1, until - now);
      this.hold(budget, now, now + wait);
      return tooMany(wait, rate(w.count));
    }
    w.count += 1;
    this.maxInWindow = Math.max(this.maxInWindow, w.count);
    this.counted.push(at);
    return ok({ n: this.counted.length }, rate(w.count));
  }

  /** A 429 that reached the client at `from` told it to wait until `until`. */
  private hold(budget: string, from: number, until: number): void {
    const holds = (this.holds.get(budget) ?? []).filter((h) => h.until > from);
    holds.push({ from, until });
    this.holds.set(budget, holds);
  }

  private clockWindow(at: number): { index: number; end: number } {
    const phase = this.shape.phaseMs ?? 0;
    const index = Math.floor((at - phase) / this.shape.windowMs);
    return { index, end: phase + (index + 1) * this.shape.windowMs };
  }

  private anchor(budget: string, at: number): { index: number; end: number } {
    let a = this.anchored.get(budget);
    if (!a || at >= a.end) this.anchored.set(budget, (a = { index: (a?.index ?? 0) + 1, end: at + this.shape.windowMs }));
    return a;
  }

  private info(remaining: number, end: number, now: number): RateInfo | undefined {
    const s = this.shape;
    const limit = s.hideLimit ? {} : { limit: s.limit };
    const delta = Math.max(1, Math.ceil((end - now) / 1000));
    switch (s.reset) {
      case 'silent':
        return undefined;
      case 'none':
        return { ...limit, remaining };
      case 'delta':
        return { ...limit, remaining, resetAt: now + delta * 1000 };
      case 'timestamp':
        return { ...limit, remaining, resetAt: Math.ceil(end / 1000) * 1000 };
      case 'ietf':
        return { ...limit, remaining, resetAt: now + delta * 1000, windowMs: s.windowMs };
    }
  }

  /** Answered requests per ms of the service's time between the first and the last, as a share of the limit. */
  fraction(): number {
    const first = this.counted[0] ?? 0;
    const last = this.counted[this.counted.length - 1] ?? 0;
    // n requests span n-1 gaps: the rate is (n-1) over the span.
    const perMs = (this.counted.length - 1) / Math.max(1, last - first);
    return (perMs * this.shape.windowMs) / this.shape.limit;
  }

  share429(): number {
    return this.limited / Math.max(1, this.served);
  }
}

function bump(map: Map<string, Count>, budget: string, index: number): Count {
  let c = map.get(budget);
  if (!c) map.set(budget, (c = { index, count: 0 }));
  if (c.index !== index) {
    c.index = index;
    c.count = 0;
  }
  return c;
}

/** Each way's delay, ms: `way` out to the service or back, for the `n`th request (from 0), sent or arrived at `now`. */
export type OneWayMs = number | ((way: 'out' | 'back', n: number, now: number) => number);

/**
 * A client's connection to the service: `oneWayMs` each way, so the server counts a request in
 * between; a function gives each way its own delay (a loaded machine's jitter, a stalled service).
 */
export class ServiceTransport implements Transport {
  readonly name = 'rest' as const;
  /** Send times, per kind. */
  readonly sends: { kind: LookupKind; at: number }[] = [];

  constructor(
    private readonly clock: Clock,
    private readonly service: FakeService,
    private readonly oneWayMs: OneWayMs = 1,
  ) {}

  private delay(way: 'out' | 'back', n: number): number {
    return typeof this.oneWayMs === 'number' ? this.oneWayMs : this.oneWayMs(way, n, this.clock.now());
  }

  async send(d: LookupDescriptor, number: string, _opts: object, signal?: AbortSignal): Promise<Attempt> {
    const sent = this.clock.now();
    const n = this.sends.length;
    this.sends.push({ kind: d.kind, at: sent });
    await this.clock.sleep(this.delay('out', n), signal);
    const at = this.clock.now();
    await this.clock.sleep(this.delay('back', n), signal);
    return this.service.answer({ kind: d.kind, number, opts: {}, at: sent, seq: 0 }, at, this.clock.now());
  }

  async close(): Promise<void> {}
}
