// The persistent lookup cache: one LMDB file (lmdb-js) in the cache directory, shared by every
// numintel process of the user. LMDB gives what a cache of paid answers needs and a file of our own
// would not: readers and writers of several processes at once (a lock file and MVCC), commits that
// a kill -9 cannot tear (copy-on-write pages, the meta page written last), and reads straight from
// a memory map. Every read and write of the cache goes through this store.
//
// Its parts: the files checked before LMDB opens them (cache-files.ts, lmdb-file.ts), opens kept
// apart from other processes' commits (open-gate.ts), the key layout (answer-keys.ts), the read
// transaction (read-snapshot.ts), reads it can skip (shared-prefixes.ts), writes in batches
// (write-batches.ts), and pruning and counting (cache-maintenance.ts).
import { platform } from 'node:os';
import type { GetOptions, RootDatabase } from 'lmdb';
import type { Clock } from '../core/clock.js';
import { LOOKUP_KINDS, isLookupKind, type LookupKind } from '../core/lookups.js';
import { defaultMaxAge, type MaxAge } from '../settings/max-age.js';
import { NEXT_PREFIX, PREFIX, PRUNED_AT, STRIDE, answerKey, kindOfName, lookupName, type Key, type Stored } from './answer-keys.js';
import { SlottedStore, type AnswerSlot, type CachedAnswer } from './answer-store.js';
import { DamagedCacheError, cacheFailure, type CacheFailure } from './cache-failure.js';
import { cacheFilePath, diskFreeBytes, fileBytes, prepareCacheFiles } from './cache-files.js';
import { entries, removeAll, usedBytes, type OpenCache } from './cache-maintenance.js';
import { isFresh, isShowableTime } from './freshness.js';
import { checkLmdbFile, markLmdbFileChecked } from './lmdb-file.js';
import { openLmdb } from './lmdb-open.js';
import { OpenGate, type ProcessTable } from './open-gate.js';
import { ReadSnapshot } from './read-snapshot.js';
import { SharedPrefixes } from './shared-prefixes.js';
import { WriteBatches } from './write-batches.js';

const DAY = 86_400_000;
/** How often a lookup with no answers in the cache yet is looked for again. */
const PREFIX_RECHECK_MS = 1000;
/** Free space a batch written through the map must leave on the disk (see checkDisk). */
const DISK_MARGIN = 64 * 2 ** 20;

export interface LmdbStoreOptions {
  readonly dir: string;
  /** The service (answer-keys.ts serviceOf): answers of one service never answer another's. */
  readonly service: string;
  readonly clock: Clock;
  readonly maxAge?: MaxAge;
  /** --refresh: get answers nothing, put stores what comes back. */
  readonly refresh?: boolean;
  /** Opens an existing cache for reading only (dry runs, stats): a missing one is not created. */
  readonly readOnly?: boolean;
  /** Called at most once, when the cache cannot be used; the store then answers and keeps nothing. */
  readonly warn: (message: string) => void;
  /** Write pages in place in a writable map (lmdb-open.ts); default: on Linux. */
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

/** The parts of an open store, there while it is usable. */
interface Open extends OpenCache {
  readonly snapshot: ReadSnapshot;
  readonly shared: SharedPrefixes;
  readonly batches: WriteBatches;
}

export class LmdbAnswerStore extends SlottedStore {
  readonly path: string;
  private open: Open | undefined;
  private broken = false;
  /** Why the cache cannot be used and what helps, once it cannot: `numintel cache` fails with it. */
  failure: CacheFailure | undefined;
  /** Something was put: closing then prunes, when a prune is due. */
  private wrote = false;
  /** Pages are written in place in the map (lmdb-open.ts). */
  private writeMap = false;
  private readonly maxAge: MaxAge;
  /** Prefix ids known to this process, by lookup name, and kinds by id. */
  private readonly ids = new Map<string, number>();
  private readonly kinds = new Map<number, LookupKind>();
  /** Opens and commits of numintel's processes kept apart (open-gate.ts: LMDB loses a commit that lands in another process's open). */
  private readonly gate: OpenGate;

