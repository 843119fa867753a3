// The persistent lookup cache: one LMDB file (lmdb-js) in the cache directory, shared by every
// numintel process of the user. LMDB gives what a cache of paid answers needs and a file of our own
// would not: readers and writers of several processes at once (a lock file and MVCC), commits that
// a kill -9 cannot tear (copy-on-write pages, the meta page written last), and reads straight from
// a memory map (~0.5 million gets a second).
//
// Keys are one number each: the prefix id of (service origin, lookup, options key) times 10^11
// plus the 11-digit number, so a key is a handful of bytes; the prefix ids are kept in the file
// itself ("prefix/<origin> <kind> <options>") and never reused, so processes that allocated them
// at different times agree. A number that is not 11 digits (--no-validate) is keyed "<id>:<digits>".
// Values are [fetchedAt, result] in msgpack with lmdb's shared record structures: each result's
// field names are stored once per shape, not once per entry.
//
// A lookup whose prefix this process created holds only what this process put there until another
// process puts an answer there too, which it marks first ("shared/<id>"): until then its other numbers
// need no read (see unread()). A cold run, or a new lookup's first run, so reads nothing of the file:
// a miss in a large file costs the main thread ~1-3 µs a row, the most of the cache's cost in a
// cold run (README).
//
// Runs of a few numbers leave their answers in pending/ without opening LMDB (light-store.ts): a
// store that opens the file for writing moves them in (merge), a reader reads them beside it.
import { chmodSync, closeSync, openSync, statSync, statfsSync } from 'node:fs';
import { platform } from 'node:os';
import { join } from 'node:path';
import type { GetOptions, RootDatabase, Transaction } from 'lmdb';
import type { Clock } from '../core/clock.js';
import { LOOKUP_KINDS, isLookupKind, type LookupKind } from '../core/lookups.js';
import { defaultMaxAge, type MaxAge } from '../settings/max-age.js';
import { NumberSet } from '../core/number-set.js';
import { SlottedStore, type AnswerSlot, type CachedAnswer } from './answer-store.js';
import { CACHE_FILE_NAME, makeDir } from './cache-dir.js';
import { checkLmdbFile, markLmdbFileChecked } from './lmdb-file.js';
import { loadLmdb } from './lmdb-module.js';
import { OpenGate, type ProcessTable } from './open-gate.js';
import { holdAnswers, newer, pendingDir, readPending, removePending, type HeldAnswers, type PendingAnswer, type Stored } from './pending-answers.js';

/** Answers per write transaction, and the longest an answer waits for its batch. */
const BATCH = 1024;
const BATCH_MS = 100;
/** At most this many answers left at close are committed on the main thread (see writeBatchNow). */
const SYNC_BATCH = 64;

/** Prefix id × STRIDE + number: 11-digit numbers (< 2·10^10) fit below STRIDE, ids up to 90 000 below 2^53. */
const STRIDE = 1e11;
const ELEVEN = /^1\d{10}$/;
const ODD_KEY = /^(\d+):/;
export const PREFIX = 'prefix/';
const NEXT_PREFIX = 'next-prefix';
const PRUNED_AT = 'pruned-at';
const DAY = 86_400_000;
/** How often a lookup with no answers in the cache yet is looked for again. */
const PREFIX_RECHECK_MS = 1000;
/** The longest the answers' reads stay in one read transaction: what other processes commit is seen after at most this. */
const SNAPSHOT_MS = 1000;
const SHARED = 'shared/';
/** How often a store that reads nothing of the lookups it created looks whether another process put answers there (see unread). */
const SHARED_RECHECK_MS = 1000;
/** The map when it is written in place (see openDb): four times the pages in use, to a power of two, and at least this. */
const MIN_WRITE_MAP = 2 ** 30;
/** Free space a batch written through the map must leave on the disk (see checkDisk). */
const DISK_MARGIN = 64 * 2 ** 20;

export interface LmdbStoreOptions {
  readonly dir: string;
  /** The service's origin (scheme://host:port): answers of one service never answer another's. */
  readonly origin: string;
  readonly clock: Clock;
  readonly maxAge?: MaxAge;
  /** --refresh: get answers nothing, put stores what comes back. */
  readonly refresh?: boolean;
  /** Opens an existing cache for reading only (dry runs, stats): a missing one is not created. */
  readonly readOnly?: boolean;
  /** Called at most once, when the cache cannot be used; the store then answers and keeps nothing. */
  readonly warn: (message: string) => void;
  /** Write pages in place in a writable map (see openDb); default: on Linux. */
  readonly writeMap?: boolean;
  /** Free bytes on the disk of `dir` (statfs); tests pass their own. */
  readonly freeBytes?: (dir: string) => number;
  /** This process and which others run: tells the markers of open-gate.ts left by a killed process at once (else after a while). */
  readonly processes?: ProcessTable;
}

