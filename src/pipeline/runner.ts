// The one flow: numbers in input order → validation → dedup → rate-aware queue → retries →
// reorder → records in input order. `numintel lrn 12015550123` and a million-row file both come
// through here; only the source and the sink differ.
import { runAbortController } from '../core/abort.js';
import type { Clock } from '../core/clock.js';
import { optionsFor, type LookupDescriptor, type LookupKind, type LookupOptions } from '../core/lookups.js';
import { parseNumber, type ParseOptions } from '../core/numbers.js';
import type { LookupError, OutputRecord } from '../core/records.js';
import { hasBatches, type RunStats, type SourceItem } from '../core/run.js';
import type { SetupFailure, Transport } from '../core/transport.js';
import { CircuitBreaker } from './dispatch/breaker.js';
import { checkCount } from './check-count.js';
import { Dispatcher, type RetryInfo, type Task } from './dispatch/dispatcher.js';
import { ConcurrencyGate } from './dispatch/gate.js';
import { cacheKey, NO_STORE, type AnswerSlot, type AnswerStore, type CacheKey, type Finished, type NewRunDedup, type RunDedup } from '../store/answer-store.js';
import type { SpendCap } from './dispatch/spend-cap.js';
import { pacerFor, type Pacing } from './dispatch/pacer.js';
import type { WrittenAnswers } from './order/resume-answers.js';
import { buildRecord, newRow, type RowState, type RunMode } from './order/records-build.js';
import { Notifier, queueAhead, ReorderWindow, windowSize } from './order/reorder.js';
import { DEFAULT_MAX_WAIT_MS, type Random } from './dispatch/retry.js';

export type { RetryInfo } from './dispatch/dispatcher.js';

export interface RunPlan {
  readonly mode: RunMode;
  /** One lookup for `single`; one or more (distinct kinds) for `enrich`. */
  readonly lookups: readonly LookupDescriptor[];
  readonly options: LookupOptions;
  /** false = --no-validate. */
  readonly validate: boolean;
}

/** `inFlight`: requests still out when the run stopped, which it waits for (up to `drainMs`). */
export type RunEvent =
  | { readonly type: 'stopped'; readonly reason: StopReason; readonly error?: LookupError; readonly inFlight: number }
  /** The service has no bulk endpoint for this lookup: its numbers go one a request from now on. */
  | { readonly type: 'unbatched'; readonly lookup: LookupDescriptor['kind']; readonly message: string };

export interface RunDeps {
  readonly transport: Transport;
  readonly clock: Clock;
  /** Kept current while the run goes, for the progress bar and the summary. */
  readonly stats: RunStats;
  /** Requests in flight across all kinds. Default 16. Ignored when `gate` is given. */
  readonly concurrency?: number;
  /**
   * The concurrency limit of the client this run belongs to, shared by all its runs; else the run
   * makes its own of `concurrency`.
   */
  readonly gate?: ConcurrencyGate;
  /**
   * The user's requests/s per kind (--rate), a hard ceiling; 0 = no client-side limit. Without it
   * each kind starts at its documented limit and follows what the service's headers say.
   */
  readonly rates?: Partial<Record<LookupKind, number>>;
  /**
   * The pacer of this key at this service, when its owner keeps it across runs; else the run
   * makes its own from `rates`.
   */
  readonly pacer?: Pacing;
  /** Retries of one lookup after a transient failure. Default 5. */
  readonly retries?: number;
  /** Consecutive rows failed after retries that stop the run. Default 20; 0 = off. */
  readonly breakerThreshold?: number;
  /**
   * Answers kept across runs (the persistent cache): a fresh one is used instead of a request,
   * taking no rate token and no concurrency slot; every answer the service gives is put there.
   * Default: none.
   */
  readonly answers?: AnswerStore;
  /**
   * Makes this run's memory of its own lookups (asked before `answers`): duplicates join the
   * lookup in flight or take its answer, and never pay twice within the run.
   */
  readonly dedup: NewRunDedup;
  /**
   * --resume: the answers the output file already holds, given to the dedup before the first row
   * is read, so that a number recurring after the resume point is a duplicate, as in one
   * uninterrupted run, not a second request. In batches (a chunk of the file each).
   */
  readonly earlier?: AsyncIterable<readonly WrittenAnswers[]>;
  /** --max-lookups / --max-spend: reaching it stops the run (reason `cap`), resumably. */
  readonly cap?: SpendCap;
  /** The longest server wait hint obeyed, ms; a longer one stops the run (`wait`). Default 300000. */
  readonly maxWaitMs?: number;
  /** Interrupt (Ctrl-C): stop dispatching, finish what is in flight, write the finished prefix. */
  readonly signal?: AbortSignal;
  /**
   * A second interrupt: abandon the requests in flight now. The rows already finished still come
   * out, in order, before `records` ends.
   */
  readonly quit?: AbortSignal;
  /**
   * The consumer can use no more records (its reader left: stdout closed): stop dispatching now, and
   * let the requests in flight finish within `closedDrainMs`, so the answers already paid for reach
   * `answers`. `records` goes on yielding the rows finished meanwhile, for the consumer to drop,
   * and ends as `closed`.
   */
  readonly closed?: AbortSignal;
  /** How long in-flight requests may finish after a stop, ms. Default 5000. */
  readonly drainMs?: number;
  /** The same after `closed`, ms: no one waits for these rows, only for the exit. Default 1000. */
  readonly closedDrainMs?: number;
  /** Rows read ahead of the oldest unwritten one. Default max(4 × concurrency, 256). */
  readonly window?: number;
  /** Jitter source, [0, 1). Default Math.random. */
  readonly random?: Random;
  onRetry?(info: RetryInfo): void;
  onEvent?(event: RunEvent): void;
}