  private constructor(private readonly opts: LmdbStoreOptions) {
    super();
    this.path = cacheFilePath(opts.dir);
    this.gate = new OpenGate(this.path, opts.processes);
    this.maxAge = opts.maxAge ?? defaultMaxAge();
  }

  /** Never throws: a cache that cannot be opened warns once and answers nothing. */
  static async open(opts: LmdbStoreOptions): Promise<LmdbAnswerStore> {
    const store = new LmdbAnswerStore(opts);
    store.openFile();
    return store;
  }

  /** True when the cache is open and usable. */
  get usable(): boolean {
    return this.open !== undefined;
  }

  private openFile(): void {
    const readOnly = this.opts.readOnly === true;
    try {
      prepareCacheFiles(this.opts.dir, this.path, readOnly);
      // An empty file holds no answers, and LMDB opened read-only on one crashes the process
      // (SIGSEGV) instead of making a new database as a writer does.
      if (readOnly && fileBytes(this.path) === 0) return;
      const check = checkLmdbFile(this.path, !readOnly);
      if (check.problem !== undefined) throw new DamagedCacheError(this.path, check.problem);
      this.writeMap = !readOnly && (this.opts.writeMap ?? platform() === 'linux');
      this.checkDisk();
      const db = this.gate.opening(() => openLmdb({ path: this.path, readOnly, writeMap: this.writeMap, usedBytes: check.usedBytes }));
      const snapshot = new ReadSnapshot(db);
      const shared = new SharedPrefixes(db, this.opts.clock, () => snapshot.release());
      const base = { db, gate: this.gate, kinds: this.kinds, checkDisk: () => this.checkDisk() };
      const batches = new WriteBatches({
        ...base,
        fail: (err) => this.fail(err),
        committed: () => snapshot.release(),
        takeMarks: () => shared.takeMarks(),
      });
      this.open = { ...base, snapshot, shared, batches };
      // lmdb-js's open to write truncates the file to its map size, which sets its modification
      // time even at the same size: the file as this open left it is the one just checked, and
      // remembering it spares the next open a walk (a cache hit writes nothing else to mark it).
      if (!readOnly) markLmdbFileChecked(this.path);
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
    const open = this.open;
    this.open = undefined;
    try {
      open?.batches.drop();
      open?.snapshot.release();
      void open?.db.close().catch(() => undefined);
    } catch {
      // closing a broken database may fail too; nothing more to do
    }
    this.failure = cacheFailure(err);
    this.opts.warn(`the lookup cache cannot be used (${this.failure.reason}); going on without it (${this.failure.remedy})`);
  }

  private loadPrefixes(db: RootDatabase): void {
    for (const { key, value } of db.getRange({ start: PREFIX, end: `${PREFIX}\uffff` })) {
      const name = String(key).slice(PREFIX.length);
      const kind = kindOfName(name);
      if (typeof value === 'number' && isLookupKind(kind)) {
        this.ids.set(name, value);
        this.kinds.set(value, kind);
      }
    }
  }

  /** The id of a prefix; allocated (in a write transaction, so processes agree) only when `create`. */
  private prefixId(open: Open, name: string, create: boolean): number | undefined {
    const known = this.ids.get(name);
    if (known !== undefined) return known;
    const { db } = open;
    if (create) this.checkDisk();
    let created = false;
    const id = create
      ? this.gate.committing(() =>
          db.transactionSync(() => {
            const there = db.get(PREFIX + name) as number | undefined;
            if (there !== undefined) return there;
            const next = (db.get(NEXT_PREFIX) as number | undefined) ?? 1;
            if (next * STRIDE >= Number.MAX_SAFE_INTEGER) throw new Error('too many services and option sets in one cache');
            db.putSync(PREFIX + name, next);
            db.putSync(NEXT_PREFIX, next + 1);
            created = true;
            return next;
          }),
        )
      : (db.get(PREFIX + name) as number | undefined);
    if (created) open.shared.created(id as number);
    if (id !== undefined) {
      this.ids.set(name, id);
      this.kinds.set(id, kindOfName(name) as LookupKind);
    }
    return id;
  }

  protected makeSlot(kind: LookupKind, opts: string): AnswerSlot {
    const name = lookupName(this.opts.service, kind, opts);
    const maxAge = this.maxAge[kind];
    const refresh = this.opts.refresh === true;
    let id: number | undefined;
    // A prefix not in the file is looked for again at most once a second, not on every row's read
    // (a dry run over a cache without this lookup, the first rows of a cold run), so answers
    // another process begins to put for it are seen soon; a put allocates it.
    let lookedAt = -Infinity;
    const keyOf = (open: Open, number: string, create: boolean): Key | undefined => {
      if (id === undefined) {
        const now = this.opts.clock.now();
        if (create || now - lookedAt >= PREFIX_RECHECK_MS) {
          id = this.prefixId(open, name, create);
          lookedAt = now;
        }
      }
      return id === undefined ? undefined : answerKey(id, number);
    };
    const fresh = (fetchedAt: number) => isFresh(fetchedAt, this.opts.clock.now(), maxAge);
    /** What is held for the number, fresh or not: put by this process and not yet committed, or in the file. */
    const held = (number: string): CachedAnswer | undefined => {
      const open = this.open;
      if (!open) return undefined;
      try {
        const key = keyOf(open, number, false);
        if (key === undefined || open.shared.unread(id as number, key)) return undefined;
        const stored = open.batches.unwritten(key) ?? (open.db.get(key, open.snapshot.get()) as Stored | undefined);
        // A date no clock can show is no answer (freshness.ts).
        return stored && isShowableTime(stored[0]) ? { result: stored[1], fetchedAt: stored[0] } : undefined;
      } catch (err) {
        this.fail(err);
        return undefined;
      }
    };
    return {
      has: (number) => {
        const open = this.open;
        if (refresh || !open) return false;
        try {
          const key = keyOf(open, number, false);
          if (key === undefined || open.shared.unread(id as number, key)) return false;
          const unwritten = open.batches.unwritten(key);
          if (unwritten) return fresh(unwritten[0]);
          // msgpack of [fetchedAt, result] starts 0x92 0xcb and the time as a float64: read only that.
          const read = open.snapshot.get();
          // lmdb's types leave out getBinaryFast's options, which it reads as get's.
          const bytes = (open.db.getBinaryFast as (id: Key, options: GetOptions) => Buffer | undefined).call(open.db, key, read);
          if (!bytes) return false;
          if (bytes.length >= 10 && bytes[0] === 0x92 && bytes[1] === 0xcb) return fresh(bytes.readDoubleBE(2));
          const stored = open.db.get(key, read) as Stored | undefined;
          return stored !== undefined && fresh(stored[0]);
        } catch (err) {
          this.fail(err);
          return false;
        }
      },
      get: (number) => {
        if (refresh) return undefined;
        const answer = held(number);
        return answer && fresh(answer.fetchedAt) ? answer : undefined;
      },
      kept: held,
      put: (number, result, fetchedAt) => {
        const open = this.open;
        if (!open || this.opts.readOnly) return false;
        try {
          const key = keyOf(open, number, true);
          if (key === undefined) return false;
          open.shared.put(id as number, key);
          this.wrote = true;
          open.batches.put(key, [fetchedAt, result]);
          return true;
        } catch (err) {
          this.fail(err);
          return false;
        }
      },
    };
  }

  private isFresh(kind: LookupKind | undefined, fetchedAt: number, now: number): boolean {
    return kind !== undefined && isFresh(fetchedAt, now, this.maxAge[kind]);
  }

  /** Removes expired entries (and any of an unknown prefix): how many went, and how many are left, counted in the same pass. */
  async prune(): Promise<{ removed: number; left: number }> {
    const open = this.open;
    if (!open || this.opts.readOnly) return { removed: 0, left: 0 };
    try {
      await open.batches.settle();
      this.loadPrefixes(open.db);
      const now = this.opts.clock.now();
      const doomed: Key[] = [];
      let left = 0;
      for (const e of entries(open)) {
        if (this.isFresh(e.kind, e.fetchedAt, now)) left += 1;
        else doomed.push(e.key);
      }
      await removeAll(open, doomed);
      await this.gate.committingAsync(() => open.db.put(PRUNED_AT, now));
      return { removed: doomed.length, left };
    } catch (err) {
      this.fail(err);
      return { removed: 0, left: 0 };
    }
  }

  /** Prunes when the cache was last pruned a day ago or more (bookkept in the file, for every process). */
  async pruneIfDue(): Promise<boolean> {
    const open = this.open;
    if (!open || this.opts.readOnly) return false;
    try {
      const last = open.db.get(PRUNED_AT) as number | undefined;
      const now = this.opts.clock.now();
      if (last === undefined) {
        // A new cache has nothing old: the first prune is due a day from now.
        this.checkDisk();
        this.gate.committing(() => open.db.putSync(PRUNED_AT, now));
        return false;
      }
      // A date in the future (or none a clock can show) is no reason never to prune.
      if (isFresh(last, now, DAY)) return false;
    } catch (err) {
      this.fail(err);
      return false;
    }
    await this.prune();
    return true;
  }

  /** Removes every entry, or those of one lookup; returns how many went. */
  async clear(kind?: LookupKind): Promise<number> {
    const open = this.open;
    if (!open || this.opts.readOnly) return 0;
    try {
      await open.batches.settle();
      this.loadPrefixes(open.db);
      const doomed: Key[] = [];
      for (const e of entries(open)) if (kind === undefined || e.kind === kind) doomed.push(e.key);
      await removeAll(open, doomed);
      return doomed.length;
    } catch (err) {
      this.fail(err);
      return 0;
    }
  }

  /** Entries per lookup, fresh and expired at the store's max ages, and the bytes the file uses. */
  async stats(): Promise<CacheStats> {
    const kinds = Object.fromEntries(LOOKUP_KINDS.map((k) => [k, { entries: 0, fresh: 0, expired: 0 }])) as Record<LookupKind, KindStats>;
    let count = 0;
    let prunedAt: unknown;
    const open = this.open;
    try {
      if (open) {
        await open.batches.settle();
        this.loadPrefixes(open.db);
        const now = this.opts.clock.now();
        for (const e of entries(open)) {
          count += 1;
          if (!e.kind) continue;
          const k = kinds[e.kind];
          k.entries += 1;
          if (this.isFresh(e.kind, e.fetchedAt, now)) k.fresh += 1;
          else k.expired += 1;
        }
        prunedAt = open.db.get(PRUNED_AT);
      }
    } catch (err) {
      this.fail(err);
    }
    const bytes = usedBytes(this.open?.db) ?? fileBytes(this.path);
    return { path: this.path, bytes, entries: count, kinds, maxAge: this.maxAge, ...(isShowableTime(prunedAt) ? { prunedAt } : {}) };
  }

  /** What this process committed, to the disk (commits are not synced one by one: lmdb-open.ts). */
  private syncToDisk(db: RootDatabase): void {
    // The environment's own sync without a callback is mdb_env_sync on this thread: no thread pool.
    const env = (db as unknown as { env?: { sync?(): void } }).env;
    env?.sync?.();
  }

  /**
   * Commits what was put and releases the file. A store that wrote also prunes, when a day has
   * passed since the cache was last pruned: expired entries go now and then without being asked.
   */
  async close(): Promise<void> {
    if (!this.open) return;
    try {
      await this.open.batches.settle();
      if (this.wrote) {
        await this.pruneIfDue();
        if (this.open) this.syncToDisk(this.open.db);
      }
    } catch (err) {
      this.fail(err);
    }
    const open = this.open;
    if (!open) return;
    this.open = undefined;
    try {
      open.snapshot.release();
    } catch {
      // a transaction the closing aborts anyway
    }
    await open.db.close().catch(() => undefined);
    // The file as this process left it is whole: the next open need not walk it.
    if (this.wrote && !this.broken) markLmdbFileChecked(this.path);
  }
}
