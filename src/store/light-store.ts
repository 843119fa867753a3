// The lookup cache for a run of a few numbers given as arguments (a script starting numintel once
// per number): it opens LMDB only when the cache may answer. Loading, opening, committing to and
// syncing LMDB is most of what the cache adds to such a run's start-up (README, Start-up), and for
// a number the cache does not hold, none of it is needed:
// - whether the file holds the number is read with plain reads (lmdb-peek.ts), and the answers
//   other light runs left waiting (pending-answers.ts) are read too;
// - a number that may be in the file (or whose reading was unsure) opens LMDB then and there, and
//   from then on the run reads and writes through it, as any run does;
// - answers fetched without LMDB are left in pending/ at close, in one small file, for the next
//   process that opens LMDB for writing to move in (LmdbAnswerStore.merge). Past MERGE_AT such
//   files, the run opens LMDB at once and moves them in itself, so a light run reads few.
import { join } from 'node:path';
import type { LookupKind } from '../core/lookups.js';
import type { Result } from '../core/records.js';
import { defaultMaxAge, type MaxAge } from '../settings/max-age.js';
import { type AnswerSlot, type AnswerStore, type CachedAnswer, SlottedStore } from './answer-store.js';
import { CACHE_FILE_NAME } from './cache-dir.js';
import { LmdbPeek, msgpackUint } from './lmdb-peek.js';
import { LmdbAnswerStore, PREFIX, answerKey, reason, remedy, type LmdbStoreOptions } from './lmdb-store.js';
import { holdAnswers, listPending, pendingDir, readPending, writePending, type HeldAnswers, type PendingAnswer } from './pending-answers.js';

/** Files waiting in pending/ from which a light run moves them into LMDB itself. */
const MERGE_AT = 16;

export class LightAnswerStore extends SlottedStore {
  private full: LmdbAnswerStore | undefined;
  private readonly peek: LmdbPeek;
  private readonly maxAge: MaxAge;
  /** The answers waiting in pending/ and those this run fetched, by lookup and number. */
  private readonly held: HeldAnswers;
  /** What this run fetched, left in pending/ at close. */
  private readonly fetched: PendingAnswer[] = [];
  /** Prefix ids found in the file (never reused: see lmdb-store.ts). */
  private readonly ids = new Map<string, number>();

  private constructor(
    private readonly opts: LmdbStoreOptions,
    waiting: readonly PendingAnswer[],
  ) {
    super();
    this.peek = new LmdbPeek(join(opts.dir, CACHE_FILE_NAME));
    this.maxAge = opts.maxAge ?? defaultMaxAge();
    this.held = holdAnswers(waiting);
  }

  /** A light store, or the LMDB store itself for --refresh, a reader, or many answers waiting. Never throws. */
  static async open(opts: LmdbStoreOptions): Promise<AnswerStore> {
    if (opts.refresh || opts.readOnly) return LmdbAnswerStore.open(opts);
    // Counted by name: the LMDB store reads them, to move them in.
    const dir = pendingDir(opts.dir);
    const listed = listPending(dir);
    if (listed.length >= MERGE_AT) return LmdbAnswerStore.open(opts);
    return new LightAnswerStore(opts, readPending(dir, listed).answers);
  }

  /** Whether the run has moved to LMDB (a number the file may hold). */
  get opened(): boolean {
    return this.full !== undefined;
  }

  /** LMDB, opened now: the answers waiting and this run's go into it. */
  private lmdb(): LmdbAnswerStore {
    if (!this.full) {
      this.peek.close();
      const full = LmdbAnswerStore.openNow(this.opts);
      // Refused (the store's one warning): answers it did not take are fetched again another time.
      full.merge(this.fetched);
      this.full = full;
    }
    return this.full;
  }

  /** False only when the file surely does not hold an answer of `lookup` for the number. */
  private mayHold(lookup: string, number: string): boolean {
    let id = this.ids.get(lookup);
    if (id === undefined) {
      const prefix = this.peek.get(PREFIX + lookup);
      if (prefix === 'absent') return false;
      if (prefix === 'unsure') return true;
      id = msgpackUint(prefix);
      if (id === undefined) return true;
      this.ids.set(lookup, id);
    }
    return this.peek.get(answerKey(id, number)) !== 'absent';
  }

  protected makeSlot(kind: LookupKind, opts: string): AnswerSlot {
    const lookup = `${this.opts.origin} ${kind} ${opts}`;
    const maxAge = this.maxAge[kind];
    const fresh = (fetchedAt: number) => this.opts.clock.now() - fetchedAt <= maxAge;
    let slot: AnswerSlot | undefined;
    const inLmdb = () => (slot ??= this.lmdb().slotOf(kind, opts));
    const held = (number: string): CachedAnswer | undefined => {
      const stored = this.held.get(lookup)?.get(number);
      return stored && { result: stored[1], fetchedAt: stored[0] };
    };
    /** LMDB's slot when the file may hold the number (the run moves there); else undefined. */
    const there = (number: string): AnswerSlot | undefined => (this.mayHold(lookup, number) ? inLmdb() : undefined);
    return {
      get: (number) => {
        if (this.full) return inLmdb().get(number);
        const answer = held(number);
        if (answer && fresh(answer.fetchedAt)) return answer;
        return there(number)?.get(number);
      },
      has: (number) => {
        if (this.full) return inLmdb().has(number);
        const answer = held(number);
        if (answer && fresh(answer.fetchedAt)) return true;
        return there(number)?.has(number) ?? false;
      },
      kept: (number) => {
        if (this.full) return inLmdb().kept?.(number);
        return held(number) ?? there(number)?.kept?.(number);
      },
      put: (number, result: Result, fetchedAt) => {
        if (this.full) return inLmdb().put(number, result, fetchedAt);
        const answer = { lookup, number, fetchedAt, result };
        holdAnswers([answer], this.held);
        this.fetched.push(answer);
        return true;
      },
    };
  }

  /** Leaves this run's answers in pending/ (or closes LMDB, once the run moved there). Never throws. */
  async close(): Promise<void> {
    this.peek.close();
    if (this.full) return this.full.close();
    if (this.fetched.length === 0) return;
    try {
      writePending(pendingDir(this.opts.dir), this.fetched);
    } catch (err) {
      this.opts.warn(`the lookup cache cannot be used (${reason(err)}); this run's answers were not kept (${remedy(err)})`);
    }
    this.fetched.length = 0;
  }
}