/**
 * Why a run ended early. `refused`: the key was refused or payment is required (exit 3);
 * `interrupted`: the signal aborted (exit 130); `breaker`: too many consecutive failures
 * (resumable); `wait`: the service asked for a wait longer than maxWaitMs (resumable; `hintMs`);
 * `cap`: the spend cap allows no more requests (resumable); `closed`: the consumer stopped reading
 * (stdout closed): end quietly.
 */
export type StopReason = 'refused' | 'interrupted' | 'breaker' | 'wait' | 'cap' | 'closed';

export interface RunOutcome {
  readonly stopped: null | { readonly reason: StopReason; readonly error?: LookupError; readonly hintMs?: number; readonly setup?: SetupFailure };
  readonly rowsWritten: number;
}

export interface RunHandle {
  /** In input order, each as soon as it and every row before it are done. Iterate once. */
  readonly records: AsyncIterable<OutputRecord>;
  /**
   * The same records (iterate one or the other), those finished in one turn of the event loop
   * together: one asynchronous step per batch, not per row, for a consumer of millions of rows.
   */
  readonly batches: AsyncIterable<OutputRecord[]>;
  /** Valid once `records` (or `batches`) is exhausted (or left). */
  outcome(): RunOutcome;
  /**
   * Stops the run as `closed`, for a consumer that waits for each row it gave (the library's
   * lookup() calls): every lookup with no request on the wire (waiting for its turn or for a
   * retry) is settled now with `error`, so its row is written as soon as the rows before it; the
   * requests in flight finish, bounded by the transport's own timeout, not by `closedDrainMs`, and
   * one whose answer would need another try gets `error` too. Every row taken from the source is
   * written. Returns the source indices of the rows given `error` now; [] if the run had stopped.
   */
  cancel(error: LookupError): number[];
}

interface LookupTask extends Task {
  /** The number's cache key, worked out once for the row. */
  readonly key: CacheKey;
  readonly row: RowState;
  /** Rows with the same number that arrived while this lookup was in flight. */
  more: RowState[] | undefined;
}

/** No lookup of the row reserved: single lookups, and runs without a cap. */
const NONE_RESERVED: readonly boolean[] = [];

export function runPipeline(items: AsyncIterable<SourceItem>, plan: RunPlan, deps: RunDeps): RunHandle {
  const run = new Run(items, plan, deps);
  return {
    records: { [Symbol.asyncIterator]: () => run.records() },
    batches: { [Symbol.asyncIterator]: () => run.batches() },
    outcome: () => run.outcome(),
    cancel: (error) => run.cancel(error),
  };
}

