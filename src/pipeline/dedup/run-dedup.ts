// "Never pay twice": one run looks each lookup up once (a RunDedup, store/answer-store.ts). A
// duplicate that arrives while the first is in flight joins it; a later one reuses the finished
// answer, for the whole run.
//
// Remembering every answer of a million-row run must not cost the heap hundreds of bytes a row:
// the answers go to an append-only SpillStore (a temp file behind a small buffer), and the heap
// keeps only an index from the number to where its answer is — a NumberIndex of typed arrays,
// keyed by the digits as one exact integer per lookup of the run (20 bytes a slot, the table kept
// 3/8 to 3/4 full: 27 to 53 bytes a distinct number).
// Numbers that do not fit that key (--no-validate can send anything) use a Map, exactly as well.
// An answer the run's AnswerStore keeps (the persistent cache: every success of a run with it) is
// not written here a second time: only that the lookup ended is, in a NumberSet (8 to 16 bytes a
// number, against the index's 27 to 53), and a duplicate reads the answer back from the store.
// Answers that another try could change (a lookup that still failed after its retries) are NOT
// kept: a later duplicate tries again, which costs only if it then succeeds. Answers that would
// not change (invalid number, other refusals) are kept.
import { tmpdir } from 'node:os';
import type { LookupError } from '../../core/records.js';
import { NumberSet } from '../../core/number-set.js';
import { SlotMap } from '../../core/slot-map.js';
import type { CacheKey, Finished, Kept, NewRunDedup, RunDedup } from '../../store/answer-store.js';
import { NumberIndex, type Located } from './number-index.js';
import { ResultCodec } from './result-codec.js';
import { SpillStore } from './spill-store.js';

export interface RunDedupOptions {
  /** Directory for the temp file of answers. Default os.tmpdir(). */
  readonly dir?: string;
  /** Answers gathered in memory before each write. Default 64 KiB. */
  readonly bufferBytes?: number;
}

const KEPT_FETCHED: Kept = { kept: true, cached: false };
const KEPT_CACHED: Kept = { kept: true, cached: true };

/** Keys of lookup i live in [i·10^15, (i+1)·10^15); 8 lookups stay under 2^53. */
const STRIDE = 1e15;
const MAX_LOOKUPS = 8;

/** The run dedup of the CLI and the library: answers spilled to a temporary file, indexed in typed arrays. */
export class SpillingRunDedup<InFlight> implements RunDedup<InFlight> {
  private readonly inFlightByLookup: SlotMap<CacheKey, InFlight>[] = [];
  private readonly index = new NumberIndex();
  private readonly odd = new Map<string, Located>();
  private readonly store: SpillStore;
  private readonly codec = new ResultCodec();
  /** Per lookup, the lookups ended with an answer the AnswerStore keeps: fetched, or found there. */
  private readonly kept: { readonly fetched: NumberSet; readonly cached: NumberSet }[] = [];
  private closed = false;

  constructor(lookups: number, opts: RunDedupOptions = {}) {
    if (lookups > MAX_LOOKUPS) throw new RangeError(`a run has at most ${MAX_LOOKUPS} lookups, got ${lookups}`);
    for (let i = 0; i < lookups; i++) {
      this.inFlightByLookup.push(new SlotMap());
      this.kept.push({ fetched: new NumberSet(), cached: new NumberSet() });
    }
    this.store = new SpillStore({ dir: opts.dir ?? tmpdir(), ...(opts.bufferBytes ? { bufferBytes: opts.bufferBytes } : {}) });
  }

  inFlight(lookup: number, key: CacheKey): InFlight | undefined {
    return this.inFlightByLookup[lookup]?.get(key);
  }

  finished(lookup: number, key: CacheKey): Finished | Kept | undefined {
    if (this.closed) return undefined;
    const at = typeof key === 'number' ? this.index.get(lookup * STRIDE + key) : this.odd.get(`${lookup}:${key}`);
    if (!at) return this.keptOf(lookup, key);
    const text = this.store.read(at);
    // Errors are stored as their JSON object; results as `<fetchedAt><c|f>` and the codec's array.
    if (text.startsWith('{')) return { result: null, error: JSON.parse(text) as LookupError };
    const open = text.indexOf('[');
    const fetchedAt = Number(text.slice(0, open - 1));
    return { result: this.codec.decode(text.slice(open)), error: null, fetchedAt, cached: text[open - 1] === 'c' };
  }

  start(lookup: number, key: CacheKey, p: InFlight): void {
    this.inFlightByLookup[lookup]?.set(key, p);
  }

  finish(lookup: number, key: CacheKey, answer: Finished | undefined): void {
    this.inFlightByLookup[lookup]?.delete(key);
    if (!answer || this.closed) return;
    const at = this.store.append(
      answer.error ? JSON.stringify(answer.error) : `${answer.fetchedAt ?? 0}${answer.cached ? 'c' : 'f'}${this.codec.encode(answer.result)}`,
    );
    if (typeof key === 'number') this.index.set(lookup * STRIDE + key, at.offset, at.length);
    else this.odd.set(`${lookup}:${key}`, at);
  }

  finishKept(lookup: number, key: CacheKey, cached: boolean): void {
    this.inFlightByLookup[lookup]?.delete(key);
    const sets = this.kept[lookup];
    if (!sets || this.closed) return;
    const set = cached ? sets.cached : sets.fetched;
    if (typeof key === 'number') set.addWhole(key);
    else set.addOther(key);
  }

  private keptOf(lookup: number, key: CacheKey): Kept | undefined {
    const sets = this.kept[lookup];
    if (!sets) return undefined;
    if (typeof key === 'number') return sets.fetched.hasWhole(key) ? KEPT_FETCHED : sets.cached.hasWhole(key) ? KEPT_CACHED : undefined;
    return sets.fetched.hasOther(key) ? KEPT_FETCHED : sets.cached.hasOther(key) ? KEPT_CACHED : undefined;
  }

  forget(lookup: number, key: CacheKey): void {
    this.inFlightByLookup[lookup]?.delete(key);
  }

  get size(): number {
    return this.index.size + this.odd.size + this.kept.reduce((n, sets) => n + sets.fetched.size + sets.cached.size, 0);
  }

  /** Releases the temp file. */
  close(): void {
    this.closed = true;
    this.store.close();
  }
}

/** The in-run dedup of the CLI and the library: answers spilled to a temp file, the index in typed arrays. */
export const newRunDedup: NewRunDedup = (lookups) => new SpillingRunDedup(lookups);