export interface KindStats {
  entries: number;
  fresh: number;
  expired: number;
}

export interface CacheStats {
  readonly path: string;
  readonly bytes: number;
  readonly entries: number;
  readonly kinds: Readonly<Record<LookupKind, KindStats>>;
  readonly maxAge: MaxAge;
  readonly prunedAt?: number;
}

type Key = number | string;

/** The key of a number's answer under the lookup (prefix) `id`. */
export function answerKey(id: number, number: string): Key {
  return ELEVEN.test(number) ? id * STRIDE + Number(number) : `${id}:${number}`;
}

/** What went wrong in words, without a stack. */
export function reason(err: unknown): string {
  const e = err as NodeJS.ErrnoException;
  return e?.code && !String(e.message).includes(e.code) ? `${e.code}: ${e.message}` : String(e?.message ?? err);
}

/** What the user can do about it: clearing helps a damaged file, not a place numintel may not write. */
export function remedy(err: unknown): string {
  const code = (err as NodeJS.ErrnoException)?.code;
  if (code === 'ENOSPC') return 'the disk is full';
  if (code === 'EACCES' || code === 'EPERM' || code === 'EROFS') return 'numintel may not write there: NUMINTEL_CACHE_DIR chooses another place';
  if (code === 'ENOTDIR' || code === 'EISDIR') return 'something else is in its place: NUMINTEL_CACHE_DIR chooses another';
  if (code === 'ENOENT') return 'its directory cannot be made there: NUMINTEL_CACHE_DIR chooses another place';
  return '`numintel cache clear` starts it afresh';
}

export class LmdbAnswerStore extends SlottedStore {
  readonly path: string;
  private db: RootDatabase | undefined;
  private broken = false;
  /** Why the cache cannot be used and what helps, once it cannot: `numintel cache` fails with it. */
  failure: { readonly reason: string; readonly remedy: string } | undefined;
  /** Something was put: closing then prunes, when a prune is due. */
  private wrote = false;
  /** Pages are written in place in the map (see openDb). */
  private writeMap = false;
  private readonly maxAge: MaxAge;
  /** Prefix ids known to this process, by "<origin> <kind> <options>", and kinds by id. */
  private readonly ids = new Map<string, number>();
  private readonly kinds = new Map<number, LookupKind>();
  /**
   * The prefixes this store created, by id, each with the keys it put there, until another store
   * (of this process or another) marks that it put answers there too: see unread().
   */
  private readonly own = new Map<number, NumberSet>();
  private ownCheckedAt = -Infinity;
  /**
   * Prefixes this store puts answers under and did not create, looked at once each: the shared marks
   * not in the file yet are written in the first batch that puts there.
   */
  private readonly marked = new Set<number>();
  private unwrittenMarks: string[] = [];
  private pending: Promise<unknown>[] = [];
  /** A reader's copy of the answers waiting in pending/ (pending-answers.ts), read with the file's. */
  private waiting: HeldAnswers | undefined;
  /**
   * Answers put since the last batch was handed to lmdb (one transaction per BATCH of them), and
   * the batches handed over and not yet committed, oldest first: this process reads its own writes
   * at once. A committed batch's Map is let go whole: nothing is deleted an answer at a time.
   */
  private batch = new Map<Key, Stored>();
  private committing: Map<Key, Stored>[] = [];
  /** A batch is handed over at the latest BATCH_MS after its first answer (other processes read it then). */
  private batchTimer: NodeJS.Timeout | undefined;
  /** The read transaction the answers are read in, as lmdb's read options, and the timer that ends it (see snapshot()). */
  private readOptions: { readonly transaction: Transaction } | undefined;
  private snapshotTimer: NodeJS.Timeout | undefined;

  /** Opens and commits of numintel's processes kept apart (open-gate.ts: LMDB loses a commit that lands in another process's open). */
  private readonly gate: OpenGate;