class Run {
  private readonly window: ReorderWindow<RowState>;
  private readonly cache: RunDedup<LookupTask>;
  private readonly dispatcher: Dispatcher<LookupTask>;
  private readonly breaker: CircuitBreaker;
  private readonly opts: LookupOptions[];
  /** Per lookup of the plan: its slot of the answer store. */
  private readonly slots: AnswerSlot[];
  private readonly parsing: ParseOptions;
  private readonly halt = runAbortController();
  private readonly changed = new Notifier();
  private readonly space = new Notifier();
  private readonly drainMs: number;
  private readonly closedDrainMs: number;
  /**
   * A full window wakes the reader once this few rows are left in it, not at every row written:
   * the reader then pulls an eighth of the window in one go, and a bulk run pays one wakeup (a
   * promise and an async step) per that many rows instead of one per row.
   */
  private readonly refillAt: number;
  private iterator: AsyncIterator<SourceItem | readonly SourceItem[]> | undefined;
  private started = false;
  private fed = false;
  private sourceError: { error: unknown } | undefined;
  /** Set by any stop, including a failed source, which has no outcome of its own. */
  private stopping = false;
  private stopped: RunOutcome['stopped'] = null;
  private written = 0;
  /** A wakeup of the writer is scheduled (see wakeWriter). */
  private waking = false;
  /** Enrich under a spend cap: each row reserves its billable lookups whole when admitted (spend-cap.ts). */
  private readonly reserving: boolean;
  /** The cap cannot take the next row whole: no row is admitted after it; the admitted ones finish. */
  private full = false;
  /** Set by cancel(): what every lookup that no request answers is given. */
  private cancelled: Finished | undefined;

  constructor(
    private readonly items: AsyncIterable<SourceItem>,
    private readonly plan: RunPlan,
    private readonly deps: RunDeps,
  ) {
    const gate = deps.gate ?? new ConcurrencyGate(deps.concurrency ?? 16);
    const retries = deps.retries ?? 5;
    this.drainMs = deps.drainMs ?? 5000;
    this.closedDrainMs = deps.closedDrainMs ?? 1000;
    checkCount('retries', retries, 0);
    if (plan.lookups.length === 0) throw new RangeError('a run needs at least one lookup');
    if (plan.mode === 'single' && plan.lookups.length !== 1) throw new RangeError(`a single-lookup run takes one lookup, got ${plan.lookups.length}`);
    // Batches of a bulk endpoint fill from the rows read ahead: room for a few of them in flight and filling.
    const batch = Math.max(1, ...plan.lookups.map((d) => deps.transport.batchSize?.(d) ?? 1));
    this.window = new ReorderWindow(deps.window ?? Math.max(windowSize(gate.limit), 4 * batch));
    this.refillAt = this.window.capacity - Math.max(1, Math.floor(this.window.capacity / 8));
    this.cache = deps.dedup<LookupTask>(plan.lookups.length);
    this.breaker = new CircuitBreaker(deps.breakerThreshold ?? 20);
    this.opts = plan.lookups.map((d) => optionsFor(d, plan.options));
    const answers = deps.answers ?? NO_STORE;
    this.slots = plan.lookups.map((d, i) => answers.slot(d.kind, this.opts[i] as LookupOptions));
    this.parsing = { validate: plan.validate };
    this.reserving = plan.mode === 'enrich' && deps.cap !== undefined;
    const random = deps.random ?? Math.random;
    const now = deps.clock.now();
    const pacer = deps.pacer ?? pacerFor(plan.lookups, deps.rates, now, random, deps.transport.name);
    this.dispatcher = new Dispatcher<LookupTask>(
      { transport: deps.transport, clock: deps.clock, stats: deps.stats, pacer, gate, retries, maxWaitMs: deps.maxWaitMs ?? DEFAULT_MAX_WAIT_MS, random, halt: this.halt.signal, cap: deps.cap, queueAhead: queueAhead(gate.limit) },
      {
        done: (task, answer, keep) => this.done(task, answer, keep),
        fatal: (task, error, setup) => {
          this.cache.forget(task.lookup, task.key);
          this.stop('refused', error, undefined, setup);
        },
        waitTooLong: (task, hintMs, error, done) => {
          if (!done) this.cache.forget(task.lookup, task.key);
          this.stop('wait', error, hintMs);
        },
        settled: () => this.changed.notify(),
        capped: () => this.stop('cap'),
        retrying: deps.onRetry && ((info) => deps.onRetry?.(info)),
        hungry: () => this.space.notify(),
        unbatched: (d, message) => deps.onEvent?.({ type: 'unbatched', lookup: d.kind, message }),
      },
      plan.lookups.map((d) => d.kind),
    );
  }

  outcome(): RunOutcome {
    return { stopped: this.stopped, rowsWritten: this.written };
  }

  async *records(): AsyncGenerator<OutputRecord> {
    for await (const batch of this.ready()) {
      for (const record of batch) {
        this.delivered(1);
        yield record;
      }
    }
  }

