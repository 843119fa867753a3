// What one client (a library `createClient`, or one CLI process) shares across its calls: the
// answer store, the pacer, the concurrency gate (one limit of requests in flight for all its runs)
// and, for single lookups, one long-lived run per lookup and options. Two hundred
// parallel `lookup()` calls then go through one run, so they take their turns at the rate limit,
// share the concurrency slots and send each number once, exactly as `bulk()` of the same numbers
// would; nothing is created per call but a promise.
import { UsageError } from '../core/errors.js';
import { optionsFor, type LookupDescriptor, type LookupOptions } from '../core/lookups.js';
import type { LookupError, LookupRecord } from '../core/records.js';
import type { RunStats, SourceItem } from '../core/run.js';
import { newRunStats } from '../core/run.js';
import { optionsKey, type AnswerStore } from '../store/answer-store.js';
import { Fifo } from './dispatch/dispatcher.js';
import { runPipeline, type RunDeps, type RunHandle, type RunOutcome } from './runner.js';

/** Everything a run needs but its items, stats and signal. */
export type SessionDeps = Omit<RunDeps, 'stats' | 'signal' | 'quit' | 'answers'> & { readonly answers: AnswerStore };

interface Waiter {
  resolve(record: LookupRecord): void;
  reject(err: unknown): void;
}

/** What the run gives a lookup that close() stopped before its request went out. */
const NOT_SENT: LookupError = { code: 'not_attempted', message: 'the client was closed before this lookup was sent' };
/** ... and what its call rejects with: a closed client, not a failed lookup. */
const closedBeforeSent = () => new UsageError(NOT_SENT.message);

/** A push-fed source: items wait here until the run pulls them; `end` lets the run finish. */
class Inbox implements AsyncIterable<SourceItem> {
  private readonly items = new Fifo<SourceItem>();
  private wake: (() => void) | undefined;
  private ended = false;

  push(item: SourceItem): void {
    this.items.push(item);
    this.wake?.();
  }

  end(): void {
    this.ended = true;
    this.wake?.();
  }

  async *[Symbol.asyncIterator](): AsyncIterator<SourceItem> {
    for (;;) {
      if (this.items.length > 0) {
        yield this.items.shift() as SourceItem;
        continue;
      }
      if (this.ended) return;
      await new Promise<void>((resolve) => (this.wake = resolve));
      this.wake = undefined;
    }
  }
}

/** One lookup with its options: a run that lives while calls are waiting on it. */
class Lane {
  private readonly inbox = new Inbox();
  /** Each call by the index of its item: the run writes one record per item taken, in that order. */
  private readonly waiting = new Map<number, Waiter>();
  private next = 0;
  private written = 0;
  private readonly handle: RunHandle;
  /** The run's: `rows` is how many items it has taken from the inbox. */
  private readonly stats: RunStats;
  /** Set once the run ended (a refused key, the client closed): the lane takes no more calls. */
  done = false;
  /** Settles when the run has written its last record and every call is answered. */
  readonly ended: Promise<void>;

  constructor(d: LookupDescriptor, options: LookupOptions, validate: boolean, deps: SessionDeps, onEnd: () => void, fail: (stopped: NonNullable<RunOutcome['stopped']>) => unknown) {
    this.stats = newRunStats(deps.clock.now());
    const handle = (this.handle = runPipeline(this.inbox, { mode: 'single', lookups: [d], options, validate }, { ...deps, stats: this.stats }));
    this.ended = (async () => {
      let error: unknown;
      try {
        for await (const record of handle.records) {
          const index = this.written++;
          const waiter = this.waiting.get(index);
          this.waiting.delete(index);
          // Given up by close(): its call was rejected then, or is now if the answer needed a retry.
          if ((record as LookupRecord).error?.code === 'not_attempted') waiter?.reject(closedBeforeSent());
          else waiter?.resolve(record as LookupRecord);
          // Idle: this run ends (its in-run memory of answers with it); the next call starts
          // another, and answers kept longer come from the session's store, fresh as it says.
          if (this.waiting.size === 0 && !this.done) {
            this.done = true;
            onEnd();
            this.inbox.end();
          }
        }
        const stopped = handle.outcome().stopped;
        if (stopped && stopped.reason !== 'closed') error = fail(stopped);
      } catch (err) {
        error = err;
      }
      if (!this.done) {
        this.done = true;
        onEnd();
      }
      for (const w of this.waiting.values()) w.reject(error ?? closedBeforeSent());
      this.waiting.clear();
    })();
  }

  lookup(number: string): Promise<LookupRecord> {
    return new Promise<LookupRecord>((resolve, reject) => {
      const index = this.next++;
      this.waiting.set(index, { resolve, reject });
      this.inbox.push({ index, input: number });
    });
  }

  /**
   * Sends nothing more: the calls whose request has not gone out (not yet taken by the run, waiting
   * for their turn at the pacer or the concurrency limit, or for a retry) reject now; the calls
   * with a request on the wire get their records when it is answered.
   */
  close(): void {
    const unsent = new Set(this.handle.cancel(NOT_SENT));
    this.inbox.end();
    for (const [index, waiter] of this.waiting) {
      if (index < this.stats.rows && !unsent.has(index)) continue;
      this.waiting.delete(index);
      waiter.reject(closedBeforeSent());
    }
  }
}

export class Session {
  private readonly lanes = new Map<string, Lane>();

  constructor(
    readonly deps: SessionDeps,
    private readonly fail: (stopped: NonNullable<RunOutcome['stopped']>) => unknown,
  ) {}

  /** One lookup through the lane of its kind and options; records come back as the run writes them. */
  lookup(d: LookupDescriptor, number: string, options: LookupOptions, validate = true): Promise<LookupRecord> {
    const opts = optionsFor(d, options);
    const name = `${d.kind} ${optionsKey(d.kind, opts)} ${validate}`;
    let lane = this.lanes.get(name);
    if (!lane || lane.done) {
      const made = new Lane(d, opts, validate, this.deps, () => {
        if (this.lanes.get(name) === made) this.lanes.delete(name);
      }, this.fail);
      lane = made;
      this.lanes.set(name, lane);
    }
    return lane.lookup(number);
  }

  /**
   * Sends nothing more: each call whose request has not gone out rejects at once (UsageError), so
   * closing never waits for a turn at the rate limit or a retry's pause (up to maxWaitMs); the
   * requests on the wire finish, and this settles when they have: the connections are closed after
   * it, so those calls get their answers, not a closed client's errors.
   */
  async close(): Promise<void> {
    const lanes = [...this.lanes.values()];
    for (const lane of lanes) lane.close();
    this.lanes.clear();
    await Promise.all(lanes.map((lane) => lane.ended));
  }
}

