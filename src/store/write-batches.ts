// How a store's answers reach the file: put into a batch, handed to lmdb one transaction per BATCH
// answers (or BATCH_MS after the batch's first), committed by lmdb's write thread. A committed
// batch's Map is let go whole: nothing is deleted an answer at a time. Until then the answers are
// read from here (unwritten): this process reads its own writes at once.
import type { RootDatabase } from 'lmdb';
import type { Key, Stored } from './answer-keys.js';
import type { OpenGate } from './open-gate.js';

/** Answers per write transaction, and the longest an answer waits for its batch. */
const BATCH = 1024;
const BATCH_MS = 100;
/** At most this many answers left at close are committed on the main thread (see commitNow). */
const SYNC_BATCH = 64;

export interface BatchWorld {
  readonly db: RootDatabase;
  readonly gate: OpenGate;
  /** Throws when the disk has no room for a batch (lmdb-store.ts). */
  checkDisk(): void;
  /** The store stops: one warning, no cache. */
  fail(err: unknown): void;
  /** A commit landed: reads from now on must see it. */
  committed(): void;
  /** The shared marks to write ahead of the batch's answers (shared-prefixes.ts). */
  takeMarks(): string[];
}

export class WriteBatches {
  private batch = new Map<Key, Stored>();
  /** Batches handed over and not yet committed, oldest first. */
  private committing: Map<Key, Stored>[] = [];
  private timer: NodeJS.Timeout | undefined;
  private writes: Promise<unknown>[] = [];

  constructor(private readonly w: BatchWorld) {}

  put(key: Key, stored: Stored): void {
    this.batch.set(key, stored);
    if (this.batch.size >= BATCH) this.handOver();
    else if (!this.timer) this.timer = setTimeout(() => this.handOver(), BATCH_MS).unref();
  }

  /** An answer this process put and has not committed yet: the newest for the key. */
  unwritten(key: Key): Stored | undefined {
    let stored = this.batch.get(key);
    for (let i = this.committing.length - 1; stored === undefined && i >= 0; i--) stored = this.committing[i]!.get(key);
    return stored;
  }

  /**
   * Hands the answers put so far to lmdb in one transaction, committed in the background. A
   * `batch`, not a `transaction`: lmdb runs a transaction's callback on the main thread while its
   * write thread holds the file's write lock, so a process leaving (process.exit joins the write
   * thread) with one begun waited for ever, and so did every other numintel process on the cache,
   * for the lock. A batch's writes are queued first and done by the write thread alone.
   */
  private handOver(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    const { db, gate } = this.w;
    const batch = this.batch;
    this.batch = new Map();
    if (batch.size === 0) return;
    try {
      this.w.checkDisk();
    } catch (err) {
      return this.w.fail(err);
    }
    const marks = this.w.takeMarks();
    this.committing.push(batch);
    this.track(
      gate
        .committingAsync(() =>
          db.batch(() => {
            for (const mark of marks) void db.put(mark, 1);
            batch.forEach((stored, key) => void db.put(key, stored));
          }),
        )
        .finally(() => {
          // Reads after this one see the commit: only then may its answers be let go.
          this.w.committed();
          const at = this.committing.indexOf(batch);
          if (at >= 0) this.committing.splice(at, 1);
        }),
    );
  }

  /** A write of lmdb's write thread; a failed one disables the cache. */
  track(write: Promise<unknown>): void {
    const tracked = write.catch((err: unknown) => this.w.fail(err));
    this.writes.push(tracked);
    // Settled writes are dropped now and then, so a million puts do not keep a million promises.
    if (this.writes.length >= 4096) {
      const all = this.writes;
      this.writes = [Promise.all(all)];
    }
  }

  /**
   * Commits the answers put since the last batch in one synchronous transaction on this thread, when
   * they are few and nothing is on its way through lmdb's write thread: a one-number run then never
   * starts libuv's thread pool (four threads) for its one answer, nor waits for a thread's round
   * trip. False when the asynchronous batch is needed.
   */
  private commitNow(): boolean {
    if (this.writes.length > 0 || this.batch.size > SYNC_BATCH) return false;
    clearTimeout(this.timer);
    this.timer = undefined;
    const batch = this.batch;
    this.batch = new Map();
    if (batch.size === 0) return true;
    const { db } = this.w;
    this.w.checkDisk();
    const marks = this.w.takeMarks();
    this.w.gate.committing(() =>
      db.transactionSync(() => {
        for (const mark of marks) db.putSync(mark, 1);
        batch.forEach((stored, key) => db.putSync(key, stored));
      }),
    );
    this.w.committed();
    return true;
  }

  /** Waits for the writes put so far to be committed. */
  async settle(): Promise<void> {
    if (this.commitNow()) return;
    this.handOver();
    const writes = this.writes;
    this.writes = [];
    await Promise.all(writes);
    await this.w.db.flushed;
  }

  /** The store stopped: what was not handed over is dropped. */
  drop(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.batch = new Map();
  }
}
