// The rate-aware queue: lookups wait per kind, go out when a concurrency slot and a token of their
// kind are both free, and come back classified. Nothing here costs a timer while tokens are free;
// a kind that must wait (no token, a 429 pause, a spent window) gets ONE wakeup, whatever its queue
// length. Retries re-enter at the front of their kind's queue, through the same limiter.
//
// A kind the transport batches (a bulk endpoint) sends up to its batch size of numbers in one
// request: one slot, one pacing token of its bulk lane. A batch goes when full, when the input
// ended, or once no task has joined its queue for LINGER_MS (the input paused: `tail -f` still
// streams). First tries and retries share batches; each number's answer is then decided alone.
import type { Clock } from '../../core/clock.js';
import type { LookupDescriptor, LookupOptions } from '../../core/lookups.js';
import type { LookupError } from '../../core/records.js';
import type { RunStats } from '../../core/run.js';
import type { Attempt, BatchAttempt, SetupFailure, Transport } from '../../core/transport.js';
import type { Finished } from '../../store/answer-store.js';
import type { ConcurrencyGate } from './gate.js';
import { laneOf, type PaceTicket, type Pacing } from './pacer.js';
import { decideRetry, type Random } from './retry.js';
import type { SpendCap } from './spend-cap.js';

export interface Task {
  /** Index of this lookup in the run's plan. */
  readonly lookup: number;
  readonly d: LookupDescriptor;
  readonly opts: LookupOptions;
  readonly number: string;
  /** Retries sent so far. */
  retries: number;
  /** Of those, the retries after a 429 (which --retries does not bound: see retry.ts). */
  rateLimitedRetries?: number;
  /** An attempt of this lookup reached the service: the next one counts as a retry. */
  sent?: boolean;
  /** The pacer's stamp on the attempt in flight. */
  ticket?: PaceTicket;
  /** Its first try was reserved from the spend cap with its row's (enrich): it takes nothing more to leave. */
  reserved?: boolean;
}

export interface RetryInfo {
  readonly lookup: LookupDescriptor['kind'];
  readonly number: string;
  /** 1-based number of this retry. */
  readonly retry: number;
  readonly waitMs: number;
  readonly error: LookupError;
}

export interface DispatchHooks<T extends Task> {
  /** The lookup has its final answer; `keep` false for a transient failure not worth caching. */
  done(task: T, answer: Finished, keep: boolean): void;
  /** The service refused the key: the run must stop before anything else is sent. */
  fatal(task: T, error: LookupError, setup: SetupFailure | undefined): void;
  /** An answer arrived while stopping: the run may now be able to end. */
  settled(): void;
  /** The spend cap allows no more requests: the run must stop (resumably). */
  capped?(): void;
  retrying?(info: RetryInfo): void;
  /** A kind's first tries waiting fell to half of `queueAhead`: the run may admit rows again. */
  hungry?(): void;
  /**
   * The service asked for a wait longer than `maxWaitMs`: the run must stop (resumably). `done`:
   * the answer itself is final (a success whose window is spent) and was already handed to `done`.
   */
  waitTooLong(task: T, hintMs: number, error: LookupError | undefined, done: boolean): void;
  /** The service has no bulk endpoint for this lookup: its numbers go one a request from now on. */
  unbatched?(d: LookupDescriptor, message: string): void;
}

export interface DispatchConfig {
  readonly transport: Transport;
  readonly clock: Clock;
  readonly stats: RunStats;
  /** When each kind's next request may go; told every answer. */
  readonly pacer: Pacing;
  /** The client's concurrency limit, shared with its other runs. */
  readonly gate: ConcurrencyGate;
  readonly retries: number;
  /** The longest server wait hint obeyed, ms (--max-wait). */
  readonly maxWaitMs: number;
  readonly random: Random;
  /** Aborts in-flight requests and pending wakeups when the run is over. */
  readonly halt: AbortSignal;
  /** --max-lookups / --max-spend: every request must be taken from it first. */
  readonly cap?: SpendCap;
  /** First tries per kind worth keeping queued (see wantsWork). */
  readonly queueAhead: number;
}

