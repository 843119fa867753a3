// The sandbox's state and the rules REST and GraphQL share: who may call (keys), how often
// (rate windows), how much (quota, billing), which numbers are acceptable, and what was seen.
import { LOOKUPS, type LookupKind, type LookupOptions } from '../core/lookups.js';
import type { RateRefusal } from './bodies.js';
import { sandboxDay, subject } from './data.js';
import { errorBodies, type ErrorBodies } from './error-styles.js';
import { FaultInjector } from './faults.js';
import { seedValue } from './hash.js';
import { KeyRing, bearerKey, type KeyState } from './keys.js';
import { sandboxData } from './lookup-data/index.js';
import { applyPatch, optionProblems, type SandboxOptions } from './options.js';
import { newWindow, peek, rateHeaders, take, type RateVerdict, type RateWindow, type WindowRule } from './rate-window.js';
import { StatsRecorder } from './stats.js';

/** The 11-digit form of an acceptable number, or undefined. */
export function acceptNumber(kind: LookupKind, value: string): string | undefined {
  if (!LOOKUPS[kind].numbers.pattern.test(value)) return undefined;
  return value.length === 10 ? `1${value}` : value;
}

/**
 * Requests reaching an endpoint this soon after a hinted 429 left were on their way already: sent
 * before the client read it (on a loaded machine, a sandbox and a CLI sharing its cores saw such
 * requests arrive 50 ms and more after the 429 left). The client's own trace is the exact check.
 */
const EARLY_GRACE_MS = 100;

export class SandboxEngine {
  options: SandboxOptions;
  readonly keys: KeyRing;
  stats = new StatsRecorder();
  faults: FaultInjector;
  /** The error bodies of the chosen style (options.errorStyle, fixed at start). */
  readonly bodies: ErrorBodies;
  private seed: number;
  /** The sandbox's day (sandboxDay): fixed at start, so a run past midnight keeps its answers. */
  private day: number;
  private jobs = 0;

  constructor(
    options: SandboxOptions,
    readonly now: () => number = Date.now,
  ) {
    this.options = options;
    this.keys = new KeyRing(options.apiKeys);
    this.seed = seedValue(options.seed);
    this.day = sandboxDay(options.today, now());
    this.faults = new FaultInjector(this.seed);
    this.bodies = errorBodies(options.errorStyle);
  }

  /** Applies a patch after checking it; throws a TypeError that lists every problem. */
  configure(patch: Partial<SandboxOptions>): void {
    const problems = optionProblems(patch as Record<string, unknown>);
    if ('host' in patch || 'port' in patch || 'tls' in patch || 'errorStyle' in patch) problems.push('host, port, tls and errorStyle cannot change while the sandbox runs');
    if (problems.length > 0) throw new TypeError(`invalid sandbox options: ${problems.join('; ')}`);
    this.options = applyPatch(this.options, patch);
    if (patch.apiKeys) this.keys.replace(patch.apiKeys);
    if ('today' in patch) this.day = sandboxDay(patch.today ?? undefined, this.now());
    if (patch.seed !== undefined) {
      this.seed = seedValue(patch.seed);
      this.faults = new FaultInjector(this.seed);
    }
  }

  authenticate(header: string | undefined): KeyState | undefined {
    const key = bearerKey(header);
    const state = key === undefined ? undefined : this.keys.find(key);
    if (state) this.stats.key(state.label);
    else this.stats.count('unauthorized');
    return state;
  }

  /**
   * How this lookup's budget is enforced and reported: its own, or the one all lookups share;
   * `bulk`: its bulk endpoint's, counted in requests and never shared with single requests.
   */
  rule(kind: LookupKind, bulk = false): WindowRule {
    const o = this.options;
    // A lookup registered after the options were made has its descriptor's limit.
    const limit = bulk
      ? (o.bulkLimits[kind] ?? LOOKUPS[kind].bulk?.sandboxLimit ?? 0)
      : o.sharedLimit > 0
        ? o.sharedLimit
        : (o.limits[kind] ?? LOOKUPS[kind].sandboxLimit);
    return { limit, windowMs: o.windowMs, burst: o.burst, headers: o.rateHeaders, hideLimit: o.hideLimit };
  }

  private window(kind: LookupKind, key: KeyState, bulk: boolean): RateWindow {
    if (bulk) return (key.bulkWindows[kind] ??= newWindow());
    return this.options.sharedLimit > 0 ? key.shared : (key.windows[kind] ??= newWindow());
  }

