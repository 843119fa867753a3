// Fakes for the runner's world: a scripted transport that records every call, on virtual time
// (test/support/clock.ts).
import type { Clock } from '../../src/core/clock.js';
import { FakeClock } from '../support/clock.js';
import { LRN, type LookupDescriptor, type LookupKind, type LookupOptions } from '../../src/core/lookups.js';
import type { LookupError, LookupErrorCode, OutputRecord, Result } from '../../src/core/records.js';
import { newRunStats, type BatchedItems, type RunStats, type SourceItem } from '../../src/core/run.js';
import { runPipeline, type RunDeps, type RunOutcome, type RunPlan } from '../../src/pipeline/runner.js';
import { newRunDedup } from '../../src/pipeline/dedup/run-dedup.js';
import type { Attempt, RateInfo, Transport } from '../../src/core/transport.js';
import { prng } from '../../src/core/prng.js';

export interface Call {
  readonly kind: LookupKind;
  readonly number: string;
  readonly opts: LookupOptions;
  /** Virtual time the request was sent. */
  readonly at: number;
  /** Position in the transport's event log. */
  readonly seq: number;
}

export type Scripted = Attempt | ((call: Call) => Attempt);

export interface FakeTransportOptions {
  /** Per `kind:number` or per number: the answers of successive calls; the last one repeats. */
  readonly script?: Record<string, Scripted[]>;
  /** Virtual latency of a call, ms (0 = answers on the next microtask). */
  readonly latency?: (call: Call) => number;
}

/** Answers by script; records every call and every answer with its virtual time. */
export class FakeTransport implements Transport {
  readonly name = 'rest' as const;
  readonly calls: Call[] = [];
  /** Sends and answers interleaved, in the order they happened. */
  readonly log: { type: 'send' | 'answer'; kind: LookupKind; number: string; at: number; attempt?: Attempt['kind'] }[] = [];
  private readonly used = new Map<string, number>();
  inFlight = 0;
  maxInFlight = 0;

  constructor(
    private readonly clock: Clock,
    private readonly options: FakeTransportOptions = {},
  ) {}

  async send(d: LookupDescriptor, number: string, opts: LookupOptions, signal?: AbortSignal): Promise<Attempt> {
    const call: Call = { kind: d.kind, number, opts, at: this.clock.now(), seq: this.log.length };
    this.calls.push(call);
    this.log.push({ type: 'send', kind: d.kind, number, at: call.at });
    this.inFlight += 1;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    try {
      const latency = this.options.latency?.(call) ?? 0;
      if (latency > 0) await this.clock.sleep(latency, signal);
      const attempt = this.answerFor(call);
      this.log.push({ type: 'answer', kind: d.kind, number, at: this.clock.now(), attempt: attempt.kind });
      return attempt;
    } finally {
      this.inFlight -= 1;
    }
  }

  async close(): Promise<void> {}

  callsOf(number: string, kind?: LookupKind): Call[] {
    return this.calls.filter((c) => c.number === number && (kind === undefined || c.kind === kind));
  }

  private answerFor(call: Call): Attempt {
    const key = this.options.script?.[`${call.kind}:${call.number}`] ? `${call.kind}:${call.number}` : call.number;
    const script = this.options.script?.[key];
    if (!script || script.length === 0) return ok({ kind: call.kind, number: call.number });
    const n = this.used.get(key) ?? 0;
    this.used.set(key, n + 1);
    const entry = script[Math.min(n, script.length - 1)] as Scripted;
    return typeof entry === 'function' ? entry(call) : entry;
  }
}

export const ok = (result: Result, rate?: RateInfo): Attempt => (rate ? { kind: 'ok', result, rate } : { kind: 'ok', result });
const err = (code: LookupErrorCode, message: string, status?: number): LookupError =>
  status === undefined ? { code, message } : { code, message, status };
export const serverError = (status = 503): Attempt => ({ kind: 'retry', rateLimited: false, error: err('server_error', `HTTP ${status}`, status) });
export const tooMany = (waitMs?: number, rate?: RateInfo): Attempt => ({
  kind: 'retry',
  rateLimited: true,
  error: err('rate_limited', 'rate limit exceeded', 429),
  ...(waitMs === undefined ? {} : { waitMs }),
  ...(rate ? { rate } : {}),
});
export const refused = (status = 401): Attempt => ({ kind: 'fatal', error: err(status === 402 ? 'payment_required' : 'unauthorized', `HTTP ${status}`, status) });
export const invalid = (message = 'invalid phone number'): Attempt => ({ kind: 'invalid', error: err('invalid_number', message, 400) });
export const httpError = (status = 404): Attempt => ({ kind: 'error', error: err('http_error', `HTTP ${status}`, status) });

/** A source over `inputs` that counts how many items were pulled. */
export function source(inputs: readonly string[], rows?: (i: number) => Record<string, string>): AsyncIterable<SourceItem> & { pulled: number } {
  const src = {
    pulled: 0,
    async *[Symbol.asyncIterator](): AsyncGenerator<SourceItem> {
      for (let index = 0; index < inputs.length; index++) {
        src.pulled += 1;
        const input = inputs[index] as string;
        yield rows ? { index, input, row: rows(index) } : { index, input };
      }
    },
  };
  return src;
}

/**
 * The same, also readable in batches of `size` (as a CSV source is); `pulled` counts items either
 * way, `batchesRead` the batches.
 */
export function batchedSource(inputs: readonly string[], size: number): BatchedItems & { pulled: number; batchesRead: number } {
  const items = (from: number, to: number): SourceItem[] => inputs.slice(from, to).map((input, i) => ({ index: from + i, input }));
  const src = {
    pulled: 0,
    batchesRead: 0,
    async *[Symbol.asyncIterator](): AsyncGenerator<SourceItem> {
      for (let index = 0; index < inputs.length; index++) {
        src.pulled += 1;
        yield { index, input: inputs[index] as string };
      }
    },
    async *batches(): AsyncGenerator<SourceItem[]> {
      for (let from = 0; from < inputs.length; from += size) {
        const batch = items(from, from + size);
        src.pulled += batch.length;
        src.batchesRead += 1;
        yield batch;
      }
    },
  };
  return src;
}

export interface Harness {
  readonly clock: FakeClock;
  readonly transport: FakeTransport;
  readonly stats: RunStats;
}

/** A world of fakes; `transport` options script the service. */
export function harness(options: FakeTransportOptions & { auto?: boolean } = {}): Harness {
  const clock = new FakeClock(undefined, options.auto ?? true);
  return { clock, transport: new FakeTransport(clock, options), stats: newRunStats(clock.now()) };
}

/** Runs the pipeline over `inputs` to the end and returns what it wrote. */
export async function runAll(
  h: Harness,
  items: AsyncIterable<SourceItem> | readonly string[],
  plan: Partial<RunPlan> = {},
  deps: Partial<RunDeps> = {},
): Promise<{ records: OutputRecord[]; outcome: RunOutcome }> {
  const handle = runPipeline(
    Array.isArray(items) ? source(items) : (items as AsyncIterable<SourceItem>),
    { mode: 'single', lookups: [LRN], options: {}, validate: true, ...plan },
    { transport: h.transport, clock: h.clock, stats: h.stats, random: prng(1), dedup: newRunDedup, ...deps },
  );
  const records: OutputRecord[] = [];
  for await (const r of handle.records) records.push(r);
  return { records, outcome: handle.outcome() };
}