/** A FIFO without O(n) shifts: a head index, compacted now and then. */
export class Fifo<T> {
  private items: (T | undefined)[] = [];
  private head = 0;
  get length(): number {
    return this.items.length - this.head;
  }
  push(item: T): void {
    this.items.push(item);
  }
  peek(): T | undefined {
    return this.items[this.head];
  }
  /** The items still queued, oldest first. */
  *[Symbol.iterator](): Iterator<T> {
    for (let i = this.head; i < this.items.length; i++) yield this.items[i] as T;
  }
  shift(): T | undefined {
    if (this.head >= this.items.length) return undefined;
    const item = this.items[this.head];
    // Emptied at once: a slot left set until the next compaction kept ~1,000 finished tasks, with
    // their rows and answers, alive long enough to reach the old generation (see core/slot-map.ts).
    this.items[this.head] = undefined;
    this.head += 1;
    if (this.head > 1024 && this.head * 2 > this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
    return item;
  }
}

const noop = () => {};

/** A partial batch waits this long for more numbers before it goes. */
export const LINGER_MS = 50;

export class Dispatcher<T extends Task> {
  /** This run's requests in flight (the gate counts the client's). */
  inFlight = 0;
  private stopped = false;
  private readonly fresh: Fifo<T>[] = [];
  private readonly again: Fifo<T>[] = [];
  /** Per kind: a wakeup is already scheduled. */
  private readonly waking: boolean[] = [];
  /** Tasks waiting out the pause before a retry: in no queue until it ends. */
  private readonly resting = new Set<T>();
  private turn = 0;
  /** How the gate wakes this run when a slot frees up. */
  private readonly wake = () => this.pump();
  /** Per kind: numbers a request carries (0 until its first task tells), and when a task last joined its queues. */
  private readonly sizes: number[] = [];
  private readonly joinedAt: number[] = [];
  /** No more first tries will come: partial batches go at once. */
  private ended = false;

  /** `kinds`: the lookup kinds of the run, in plan order (a task's `lookup` indexes them). */
  constructor(
    private readonly cfg: DispatchConfig,
    private readonly hooks: DispatchHooks<T>,
    private readonly kinds: readonly LookupDescriptor['kind'][],
  ) {
    for (let i = 0; i < kinds.length; i++) {
      this.fresh.push(new Fifo());
      this.again.push(new Fifo());
      this.waking.push(false);
      this.sizes.push(0);
      this.joinedAt.push(0);
    }
  }

  enqueue(task: T): void {
    const i = task.lookup;
    if (this.sizes[i] === 0) this.sizes[i] = Math.max(1, this.cfg.transport.batchSize?.(task.d) ?? 1);
    // Only a batch waits for the next task to join it.
    if ((this.sizes[i] ?? 1) > 1) this.joinedAt[i] = this.cfg.clock.now();
    this.fresh[i]?.push(task);
  }

  /** The input is over: no batch waits for more numbers. */
  inputEnded(): void {
    this.ended = true;
    this.pump();
  }

  /** First tries worth keeping queued for kind i: at least two batches' worth where it batches. */
  private ahead(i: number): number {
    return Math.max(this.cfg.queueAhead, 2 * (this.sizes[i] ?? 1));
  }

  /**
   * Whether the run should admit more rows: some kind has fewer than `queueAhead` first tries
   * waiting. A row admitted long before its request leaves lives long enough to reach the old
   * generation, its answer with it, for the full collections to sweep (see Run.feed).
   */
  get wantsWork(): boolean {
    for (let i = 0; i < this.fresh.length; i++) if ((this.fresh[i] as Fifo<T>).length < this.ahead(i)) return true;
    return false;
  }

  /** No request starts after this, not even a retry already waiting. */
  stop(): void {
    this.stopped = true;
    this.cfg.gate.leave(this.wake);
    // What rows reserved and never sent goes back to the cap, which the process's other runs share.
    for (const queue of this.fresh) {
      for (const task of queue) {
        if (!task.reserved) continue;
        task.reserved = false;
        this.cfg.cap?.giveBack(task.d.kind);
      }
    }
  }

