// "An answer I may already have": what the run pipeline asks before it spends a lookup, and tells
// after a lookup succeeded. The persistent cache (lmdb-store.ts) is one implementation; a store
// that is off (--no-cache, the in-process --sandbox) is another, and a Map for tests a third. The
// in-run dedup (pipeline/dedup/dedup.ts) stays beside it: it also joins lookups in flight and keeps
// refusals, which a store never does — a store holds successes only, across runs.
import { LOOKUPS, optionsFor, type LookupKind, type LookupOptions } from '../core/lookups.js';
import type { Result } from '../core/records.js';

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
  /** Remembers a successful answer. Never throws; the write is durable once the store is closed. */
  put(number: string, result: Result, fetchedAt: number): void;
  /** Whether get() would answer, without decoding the answer (--dry-run counts hits this way). */
  has(number: string): boolean;
}

export interface AnswerStore {
  /** The slot of one lookup with these options (options the lookup does not know are ignored). */
  slot(kind: LookupKind, options: LookupOptions): AnswerSlot;
  get(kind: LookupKind, options: LookupOptions, number: string): CachedAnswer | undefined;
  put(kind: LookupKind, options: LookupOptions, number: string, result: Result, fetchedAt: number): void;
  /** Finishes pending writes and releases the store. Never throws. */
  close(): Promise<void>;
}

/**
 * The part of the options that changes a lookup's answer, as a short stable text: `enhanced+messaging`,
 * `spam`, or `` (none). Part of the cache key.
 */
export function optionsKey(kind: LookupKind, options: LookupOptions): string {
  return Object.keys(optionsFor(LOOKUPS[kind], options)).sort().join('+');
}

/** Shared by the stores: get/put through a slot per (kind, options key), made once. */
export abstract class SlottedStore implements AnswerStore {
  private readonly slots = new Map<string, AnswerSlot>();

  protected abstract makeSlot(kind: LookupKind, opts: string): AnswerSlot;
  abstract close(): Promise<void>;

  slot(kind: LookupKind, options: LookupOptions): AnswerSlot {
    const opts = optionsKey(kind, options);
    const name = `${kind} ${opts}`;
    let slot = this.slots.get(name);
    if (!slot) {
      slot = this.makeSlot(kind, opts);
      this.slots.set(name, slot);
    }
    return slot;
  }

  get(kind: LookupKind, options: LookupOptions, number: string): CachedAnswer | undefined {
    return this.slot(kind, options).get(number);
  }

  put(kind: LookupKind, options: LookupOptions, number: string, result: Result, fetchedAt: number): void {
    this.slot(kind, options).put(number, result, fetchedAt);
  }
}

const NOTHING: AnswerSlot = { get: () => undefined, put: () => {}, has: () => false };

/** No cache: answers nothing, keeps nothing (--no-cache, the in-process sandbox). */
export const NO_STORE: AnswerStore = {
  slot: () => NOTHING,
  get: () => undefined,
  put: () => {},
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
      put: (number, result, fetchedAt) => void this.answers.set(prefix + number, { result, fetchedAt }),
      has: (number) => get(number) !== undefined,
    };
  }

  get size(): number {
    return this.answers.size;
  }

  async close(): Promise<void> {
    this.answers.clear();
  }
}