  async *batches(): AsyncGenerator<OutputRecord[]> {
    for await (const batch of this.ready()) {
      this.delivered(batch.length);
      yield batch;
    }
  }

  /** Rows count as written once handed to the consumer (a consumer that leaves takes no more). */
  private delivered(rows: number): void {
    this.deps.stats.written += rows;
    this.written += rows;
  }

  /** The records in input order, those finished by the same turn together. */
  private async *ready(): AsyncGenerator<OutputRecord[]> {
    if (this.started) throw new Error('the records of a run can be read once');
    this.started = true;
    const onAbort = () => this.stop('interrupted');
    const onQuit = () => {
      this.stop('interrupted');
      this.abandon();
    };
    const onClosed = () => this.stop('closed');
    const { signal, quit, closed } = this.deps;
    if (signal?.aborted) onAbort();
    else signal?.addEventListener('abort', onAbort, { once: true });
    if (quit?.aborted) onQuit();
    else quit?.addEventListener('abort', onQuit, { once: true });
    if (closed?.aborted) onClosed();
    else closed?.addEventListener('abort', onClosed, { once: true });
    void this.feed();
    let finished = false;
    try {
      let batch: OutputRecord[] = [];
      for (;;) {
        const head = this.window.peek();
        if (head && head.unanswered === 0) {
          this.window.shift();
          if (this.window.size <= this.refillAt) this.space.notify();
          batch.push(this.recordOf(head));
          continue;
        }
        if (batch.length > 0) {
          yield batch;
          batch = [];
          continue;
        }
        if (this.stopping && (this.dispatcher.inFlight === 0 || this.halt.signal.aborted)) {
          // Cancelled: nothing is on the wire any more, so what is still unanswered never will be.
          if (this.cancelled && this.giveUpUnanswered(this.cancelled)) continue;
          break;
        }
        if (!head && this.fed) break;
        await this.changed.wait();
      }
      finished = true;
      if (this.sourceError) throw this.sourceError.error;
    } finally {
      signal?.removeEventListener('abort', onAbort);
      quit?.removeEventListener('abort', onQuit);
      closed?.removeEventListener('abort', onClosed);
      if (!finished) this.stop('closed');
      this.dispatcher.stop();
      this.halt.abort();
      this.cache.close();
      this.iterator?.return?.().catch(() => {});
    }
  }

  cancel(error: LookupError): number[] {
    if (this.stopping) return [];
    const given: Finished = { result: null, error };
    this.cancelled = given;
    this.stop('closed');
    const rows: number[] = [];
    for (const task of this.dispatcher.cancel()) {
      this.cache.forget(task.lookup, task.key);
      for (const row of task.more ? [task.row, ...task.more] : [task.row]) {
        this.settle(row, task.lookup, given);
        rows.push(row.item.index);
      }
    }
    return rows;
  }

  /** Settles every lookup of the window still unanswered with `given`; false if there was none. */
  private giveUpUnanswered(given: Finished): boolean {
    let any = false;
    for (const row of this.window) {
      for (let i = 0; row.unanswered > 0 && i < row.results.length; i++) {
        if (row.results[i] !== null || row.errors[i] !== null) continue;
        this.settle(row, i, given);
        any = true;
      }
    }
    return any;
  }

  /**
   * Pulls input lazily: at most a window ahead of the oldest unwritten row, and while the requests
   * already queued are few (Dispatcher.wantsWork).
   */
  private async feed(): Promise<void> {
    try {
      // A source that reads in batches is read so: one asynchronous step per batch, not per row.
      const it = (this.iterator = hasBatches(this.items) ? this.items.batches() : this.items[Symbol.asyncIterator]());
      if (this.deps.earlier) await this.remember(this.deps.earlier);
      let batch: readonly SourceItem[] = [];
      let at = 0;
      while (!this.stopping && !this.full) {
        // Rows are admitted as their requests can leave, not a whole window ahead: rows answered
        // without a request (cache, duplicates) are bounded by the window alone.
        if (this.window.full || !this.dispatcher.wantsWork) {
          await this.space.wait();
          continue;
        }
        if (at < batch.length) {
          this.admit(batch[at++] as SourceItem);
          continue;
        }
        const next = await it.next();
        if (next.done || this.stopping) break;
        if (Array.isArray(next.value)) {
          batch = next.value;
          at = 0;
        } else this.admit(next.value as SourceItem);
      }
    } catch (error) {
      this.sourceError = { error };
      this.stop(null);
    } finally {
      this.fed = true;
      this.dispatcher.inputEnded();
      this.changed.notify();
    }
  }