  /**
   * Stops, and hands back every task that has no request on the wire (waiting for its turn, or
   * for a retry), for the caller to settle: the requests in flight still come back as usual.
   */
  cancel(): T[] {
    this.stop();
    const dropped = [...this.resting];
    this.resting.clear();
    for (const queue of [...this.again, ...this.fresh]) for (let task = queue.shift(); task !== undefined; task = queue.shift()) dropped.push(task);
    return dropped;
  }

  /** Sends what may go now; schedules one wakeup per kind that must wait. */
  pump(): void {
    const { pacer, gate, clock } = this.cfg;
    const kinds = this.kinds.length;
    let idle = 0;
    while (!this.stopped && idle < kinds) {
      if (!gate.free) {
        // Another run (or this one) holds every slot: this one waits its turn.
        gate.wait(this.wake);
        return;
      }
      const i = this.turn;
      this.turn = (i + 1) % kinds;
      const queue = (this.again[i]?.length ? this.again[i] : this.fresh[i]) as Fifo<T>;
      if (queue.length === 0) {
        idle += 1;
        continue;
      }
      const kind = this.kinds[i] as LookupDescriptor['kind'];
      const size = this.sizes[i] ?? 1;
      if (size > 1) {
        const wait = this.batchWait(i, size);
        if (wait > 0) {
          this.wakeIn(i, wait);
          idle += 1;
          continue;
        }
      }
      // The spend cap first: a request it refuses takes no pace slot, and the run stops. A first
      // try its row reserved is already paid for.
      const reserved = queue.peek()?.reserved === true;
      if (this.cfg.cap && !reserved && !this.cfg.cap.take(kind)) {
        this.hooks.capped?.();
        return;
      }
      const ticket = pacer.take(laneOf(kind, size > 1), clock.now());
      if (typeof ticket === 'number') {
        if (!reserved) this.cfg.cap?.giveBack(kind);
        this.wakeIn(i, ticket);
        idle += 1;
        continue;
      }
      idle = 0;
      const fresh = this.fresh[i] as Fifo<T>;
      const before = fresh.length;
      if (size > 1) this.sendBatch(i, size, ticket, queue.shift() as T);
      else {
        const task = queue.shift() as T;
        task.ticket = ticket;
        this.send(task);
      }
      // Told once per half queue, not per request: one wakeup of the reader for that many rows.
      const half = this.ahead(i) >> 1;
      if (before > half && fresh.length <= half) this.hooks.hungry?.();
    }
  }

  /** Ms a partial batch of kind i still waits for more numbers; 0 = it goes now. */
  private batchWait(i: number, size: number): number {
    const waiting = (this.again[i] as Fifo<T>).length + (this.fresh[i] as Fifo<T>).length;
    if (waiting >= size || this.ended) return 0;
    // A wakeup already due works the wait out again when it comes: no clock read per row admitted.
    if (this.waking[i]) return LINGER_MS;
    return Math.max(0, (this.joinedAt[i] ?? 0) + LINGER_MS - this.cfg.clock.now());
  }

  /**
   * Fills a batch of kind i after `first` (already taken from the cap): retries first, then first
   * tries, each taken from the spend cap (the last batch is cut to what it allows).
   */
  private sendBatch(i: number, size: number, ticket: PaceTicket, first: T): void {
    const kind = this.kinds[i] as LookupDescriptor['kind'];
    const tasks = [first];
    let capped = false;
    for (const queue of [this.again[i] as Fifo<T>, this.fresh[i] as Fifo<T>]) {
      while (tasks.length < size && queue.length > 0 && !capped) {
        const next = queue.peek() as T;
        if (this.cfg.cap && !next.reserved && !this.cfg.cap.take(kind)) capped = true;
        else tasks.push(queue.shift() as T);
      }
    }
    const { transport, stats, halt } = this.cfg;
    this.inFlight += 1;
    this.cfg.gate.take();
    stats.requests += 1;
    const retried = tasks.map((task) => this.leaving(task));
    const send = transport.sendBatch;
    const numbers = tasks.map((task) => task.number);
    const sent = send ? send.call(transport, first.d, numbers, first.opts, halt) : Promise.reject(new Error('the transport sends no batches'));
    sent.then(
      (b) => this.batchAnswered(i, tasks, retried, ticket, b),
      (err: unknown) => this.batchAnswered(i, tasks, retried, ticket, { kind: 'whole', attempt: thrown(err) }),
    );
    if (capped) this.hooks.capped?.();
  }

