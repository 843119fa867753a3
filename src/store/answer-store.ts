// "An answer I may already have": what the run pipeline asks before it spends a lookup, and tells
// after a lookup succeeded. Two seams, both made by whoever owns the run (the CLI's run, a library
// client) and handed to it, so the runner talks to these interfaces only:
// - AnswerStore, answers kept across runs: the persistent cache (lmdb-store.ts), one that is off
//   (--no-cache, the in-process --sandbox), a Map for tests and library users. Successes only.
// - RunDedup, what one run remembers of its own lookups (pipeline/dedup/dedup.ts): it also joins
//   lookups in flight and keeps refusals, so a duplicate never pays twice within the run. Of an
//   answer the AnswerStore keeps, it remembers only that the lookup ended: the store has the answer.
// A run asks its RunDedup first, then the AnswerStore, then the service.
import { LOOKUPS, optionsFor, type LookupKind, type LookupOptions } from '../core/lookups.js';
import type { LookupError, Result } from '../core/records.js';
import { WHOLE_NUMBER } from '../core/number-set.js';

export interface CachedAnswer {
  /** The service's result object, exactly as it was received. */
  readonly result: Result;
  /** When it was fetched, epoch ms. */
  readonly fetchedAt: number;
}

/** One lookup with its options, bound once per run: the hot path does no key building. */
export interface AnswerSlot {
  /** A fresh answer for this 11-digit number, or undefined (none, expired, refreshing, off). */
  get(number: string): CachedAnswer | undefined;
  /**
   * Remembers a successful answer; true when this store keeps it, readable by kept() from now on.
   * Never throws; the write is durable once the store is closed.
   */
  put(number: string, result: Result, fetchedAt: number): boolean | void;
  /**
   * The answer held for this number however old, and under --refresh too: one this run put or got
   * from here. undefined only when it is gone since (the cache failed, or another process cleared
   * it). Optional (a library user's own store): without it, a run keeps its own copy of each answer.
   */
  kept?(number: string): CachedAnswer | undefined;
  /** Whether get() would answer, without decoding the answer (--dry-run counts hits this way). */
  has(number: string): boolean;
}

export interface AnswerStore {
  /** The slot of one lookup with these options (options the lookup does not know are ignored). */
  slot(kind: LookupKind, options: LookupOptions): AnswerSlot;
  /** Commits the writes not committed yet and releases the store. Never throws. */
  close(): Promise<void>;
}

/**
 * A lookup's final answer within a run. A result carries when it was fetched (epoch ms) and
 * whether it came from the persistent cache; a run fills these in when the answer arrives.
 */
export type Finished =
  | { readonly result: Result; readonly error: null; readonly fetchedAt?: number; readonly cached?: boolean }
  | { readonly result: null; readonly error: LookupError };

/** A lookup of this run that ended with an answer the AnswerStore keeps (`cached`: the answer came from there). */
export interface Kept {
  readonly kept: true;
  readonly cached: boolean;
}

/**
 * A number as a run's dedup knows it, worked out once per row (cacheKey) rather than on every
 * call: the number as an exact integer when it is a WHOLE_NUMBER, else the number itself.
 */
export type CacheKey = (number | string) & { readonly __cacheKey: never };

export function cacheKey(number: string): CacheKey {
  return (WHOLE_NUMBER.test(number) ? Number(number) : number) as CacheKey;
}

/**
 * What one run remembers of its own lookups, by the index of the lookup in the run's plan and the
 * number's key: the lookup in flight (`InFlight`, the run's record of it, which a duplicate joins)
 * and, once it ended, its answer for the rest of the run.
 */
export interface RunDedup<InFlight> {
  /** The lookup in flight for this number, if any. */
  inFlight(lookup: number, key: CacheKey): InFlight | undefined;
  /** The finished answer (a fresh copy) if one was kept, or Kept when the AnswerStore has it. */
  finished(lookup: number, key: CacheKey): Finished | Kept | undefined;
  start(lookup: number, key: CacheKey, inFlight: InFlight): void;
  /** The lookup ended; `answer` undefined means "do not keep it" (a transient failure). */
  finish(lookup: number, key: CacheKey, answer: Finished | undefined): void;
  /** The lookup ended with an answer the AnswerStore keeps: only that is remembered here. */
  finishKept(lookup: number, key: CacheKey, cached: boolean): void;
  /** The lookup in flight is abandoned (the run stopped) without an answer. */
  forget(lookup: number, key: CacheKey): void;
  /** Releases what it holds; it answers nothing afterwards. Idempotent. */
  close(): void;
}

/** Makes the dedup of one run of `lookups` lookups (each run has its own: a session makes many). */
export type NewRunDedup = <InFlight>(lookups: number) => RunDedup<InFlight>;

/**
 * The part of the options that changes a lookup's answer, as a short stable text: `enhanced+messaging`,
 * `spam`, or `` (none). Part of the cache key.
 */
export function optionsKey(kind: LookupKind, options: LookupOptions): string {
  return Object.keys(optionsFor(LOOKUPS[kind], options)).sort().join('+');
}

/** Shared by the stores: a slot per (kind, options key), made once. */
export abstract class SlottedStore implements AnswerStore {
  private readonly slots = new Map<string, AnswerSlot>();

  protected abstract makeSlot(kind: LookupKind, opts: string): AnswerSlot;
  abstract close(): Promise<void>;

  slot(kind: LookupKind, options: LookupOptions): AnswerSlot {
    return this.slotOf(kind, optionsKey(kind, options));
  }

  /** The slot of one lookup by its options key (optionsKey). */
  slotOf(kind: LookupKind, opts: string): AnswerSlot {
    const name = `${kind} ${opts}`;
    let slot = this.slots.get(name);
    if (!slot) {
      slot = this.makeSlot(kind, opts);
      this.slots.set(name, slot);
    }
    return slot;
  }
}

const NOTHING: AnswerSlot = { get: () => undefined, put: () => false, has: () => false, kept: () => undefined };

/** No cache: answers nothing, keeps nothing (--no-cache, the in-process sandbox). */
export const NO_STORE: AnswerStore = {
  slot: () => NOTHING,
  close: async () => {},
};

/** A store in memory, gone with the process: for tests and library users who want no files. */
export class MemoryAnswerStore extends SlottedStore {
  private readonly answers = new Map<string, CachedAnswer>();

  constructor(
    private readonly isFresh: (kind: LookupKind, fetchedAt: number) => boolean = () => true,
  ) {
    super();
  }

  protected makeSlot(kind: LookupKind, opts: string): AnswerSlot {
    const prefix = `${kind} ${opts} `;
    const get = (number: string) => {
      const hit = this.answers.get(prefix + number);
      return hit && this.isFresh(kind, hit.fetchedAt) ? hit : undefined;
    };
    return {
      get,
      put: (number, result, fetchedAt) => {
        this.answers.set(prefix + number, { result, fetchedAt });
        return true;
      },
      has: (number) => get(number) !== undefined,
      kept: (number) => this.answers.get(prefix + number),
    };
  }

  get size(): number {
    return this.answers.size;
  }

  async close(): Promise<void> {
    this.answers.clear();
  }
}