  private constructor(private readonly opts: LmdbStoreOptions) {
    super();
    this.path = join(opts.dir, CACHE_FILE_NAME);
    this.gate = new OpenGate(this.path, opts.processes);
    this.maxAge = opts.maxAge ?? defaultMaxAge();
  }

  /** Never throws: a cache that cannot be opened warns once and answers nothing. */
  static async open(opts: LmdbStoreOptions): Promise<LmdbAnswerStore> {
    return LmdbAnswerStore.openNow(opts);
  }

  /** open() on this thread, at once: a light store's move to LMDB in the middle of a run (light-store.ts). */
  static openNow(opts: LmdbStoreOptions): LmdbAnswerStore {
    const store = new LmdbAnswerStore(opts);
    store.openDb();
    return store;
  }

  /** True when the cache is open and usable. */
  get usable(): boolean {
    return this.db !== undefined && !this.broken;
  }

  private openDb(): void {
    const { dir, readOnly } = this.opts;
    try {
      // A reader reads the answers light runs left too; a writer moves them into the file (below).
      if (readOnly) {
        this.waiting = holdAnswers(readPending(pendingDir(dir)).answers);
        // An empty file holds no answers, and LMDB opened read-only on one crashes the process
        // (SIGSEGV) instead of making a new database as a writer does.
        if (fileBytes(this.path) === 0) return;
      } else {
        prepareFiles(dir, this.path);
      }
      const check = checkLmdbFile(this.path, !readOnly);
      if (check.problem !== undefined) throw new Error(`${this.path} is damaged: ${check.problem}`);
      this.writeMap = !readOnly && (this.opts.writeMap ?? platform() === 'linux');
      this.checkDisk();
      const { open } = loadLmdb();
      this.db = this.gate.opening(() => open({
        path: this.path,
        compression: false,
        sharedStructuresKey: Symbol.for('structures'),
        // Commits are not synced one by one: close() syncs them all (syncToDisk). Answers arrive in
        // random key order, so each commit of 1,024 rewrites about as many pages, and a sync per
        // commit sends them all: a million answers put by lmdb alone wrote 8.9 GB to the disk (left
        // to the kernel, which writes a page once however often it was rewritten: 156 MB; README,
        // the cache's cost in a cold run). A killed process loses nothing it committed (the kernel holds it); a
        // power cut or OS crash during a run may lose its answers or damage the file, which the
        // next open finds (the file is walked unless its last writer closed it) and reports once.
        noSync: true,
        ...(this.writeMap
          ? {
              // Pages changed in place in a writable map, not copied and then written with pwrite:
              // a put costs a cold run ~3 µs of CPU instead of ~8 (README, the cache's cost in a
              // cold run). The file is as large as the map (sparse: pages not in use take no disk),
              // so the map is sized to the cache. LMDB grows a full map by itself, but each
              // larger map comes on top of the earlier ones, whose pages stay resident (a cold
              // 1M-row run grown from lmdb's 128 KiB peaked at 496 MB instead of 308 MB).
              useWritemap: true,
              mapSize: Math.max(MIN_WRITE_MAP, 2 ** Math.ceil(Math.log2(4 * check.usedBytes + 1))),
            }
          : // Address space, not memory: a map that never has to grow (see above).
            { mapSize: 2 ** 36 }),
        ...(readOnly ? { readOnly: true } : {}),
      }));
      if (!readOnly) {
        // lmdb-js's open to write truncates the file to its map size, which sets its modification
        // time even at the same size: the file as this open left it is the one just checked, and
        // remembering it spares the next open a walk (a run that only reads, a cache hit, writes
        // nothing else to mark it).
        markLmdbFileChecked(this.path);
        // Prefix ids are read as needed (a one-number run reads one); stats, prune and clear read them all.
        this.mergePending();
      }
    } catch (err) {
      this.fail(err);
    }
  }

  /**
   * With the map written in place, a write into a part of the file not yet on disk while the disk
   * is full is not an error LMDB could return: the kernel ends the process (SIGBUS). So the store
   * opens, and hands over each batch of writes (a few MB at most), only while the disk keeps
   * DISK_MARGIN free; else this throws, and the store stops as on ENOSPC.
   */
  private checkDisk(): void {
    if (!this.writeMap) return;
    let free: number;
    try {
      free = (this.opts.freeBytes ?? diskFreeBytes)(this.opts.dir);
    } catch {
      return;
    }
    if (free < DISK_MARGIN) throw Object.assign(new Error(`less than ${DISK_MARGIN / 2 ** 20} MB is free on its disk`), { code: 'ENOSPC' });
  }