  /** A task's attempt leaves: counted as a lookup or a retry. Returns whether it is a retry. */
  private leaving(task: T): boolean {
    const retry = task.sent === true;
    task.sent = true;
    // The reservation is spent: if this attempt never leaves, what is given back is the cap's again.
    task.reserved = false;
    if (retry) this.cfg.stats.retries += 1;
    else this.cfg.stats.lookups += 1;
    return retry;
  }

  private batchAnswered(i: number, tasks: T[], retried: boolean[], ticket: PaceTicket, b: BatchAttempt): void {
    this.inFlight -= 1;
    this.cfg.gate.release(this.wake);
    const now = this.cfg.clock.now();
    const whole = b.kind === 'whole' ? b.attempt : undefined;
    const rateLimited = whole?.kind === 'retry' && whole.rateLimited;
    this.cfg.pacer.settle(ticket, { rate: b.kind === 'whole' ? b.attempt.rate : b.rate, rateLimited, ok: b.kind === 'rows', waitMs: whole?.kind === 'retry' ? whole.waitMs : undefined }, now);
    const unsent = b.kind === 'unsupported' || (whole !== undefined && 'unsent' in whole && whole.unsent === true);
    if (unsent) {
      this.cfg.stats.requests -= 1;
      tasks.forEach((task, k) => this.uncountAttempt(task, retried[k] === true));
    }
    if (this.cfg.halt.aborted) return;
    if (b.kind === 'unsupported') {
      this.sizes[i] = 1;
      this.hooks.unbatched?.(tasks[0]?.d as LookupDescriptor, b.message);
      // Not an attempt: they go again as they were, one a request.
      const again = this.again[i] as Fifo<T>;
      for (const task of tasks) again.push(task);
      this.after(false);
      return;
    }
    if (rateLimited) this.cfg.stats.rateLimited += 1;
    let halted = false;
    tasks.forEach((task, k) => {
      // A transport answers every number it was given (see Transport.sendBatch).
      const a = whole ?? (b.kind === 'rows' ? b.answers[k] : undefined) ?? thrown(new Error('the transport gave no answer for this number'));
      if (!whole && a.kind === 'retry' && a.rateLimited) this.cfg.stats.rateLimited += 1;
      halted = this.conclude(task, a, now) || halted;
    });
    this.after(halted);
  }

  private wakeIn(i: number, ms: number): void {
    if (this.waking[i]) return;
    this.waking[i] = true;
    this.cfg.clock.sleep(ms, this.cfg.halt).then(
      () => {
        this.waking[i] = false;
        this.pump();
      },
      noop,
    );
  }

  private send(task: T): void {
    const { transport, stats, halt } = this.cfg;
    this.inFlight += 1;
    this.cfg.gate.take();
    // Counted here, where a request really leaves: rows never dispatched, duplicates and numbers
    // refused before sending never get this far. A retry is a request after one that arrived.
    stats.requests += 1;
    const retry = this.leaving(task);
    transport.send(task.d, task.number, task.opts, halt).then(
      (a) => this.answer(task, a, retry),
      (err: unknown) => this.answer(task, thrown(err), retry),
    );
  }

  private answer(task: T, a: Attempt, retry: boolean): void {
    this.inFlight -= 1;
    // Even after the run was halted: the slot belongs to the client, not to this run.
    this.cfg.gate.release(this.wake);
    if ('unsent' in a && a.unsent === true) {
      this.cfg.stats.requests -= 1;
      this.uncountAttempt(task, retry);
    }
    const now = this.cfg.clock.now();
    const ticket = task.ticket;
    task.ticket = undefined;
    const rateLimited = a.kind === 'retry' && a.rateLimited;
    // Even after the run was halted: a pacer that outlives the run must not count it in flight forever.
    if (ticket) this.cfg.pacer.settle(ticket, { rate: a.rate, rateLimited, ok: a.kind === 'ok', waitMs: a.kind === 'retry' ? a.waitMs : undefined }, now);
    if (this.cfg.halt.aborted) return;
    if (rateLimited) this.cfg.stats.rateLimited += 1;
    this.after(this.conclude(task, a, now));
  }