  /** The answers of rows written before (--resume), as if this run had received them. */
  private async remember(earlier: AsyncIterable<readonly WrittenAnswers[]>): Promise<void> {
    for await (const batch of earlier) {
      if (this.stopping) return;
      for (const { number, answers } of batch) {
        const key = cacheKey(number);
        answers.forEach((answer, i) => {
          if (answer && i < this.plan.lookups.length) this.cache.finish(i, key, answer);
        });
      }
    }
  }

  private admit(item: SourceItem): void {
    const lookups = this.plan.lookups.length;
    const parsed = parseNumber(item.input, this.parsing);
    const key = parsed.ok ? cacheKey(parsed.number) : undefined;
    const reserved = parsed.ok && this.reserving ? this.reserve(parsed.number, key as CacheKey) : NONE_RESERVED;
    // The cap cannot pay for this row: it is not read, and the run ends before it.
    if (!reserved) return;
    this.deps.stats.rows += 1;
    if (!parsed.ok) {
      const row = newRow(item, null, lookups);
      row.errors.fill({ code: 'invalid_number', message: parsed.message });
      row.unanswered = 0;
      this.window.push(row);
      if (this.window.size === 1) this.changed.notify();
      return;
    }
    const row = newRow(item, parsed.number, lookups);
    this.window.push(row);
    for (let i = 0; i < lookups; i++) this.lookup(row, i, parsed.number, key as CacheKey, reserved[i] === true);
    this.dispatcher.pump();
  }

  /**
   * Takes from the spend cap, together, the lookups of this row that will be sent: those that no
   * lookup in flight, answer of this run or cached answer covers. When they do not all fit, the
   * cap is full: this row and every later one are left for a resume (see capFull). Per lookup of
   * the plan, whether it was reserved; undefined when the cap is full.
   */
  private reserve(number: string, key: CacheKey): readonly boolean[] | undefined {
    const billable = this.plan.lookups.map((_, i) => !(this.cache.inFlight(i, key) || this.finished(i, key, number) || (this.slots[i] as AnswerSlot).has(number)));
    const kinds = this.plan.lookups.filter((_, i) => billable[i]).map((d) => d.kind);
    if (kinds.length === 0 || (this.deps.cap as SpendCap).reserve(kinds)) return billable;
    this.capFull();
    return undefined;
  }

  /**
   * Stops the run at a row boundary: nothing more is admitted, and the rows admitted, whose
   * requests are reserved, are sent and written. The run ends `cap`, resumable from the next row.
   */
  private capFull(): void {
    if (this.stopping || this.full) return;
    this.full = true;
    this.stopped = { reason: 'cap' };
    this.deps.onEvent?.({ type: 'stopped', reason: 'cap', inFlight: this.dispatcher.inFlight });
    this.space.notify();
  }

  /** `reserved`: the row's first tries are already taken from the spend cap (reserve). */
  private lookup(row: RowState, i: number, number: string, key: CacheKey, reserved: boolean): void {
    const stats = this.deps.stats;
    const running = this.cache.inFlight(i, key);
    if (running) {
      // Counted when the answer comes (done): a run that stops first saved this row nothing.
      (running.more ??= []).push(row);
      return;
    }
    const answer = this.finished(i, key, number);
    if (answer) {
      stats.duplicates += 1;
      this.settle(row, i, answer);
      return;
    }
    const slot = this.slots[i] as AnswerSlot;
    const hit = slot.get(number);
    if (hit) {
      if (reserved) this.unreserve(i);
      stats.cacheHits += 1;
      const cached: Finished = { result: hit.result, error: null, fetchedAt: hit.fetchedAt, cached: true };
      // A later duplicate is a duplicate, not a cache hit again.
      if (slot.kept) this.cache.finishKept(i, key, true);
      else this.cache.finish(i, key, cached);
      this.settle(row, i, cached);
      return;
    }
    const task: LookupTask = { lookup: i, d: this.plan.lookups[i] as LookupDescriptor, opts: this.opts[i] as LookupOptions, number, key, retries: 0, row, more: undefined, reserved };
    this.cache.start(i, key, task);
    this.dispatcher.enqueue(task);
  }