  /** Once: one warning, then no cache. The database is left as it is for `numintel cache clear`. */
  private fail(err: unknown): void {
    if (this.broken) return;
    this.broken = true;
    const db = this.db;
    this.db = undefined;
    try {
      this.releaseSnapshot();
      void db?.close().catch(() => undefined);
    } catch {
      // closing a broken database may fail too; nothing more to do
    }
    this.failure = { reason: reason(err), remedy: remedy(err) };
    this.opts.warn(`the lookup cache cannot be used (${this.failure.reason}); going on without it (${this.failure.remedy})`);
  }

  private loadPrefixes(): void {
    if (!this.db) return;
    for (const { key, value } of this.db.getRange({ start: PREFIX, end: `${PREFIX}\uffff` })) {
      const name = String(key).slice(PREFIX.length);
      const kind = name.split(' ')[1] ?? '';
      if (typeof value === 'number' && isLookupKind(kind)) {
        this.ids.set(name, value);
        this.kinds.set(value, kind);
      }
    }
  }

  /** The id of a prefix; allocated (in a write transaction, so processes agree) only when `create`. */
  private prefixId(name: string, create: boolean): number | undefined {
    const known = this.ids.get(name);
    if (known !== undefined || !this.db) return known;
    const db = this.db;
    if (create) this.checkDisk();
    let created = false;
    const id = create
      ? this.gate.committing(() => db.transactionSync(() => {
          const there = db.get(PREFIX + name) as number | undefined;
          if (there !== undefined) return there;
          const next = (db.get(NEXT_PREFIX) as number | undefined) ?? 1;
          if (next * STRIDE >= Number.MAX_SAFE_INTEGER) throw new Error('too many services and option sets in one cache');
          db.putSync(PREFIX + name, next);
          db.putSync(NEXT_PREFIX, next + 1);
          created = true;
          return next;
        }))
      : (db.get(PREFIX + name) as number | undefined);
    if (created) this.own.set(id as number, new NumberSet());
    if (id !== undefined) {
      this.ids.set(name, id);
      this.kinds.set(id, name.split(' ')[1] as LookupKind);
    }
    return id;
  }

  /**
   * True when the key cannot be in the file, so it needs no read: its prefix was created by this
   * store, which has not put the key there, and no other store had marked the prefix shared when
   * this one last looked (at most SHARED_RECHECK_MS ago). Another store marks it in the batch of its
   * first answer there, so an answer it put is seen as soon as that batch is committed and looked for.
   */
  private unread(id: number, key: Key): boolean {
    if (this.own.size === 0) return false;
    this.lookForMarks();
    const mine = this.own.get(id);
    if (mine === undefined) return false;
    return typeof key === 'number' ? !mine.hasWhole(key) : !mine.hasOther(key);
  }

  /** At most every SHARED_RECHECK_MS: the prefixes of this store that another marked shared are then read like any other. */
  private lookForMarks(): void {
    const now = this.opts.clock.now();
    if (now - this.ownCheckedAt < SHARED_RECHECK_MS) return;
    this.ownCheckedAt = now;
    // In a read transaction begun now: the answers' (see snapshot()) may be a second old, and
    // lmdb's own is renewed only once a turn.
    this.releaseSnapshot();
    this.db?.resetReadTxn();
    for (const own of this.own.keys()) if (this.db?.get(SHARED + own) !== undefined) this.own.delete(own);
  }

  /**
   * This store puts the key: a later read of it must look (see unread); a prefix it did not create
   * is marked shared, unless it already is (a run per number would otherwise rewrite the mark's page
   * in every commit).
   */
  private putHere(id: number, key: Key): void {
    const mine = this.own.get(id);
    if (mine !== undefined) {
      if (typeof key === 'number') mine.addWhole(key);
      else mine.addOther(key);
    } else if (!this.marked.has(id)) {
      this.marked.add(id);
      if ((this.db as RootDatabase).get(SHARED + id) === undefined) this.unwrittenMarks.push(SHARED + id);
    }
  }

  /** Moves the answers waiting in pending/ into the file, then removes the files it read (not before: see pending-answers.ts). */
  private mergePending(): void {
    const dir = pendingDir(this.opts.dir);
    const { files, answers } = readPending(dir);
    if (files.length > 0 && this.merge(answers)) removePending(dir, files);
  }