  /** After answers were decided: the run may end (`halted`: a stop was asked for), else more may go. */
  private after(halted: boolean): void {
    if (halted || this.stopped) this.hooks.settled();
    else this.pump();
  }

  /** What one number's answer means for its task: final, another try, or a stop. True when the run must stop. */
  private conclude(task: T, a: Attempt, now: number): boolean {
    const decision = decideRetry(a, { retries: task.retries, rateLimited: task.rateLimitedRetries ?? 0 }, this.cfg, now);
    if (decision.action === 'stop' && a.kind !== 'fatal') {
      // A hint past --max-wait is never handed to a timer: the run stops instead of sleeping for
      // a day. A final answer that carried it (a success whose window is spent until tomorrow)
      // is kept: it was received, and billed.
      if (a.kind !== 'retry') this.finish(task, a);
      if (!this.stopped) this.hooks.waitTooLong(task, decision.hintMs, 'error' in a ? a.error : undefined, a.kind !== 'retry');
      return true;
    }
    switch (a.kind) {
      case 'ok':
      case 'invalid':
      case 'error':
        this.finish(task, a);
        break;
      case 'fatal':
        if (!this.stopped) this.hooks.fatal(task, a.error, a.setup);
        break;
      case 'retry':
        this.retry(task, a, decision.action === 'retry' ? decision.waitMs : undefined);
        break;
    }
    return false;
  }

  /** A final answer: hands it to `done`. */
  private finish(task: T, a: Extract<Attempt, { kind: 'ok' | 'invalid' | 'error' }>): void {
    if (a.kind === 'ok') this.hooks.done(task, { result: a.result, error: null }, true);
    else this.hooks.done(task, { result: null, error: a.kind === 'invalid' ? invalidNumber(a.error) : a.error }, true);
  }

  /** The attempt never left (no connection could be made): the service saw nothing to count. */
  private uncountAttempt(task: T, retry: boolean): void {
    const { stats } = this.cfg;
    this.cfg.cap?.giveBack(task.d.kind);
    if (retry) {
      stats.retries -= 1;
    } else {
      stats.lookups -= 1;
      task.sent = false;
    }
  }

  /** `waitMs` undefined: the policy says no more tries (see retry.ts); the last error stands. */
  private retry(task: T, a: Extract<Attempt, { kind: 'retry' }>, waitMs: number | undefined): void {
    if (this.stopped) return;
    if (waitMs === undefined) {
      this.hooks.done(task, { result: null, error: a.error }, false);
      return;
    }
    task.retries += 1;
    if (a.rateLimited) task.rateLimitedRetries = (task.rateLimitedRetries ?? 0) + 1;
    this.hooks.retrying?.({ lookup: task.d.kind, number: task.number, retry: task.retries, waitMs, error: a.error });
    const again = this.again[task.lookup] as Fifo<T>;
    if (waitMs <= 0) {
      again.push(task);
      return;
    }
    this.resting.add(task);
    this.cfg.clock.sleep(waitMs, this.cfg.halt).then(() => {
      this.resting.delete(task);
      if (this.stopped) return;
      again.push(task);
      this.pump();
    }, noop);
  }
}

/** The service said the number itself is wrong: the contract calls that invalid_number. */
function invalidNumber(e: LookupError): LookupError {
  return e.status === undefined ? { code: 'invalid_number', message: e.message } : { code: 'invalid_number', message: e.message, status: e.status };
}

/** A transport must not throw for what the service answered; if it does anyway, it is a network fault. */
function thrown(err: unknown): Attempt {
  const message = err instanceof Error ? err.message : String(err);
  return { kind: 'retry', rateLimited: false, error: { code: 'network_error', message } };
}