  /** Counts a request in the key's window for this lookup (or its bulk endpoint). */
  take(kind: LookupKind, key: KeyState, bulk = false): RateVerdict {
    const now = this.now();
    const w = this.window(kind, key, bulk);
    const v = take(w, this.rule(kind, bulk), now);
    const budget = bulk ? `${kind}-bulk` : this.options.sharedLimit > 0 ? 'shared' : kind;
    if (!v.allowed) this.stats.count('rateLimited');
    else if (v.limit > 0) this.stats.counted(now, w.count, `${budget}:${w.index * this.options.windowMs}`);
    return v;
  }

  /**
   * The rate verdict of one request: counted in the key's window, or refused without counting when
   * the server injects a spurious 429 (a fault, counted as rate-limited like a real refusal).
   */
  admit(kind: LookupKind, key: KeyState, injected429: boolean, endpoint: string = kind, bulk = false): RateVerdict {
    const v = injected429 ? this.injected429(kind, key, bulk) : this.take(kind, key, bulk);
    // The client reads the hint when the answer arrives; it may send nothing to the endpoint before it passes.
    if (!v.allowed && !v.bare) {
      const now = this.now();
      const held = key.holds[endpoint];
      const until = now + v.resetIn * 1000;
      key.holds[endpoint] = held && held.until > now ? { from: held.from, until: Math.max(held.until, until) } : { from: now, until };
    }
    return v;
  }

  private injected429(kind: LookupKind, key: KeyState, bulk: boolean): RateVerdict {
    this.stats.count('rateLimited');
    this.stats.fault('rate429');
    // A gateway's 429: the headers it passes on show the window's real room.
    return { ...this.peek(kind, key, bulk), allowed: false, ...(this.options.rate429Bare ? { bare: true } : {}) };
  }

  /**
   * A request of `key` reached `endpoint`: counted as early when a 429's hint still held the
   * endpoint (past a grace for requests already on their way when that 429 left).
   */
  arrived(endpoint: string, key: KeyState): void {
    const held = key.holds[endpoint];
    if (held === undefined) return;
    const now = this.now();
    if (now >= held.until) delete key.holds[endpoint];
    else if (now >= held.from + EARLY_GRACE_MS) this.stats.early();
  }

  /** What a refused request's 429 says of the budget: a burst cap refuses for its second, a window for its length. */
  refusal(v: RateVerdict, bulk = false): RateRefusal {
    const byBurst = v.burstLimit !== undefined && v.remaining > 0;
    return { retryAfter: v.bare ? undefined : v.resetIn, windowSeconds: byBurst ? 1 : Math.round(this.options.windowMs / 1000), shared: !bulk && this.options.sharedLimit > 0, ...(bulk ? { bulk } : {}) };
  }

  peek(kind: LookupKind, key: KeyState | undefined, bulk = false): RateVerdict {
    return peek(key && this.window(kind, key, bulk), this.rule(kind, bulk), this.now());
  }

  /**
   * The rate headers of an answer no key's window counts (wrong method, no key, server error): the
   * room the request's key still has when it names an accepted one, else a fresh window's.
   */
  uncountedRateHeaders(kind: LookupKind, authorization?: string, bulk = false): string[] {
    const key = bearerKey(authorization);
    return rateHeaders(kind, this.peek(kind, key === undefined ? undefined : this.keys.find(key), bulk), false);
  }

  /** Whether the key's quota covers `count` more billed lookups (a bulk request reserves its numbers first); counts a refusal. */
  covers(key: KeyState, count: number): boolean {
    const quota = this.options.quota;
    if (quota === undefined || key.billed + count <= quota) return true;
    this.stats.count('paymentRequired');
    return false;
  }

  /** Bills one lookup, or returns false when the key's quota is used up. */
  bill(kind: LookupKind, key: KeyState, number11: string): boolean {
    if (!this.covers(key, 1)) return false;
    key.billed++;
    this.stats.bill(kind, number11);
    return true;
  }

  /**
   * Bills one number a bulk request answers, its quota reserved (covers); `cached` when this lookup
   * of the number was billed before, as the service answers from its cache.
   */
  billBulk(kind: LookupKind, key: KeyState, number11: string): 'success' | 'cached' {
    key.billed++;
    return this.stats.bill(kind, number11, true) ? 'cached' : 'success';
  }

  /** The result object (REST field names, no envelope) of an accepted number. */
  result(kind: LookupKind, number11: string, opts: LookupOptions): Record<string, unknown> {
    const data = sandboxData(kind);
    const result = data.result(subject(number11, this.seed, this.day), opts);
    return this.options.errorStyle === 'vri' && data.realService ? data.realService(result) : result;
  }

  /** A new bulk request's job id. */
  jobId(kind: LookupKind): string {
    return `job_${kind}_${(++this.jobs).toString().padStart(8, '0')}`;
  }

  resetStats(): void {
    this.stats = new StatsRecorder();
    this.keys.resetUsage();
  }
}