  /**
   * This run's answer of lookup i for the number, if the run has one: kept by its dedup, or by the
   * answer store (read back from there). One the store no longer has (the cache failed since, or
   * another process cleared it) is none: the number is looked up again.
   */
  private finished(i: number, key: CacheKey, number: string): Finished | undefined {
    const answer = this.cache.finished(i, key);
    if (!answer || !('kept' in answer)) return answer;
    const held = (this.slots[i] as AnswerSlot).kept?.(number);
    return held && { result: held.result, error: null, fetchedAt: held.fetchedAt, cached: answer.cached };
  }

  /**
   * A lookup reserved, then answered without a request after all (the cache's get() found what
   * its has() did not): the request goes back to the cap.
   */
  private unreserve(i: number): void {
    this.deps.cap?.giveBack((this.plan.lookups[i] as LookupDescriptor).kind);
  }

  private done(task: LookupTask, fetched: Finished, keep: boolean): void {
    let answer = fetched;
    let stored = false;
    if (fetched.result) {
      const fetchedAt = this.deps.clock.now();
      answer = { result: fetched.result, error: null, fetchedAt, cached: false };
      this.deps.stats.billed += 1;
      const slot = this.slots[task.lookup] as AnswerSlot;
      stored = slot.put(task.number, fetched.result, fetchedAt) === true && slot.kept !== undefined;
    }
    if (stored && keep) this.cache.finishKept(task.lookup, task.key, false);
    else this.cache.finish(task.lookup, task.key, keep ? answer : undefined);
    this.settle(task.row, task.lookup, answer);
    if (task.more) {
      this.deps.stats.duplicates += task.more.length;
      for (const row of task.more) this.settle(row, task.lookup, answer);
    }
  }

  private settle(row: RowState, i: number, answer: Finished): void {
    row.results[i] = answer.result;
    row.errors[i] = answer.error;
    if (answer.result) {
      row.cached[i] = answer.cached ?? false;
      row.fetchedAt[i] = answer.fetchedAt ?? null;
    }
    row.unanswered -= 1;
    if (row.unanswered > 0) return;
    if (this.breaker.record(row.errors)) this.stop('breaker', row.errors.find((e) => e !== null) ?? undefined);
    if (row === this.window.peek()) this.wakeWriter();
  }

  /**
   * Answers wake the writer once per turn of the event loop, not once each: a bulk run's answers
   * arrive one by one, each in its own callback, and a wakeup (a promise and an async step of the
   * records) per answer cost more than the record it woke for. The rows finished in the turn
   * come out together, a turn later at most.
   */
  private wakeWriter(): void {
    if (this.waking) return;
    this.waking = true;
    setImmediate(this.woken);
  }

  private readonly woken = () => {
    this.waking = false;
    this.changed.notify();
  };

  private recordOf(row: RowState): OutputRecord {
    const record = buildRecord(row, this.plan.mode, this.plan.lookups);
    const stats = this.deps.stats;
    let invalid = false;
    let failed = false;
    for (const e of row.errors) {
      if (e?.code === 'invalid_number') invalid = true;
      else if (e) failed = true;
    }
    if (invalid) stats.invalid += 1;
    if (failed) stats.failed += 1;
    return record;
  }

  /**
   * Stops dispatching now; in-flight requests get `drainMs` to finish before they are aborted.
   * `null` = the source failed: the records iterator rethrows its error after the finished prefix.
   */
  private stop(reason: StopReason | null, error?: LookupError, hintMs?: number, setup?: SetupFailure): void {
    if (this.stopping) return;
    this.stopping = true;
    this.dispatcher.stop();
    if (reason !== null) {
      this.stopped = { reason, ...(error ? { error } : {}), ...(hintMs === undefined ? {} : { hintMs }), ...(setup ? { setup } : {}) };
      this.deps.onEvent?.({ type: 'stopped', reason, ...(error ? { error } : {}), inFlight: this.dispatcher.inFlight });
    }
    this.space.notify();
    this.changed.notify();
    // A cancelled run lets its requests finish: each ends by the transport's own timeout.
    if (this.dispatcher.inFlight > 0 && !this.halt.signal.aborted && !this.cancelled) {
      this.deps.clock.sleep(reason === 'closed' ? this.closedDrainMs : this.drainMs, this.halt.signal).then(
        () => this.abandon(),
        () => {},
      );
    }
  }

  /** Aborts what is in flight: the records end after the rows already finished. */
  private abandon(): void {
    this.halt.abort();
    this.changed.notify();
  }
}