  /**
   * Puts answers fetched without this store (a light run's: light-store.ts) in one transaction,
   * each unless the file holds a newer one for its number. True once committed; never throws (a
   * refusal is the store's one warning).
   */
  merge(answers: readonly PendingAnswer[]): boolean {
    const db = this.db;
    if (!db) return false;
    // Nothing to move in (a light run whose number was in the file): no write transaction, so the
    // run's close neither syncs the file nor marks it checked — a cache hit writes nothing.
    if (answers.length === 0) return true;
    try {
      this.checkDisk();
      // The newest of each number's answers (several files may hold one), and the prefixes first:
      // allocating one is a transaction of its own.
      const held = holdAnswers(answers);
      const ids = new Map([...held.keys()].map((lookup) => [lookup, this.prefixId(lookup, true) as number]));
      this.gate.committing(() => db.transactionSync(() => {
        const puts: [Key, Stored][] = [];
        for (const [lookup, byNumber] of held) {
          const id = ids.get(lookup) as number;
          for (const [number, stored] of byNumber) {
            const key = answerKey(id, number);
            const there = db.get(key) as Stored | undefined;
            if (there && there[0] >= stored[0]) continue;
            this.putHere(id, key);
            puts.push([key, stored]);
          }
        }
        // The shared marks ahead of the answers (see putHere).
        for (const mark of this.takeMarks()) db.putSync(mark, 1);
        for (const [key, stored] of puts) db.putSync(key, stored);
      }));
    } catch (err) {
      this.fail(err);
      return false;
    }
    this.wrote = true;
    this.releaseSnapshot();
    return true;
  }

  /** The shared marks not written yet, put ahead of a batch's answers (in its transaction). */
  private takeMarks(): string[] {
    const marks = this.unwrittenMarks;
    this.unwrittenMarks = [];
    return marks;
  }

  protected makeSlot(kind: LookupKind, opts: string): AnswerSlot {
    const name = `${this.opts.origin} ${kind} ${opts}`;
    const maxAge = this.maxAge[kind];
    const refresh = this.opts.refresh === true;
    let id: number | undefined;
    // A prefix not in the file is looked for again at most once a second, not on every row's read
    // (a dry run over a cache without this lookup, the first rows of a cold run), so answers
    // another process begins to put for it are seen soon; a put allocates it.
    let lookedAt = -Infinity;
    const keyOf = (number: string, create: boolean): Key | undefined => {
      if (id === undefined) {
        const now = this.opts.clock.now();
        if (create || now - lookedAt >= PREFIX_RECHECK_MS) {
          id = this.prefixId(name, create);
          lookedAt = now;
        }
      }
      return id === undefined ? undefined : answerKey(id, number);
    };
    const fresh = (fetchedAt: number) => this.opts.clock.now() - fetchedAt <= maxAge;
    /** A reader's: the answer a light run left for the number, waiting to go into the file. */
    const waitingFor = (number: string): Stored | undefined => (this.broken ? undefined : this.waiting?.get(name)?.get(number));
    /** What is held for the number, fresh or not: put by this process and not yet committed, or in the file (or waiting for it). */
    const heldAnswer = (number: string): CachedAnswer | undefined => {
      const waiting = waitingFor(number);
      if (!this.db) return waiting && { result: waiting[1], fetchedAt: waiting[0] };
      try {
        const key = keyOf(number, false);
        const held = key === undefined || this.unread(id as number, key) ? undefined : (this.unwritten(key) ?? (this.db.get(key, this.snapshot()) as Stored | undefined));
        const newest = newer(held, waiting);
        return newest && { result: newest[1], fetchedAt: newest[0] };
      } catch (err) {
        this.fail(err);
        return undefined;
      }
    };
    return {
      has: (number) => {
        if (refresh) return false;
        const waiting = waitingFor(number);
        if (waiting && fresh(waiting[0])) return true;
        if (!this.db) return false;
        try {
          const key = keyOf(number, false);
          if (key === undefined || this.unread(id as number, key)) return false;
          const pending = this.unwritten(key);
          if (pending) return fresh(pending[0]);
          // msgpack of [fetchedAt, result] starts 0x92 0xcb and the time as a float64: read only that.
          const read = this.snapshot();
          // lmdb's types leave out getBinaryFast's options, which it reads as get's.
          const bytes = (this.db.getBinaryFast as (id: Key, options: GetOptions) => Buffer | undefined).call(this.db, key, read);
          if (!bytes) return false;
          if (bytes.length >= 10 && bytes[0] === 0x92 && bytes[1] === 0xcb) return fresh(bytes.readDoubleBE(2));
          const stored = this.db.get(key, read) as Stored | undefined;
          return stored !== undefined && fresh(stored[0]);
        } catch (err) {
          this.fail(err);
          return false;
        }
      },
      get: (number) => {
        if (refresh) return undefined;
        const answer = heldAnswer(number);
        return answer && fresh(answer.fetchedAt) ? answer : undefined;
      },
      kept: heldAnswer,
      put: (number, result, fetchedAt) => {
        if (!this.db || this.opts.readOnly) return false;
        try {
          const key = keyOf(number, true);
          if (key === undefined) return false;
          const stored: Stored = [fetchedAt, result];
          this.putHere(id as number, key);
          this.wrote = true;
          this.batch.set(key, stored);
          if (this.batch.size >= BATCH) this.writeBatch();
          else if (!this.batchTimer) this.batchTimer = setTimeout(() => this.writeBatch(), BATCH_MS).unref();
          return true;
        } catch (err) {
          this.fail(err);
          return false;
        }
      },
    };
  }

  /**
   * Hands the answers put so far to lmdb in one transaction (a promise and a commit per batch, not
   * per answer: a cold run puts an answer per row), committed in the background. A `batch`, not a
   * `transaction`: lmdb runs a transaction's callback on the main thread while its write thread
   * holds the file's write lock, so a process leaving (process.exit joins the write thread) with
   * one begun waited for ever, and so did every other numintel process on the cache, for the lock.
   * A batch's writes are queued first and done by the write thread alone.
   */
  private writeBatch(): void {
    clearTimeout(this.batchTimer);
    this.batchTimer = undefined;
    const db = this.db;
    const batch = this.batch;
    this.batch = new Map();
    if (!db || batch.size === 0) return;
    try {
      this.checkDisk();
    } catch (err) {
      return this.fail(err);
    }
    const marks = this.takeMarks();
    this.committing.push(batch);
    this.track(
      this.gate
        .committingAsync(() =>
          db.batch(() => {
            for (const mark of marks) void db.put(mark, 1);
            batch.forEach((stored, key) => void db.put(key, stored));
          }),
        )
        .finally(() => {
          // Reads after this one see the commit: only then may its answers be let go.
          this.releaseSnapshot();
          const at = this.committing.indexOf(batch);
          if (at >= 0) this.committing.splice(at, 1);
        }),
    );
  }

  /** An answer this process put and has not committed yet: the newest for the key. */
  private unwritten(key: Key): Stored | undefined {
    let stored = this.batch.get(key);
    for (let i = this.committing.length - 1; stored === undefined && i >= 0; i--) stored = this.committing[i]!.get(key);
    return stored;
  }

  /**
   * The read transaction the answers are read in. Left to itself, lmdb begins a read transaction
   * in each turn of the event loop that reads, and a timer resets it after the turn; a run reads a
   * row or a few a turn, so in a cold run of a million rows, with lmdb's write thread committing
   * beside it, that renewal cost more than the reads (see README, the cache's cost in a cold run).
   * One transaction is kept instead, let go as soon as a commit of this process lands, before that
   * commit's answers are let go (every answer this process put is then read either from its batch
   * or in the file), and by a timer SNAPSHOT_MS after it was begun: other processes' commits are seen
   * a second later at most, and a run that stops reading (waiting at a rate limit, say) does not
   * keep LMDB from reusing the pages commits free.
   */
  private snapshot(): { readonly transaction: Transaction } {
    if (!this.readOptions) {
      this.readOptions = { transaction: (this.db as RootDatabase).useReadTransaction() };
      this.snapshotTimer = setTimeout(() => this.releaseSnapshot(), SNAPSHOT_MS).unref();
    }
    return this.readOptions;
  }

  private releaseSnapshot(): void {
    clearTimeout(this.snapshotTimer);
    this.snapshotTimer = undefined;
    const txn = this.readOptions?.transaction;
    this.readOptions = undefined;
    txn?.done();
  }

  /** Writes are batched by lmdb and committed in the background; a failed one disables the cache. */
  private track(write: Promise<unknown>): void {
    const tracked = write.catch((err: unknown) => this.fail(err));
    this.pending.push(tracked);
    // Settled writes are dropped now and then, so a million puts do not keep a million promises.
    if (this.pending.length >= 4096) {
      const batch = this.pending;
      this.pending = [];
      this.pending.push(Promise.all(batch));
    }
  }

  /**
   * Commits the answers put since the last batch in one synchronous transaction on this thread, when
   * they are few and nothing is on its way through lmdb's write thread: a one-number run (a script
   * starting numintel per number) then never starts libuv's thread pool (four threads) for its one
   * answer, nor waits for a thread's round trip. Returns false when the asynchronous batch is needed.
   */
  private writeBatchNow(): boolean {
    const db = this.db;
    if (!db || this.pending.length > 0 || this.batch.size > SYNC_BATCH) return false;
    clearTimeout(this.batchTimer);
    this.batchTimer = undefined;
    const batch = this.batch;
    this.batch = new Map();
    if (batch.size === 0) return true;
    this.checkDisk();
    const marks = this.takeMarks();
    this.gate.committing(() =>
      db.transactionSync(() => {
        for (const mark of marks) db.putSync(mark, 1);
        batch.forEach((stored, key) => db.putSync(key, stored));
      }),
    );
    this.releaseSnapshot();
    return true;
  }

  /** Waits for the writes put so far to be committed. */
  private async settle(): Promise<void> {
    if (this.writeBatchNow()) return;
    this.writeBatch();
    const pending = this.pending;
    this.pending = [];
    await Promise.all(pending);
    await this.db?.flushed;
  }

  /** Each entry with its kind and fetch time (meta entries skipped). */
  private *entries(): Generator<{ key: Key; kind: LookupKind | undefined; fetchedAt: number }> {
    if (!this.db) return;
    for (const { key, value } of this.db.getRange({}) as Iterable<{ key: unknown; value: unknown }>) {
      let id: number | undefined;
      if (typeof key === 'number') id = Math.floor(key / STRIDE);
      else if (typeof key === 'string') {
        const m = ODD_KEY.exec(key);
        if (m) id = Number(m[1]);
      }
      if (id === undefined) continue;
      const fetchedAt = Array.isArray(value) && typeof value[0] === 'number' ? value[0] : 0;
      yield { key: key as Key, kind: this.kinds.get(id), fetchedAt };
    }
  }

  private isFresh(kind: LookupKind | undefined, fetchedAt: number, now: number): boolean {
    return kind !== undefined && now - fetchedAt <= this.maxAge[kind];
  }

  /**
   * Removes expired entries (and any of an unknown prefix): how many went, and how many are left,
   * counted in the same pass.
   */
  async prune(): Promise<{ removed: number; left: number }> {
    if (!this.db || this.opts.readOnly) return { removed: 0, left: 0 };
    const db = this.db;
    try {
      await this.settle();
      this.loadPrefixes();
      const now = this.opts.clock.now();
      const doomed: Key[] = [];
      let left = 0;
      for (const e of this.entries()) {
        if (this.isFresh(e.kind, e.fetchedAt, now)) left += 1;
        else doomed.push(e.key);
      }
      await this.removeAll(doomed);
      await this.gate.committingAsync(() => db.put(PRUNED_AT, now));
      return { removed: doomed.length, left };
    } catch (err) {
      this.fail(err);
      return { removed: 0, left: 0 };
    }
  }

  /** Prunes when the cache was last pruned a day ago or more (bookkept in the file, for every process). */
  async pruneIfDue(): Promise<boolean> {
    if (!this.db || this.opts.readOnly) return false;
    try {
      const last = this.db.get(PRUNED_AT) as number | undefined;
      const now = this.opts.clock.now();
      if (last === undefined) {
        // A new cache has nothing old: the first prune is due a day from now.
        this.checkDisk();
        const db = this.db;
        this.gate.committing(() => db.putSync(PRUNED_AT, now));
        return false;
      }
      if (now - last < DAY) return false;
    } catch (err) {
      this.fail(err);
      return false;
    }
    await this.prune();
    return true;
  }

  /** Removes every entry, or those of one lookup; returns how many went. */
  async clear(kind?: LookupKind): Promise<number> {
    if (!this.db || this.opts.readOnly) return 0;
    try {
      await this.settle();
      this.loadPrefixes();
      const doomed: Key[] = [];
      for (const e of this.entries()) if (kind === undefined || e.kind === kind) doomed.push(e.key);
      await this.removeAll(doomed);
      return doomed.length;
    } catch (err) {
      this.fail(err);
      return 0;
    }
  }

  private async removeAll(keys: readonly Key[]): Promise<void> {
    const db = this.db as RootDatabase;
    // Large batches in a few commits: a commit per key would rewrite the tree a million times.
    // Batches, not transactions, for the reason writeBatch gives.
    for (let i = 0; i < keys.length; i += 10_000) {
      const batch = keys.slice(i, i + 10_000);
      this.checkDisk();
      await this.gate.committingAsync(() =>
        db.batch(() => {
          for (const key of batch) void db.remove(key);
        }),
      );
    }
  }

  /** Entries per lookup, fresh and expired at the store's max ages, and the bytes the file uses. */
  async stats(): Promise<CacheStats> {
    const kinds = Object.fromEntries(LOOKUP_KINDS.map((k) => [k, { entries: 0, fresh: 0, expired: 0 }])) as Record<LookupKind, KindStats>;
    let entries = 0;
    let prunedAt: number | undefined;
    try {
      await this.settle();
      this.loadPrefixes();
      const now = this.opts.clock.now();
      const count = (kind: LookupKind | undefined, fetchedAt: number) => {
        entries += 1;
        if (!kind) return;
        const k = kinds[kind];
        k.entries += 1;
        if (this.isFresh(kind, fetchedAt, now)) k.fresh += 1;
        else k.expired += 1;
      };
      for (const e of this.entries()) count(e.kind, e.fetchedAt);
      // A reader's answers waiting in pending/, those the file does not hold yet.
      for (const [lookup, byNumber] of this.waiting ?? []) {
        const id = this.ids.get(lookup);
        const kind = lookup.split(' ')[1] ?? '';
        for (const [number, [fetchedAt]] of byNumber) {
          if (id === undefined || this.db?.get(answerKey(id, number)) === undefined) count(isLookupKind(kind) ? kind : undefined, fetchedAt);
        }
      }
      prunedAt = this.db?.get(PRUNED_AT) as number | undefined;
    } catch (err) {
      this.fail(err);
    }
    return { path: this.path, bytes: this.usedBytes(), entries, kinds, maxAge: this.maxAge, ...(prunedAt === undefined ? {} : { prunedAt }) };
  }

  /** The pages in use: a file written through the map is as large as the map, its unused part sparse. */
  private usedBytes(): number {
    try {
      const s = this.db?.getStats() as { lastPageNumber?: number; pageSize?: number } | undefined;
      if (s?.lastPageNumber !== undefined && s.pageSize) return (s.lastPageNumber + 1) * s.pageSize;
    } catch {
      // the file's size then
    }
    return fileBytes(this.path);
  }

  /** What this process committed, to the disk (commits are not synced one by one: see openDb). */
  private syncToDisk(): void {
    // The environment's own sync without a callback is mdb_env_sync on this thread: no thread pool.
    const env = (this.db as unknown as { env?: { sync?(): void } } | undefined)?.env;
    env?.sync?.();
  }

  /**
   * Commits what was put and releases the file. A store that wrote also prunes, when a day has
   * passed since the cache was last pruned: expired entries go now and then without being asked.
   */
  async close(): Promise<void> {
    if (!this.db) return;
    try {
      await this.settle();
      if (this.wrote) {
        await this.pruneIfDue();
        this.syncToDisk();
      }
    } catch (err) {
      this.fail(err);
    }
    const db = this.db;
    if (!db) return;
    this.db = undefined;
    try {
      this.releaseSnapshot();
    } catch {
      // a transaction the closing aborts anyway
    }
    await db.close().catch(() => undefined);
    // The file as this process left it is whole: the next open need not walk it.
    if (this.wrote && !this.broken) markLmdbFileChecked(this.path);
  }
}

/** The directory (0700 when made here) and the data and lock files, 0600, before LMDB opens them. */
function prepareFiles(dir: string, path: string): void {
  makeDir(dir);
  for (const file of [path, `${path}-lock`]) {
    closeSync(openSync(file, 'a', 0o600));
    // A file made by an older umask-following version, or copied in, is made private too.
    if ((statSync(file).mode & 0o077) !== 0) chmodSync(file, 0o600);
  }
}

function diskFreeBytes(dir: string): number {
  const s = statfsSync(dir);
  return s.bavail * s.bsize;
}

function fileBytes(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
}
