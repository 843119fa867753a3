// The before run by number, in memory that does not grow with it: each number's record (its packed
// snapshot, see snapshot.ts) goes to a SpillStore, the run's dedup store, which keeps up to
// `bufferBytes` of records in memory and writes the rest to a temp file; the heap keeps only where
// each record is, in a NumberIndex of typed arrays (20 bytes a slot). A record once taken by the
// after run is marked so: that answers both "was it in before" and "is it a repeat in after".
import { WHOLE_NUMBER } from '../core/number-set.js';
import { NumberIndex, type Located } from '../pipeline/dedup/number-index.js';
import { SpillStore } from '../pipeline/dedup/spill-store.js';
import { ownCopy } from './snapshot.js';

/** A record length no record has: the number was taken by the after run (or only it had the number). */
const TAKEN = 0xffffffff;

/**
 * An after file of the same list asks for the records mostly in their order: each read from the
 * temp file brings the next ~200 records along. One that asks at random pays for these bytes.
 */
const READ_AHEAD = 16 << 10;

/** What take() answers for a number the after run has had before. */
export const REPEAT: unique symbol = Symbol('repeat');

export interface BeforeIndexOptions {
  /** Where the temp file goes. */
  readonly dir: string;
  /** Records held in memory before any goes to the file. */
  readonly bufferBytes: number;
}

export class BeforeIndex {
  private readonly whole = new NumberIndex();
  /** Numbers that are no whole number (what --no-validate lets through): few, kept by their text. */
  private readonly odd = new Map<string, Located>();
  private readonly store: SpillStore;
  /** Where the last record ends. */
  private end = 0;

  constructor(opts: BeforeIndexOptions) {
    this.store = new SpillStore({ dir: opts.dir, bufferBytes: opts.bufferBytes, readAheadBytes: READ_AHEAD });
  }

  /** true once records went to the temp file. */
  get spilled(): boolean {
    return this.store.onDisk;
  }

  /** Whether the before run has the number. */
  has(number: string): boolean {
    return this.locate(number) !== undefined;
  }

  /** The record of a number not there yet (see has: a number's first record is the one kept). */
  add(number: string, record: string): void {
    const at = this.store.append(record);
    this.end = at.offset + at.length;
    if (WHOLE_NUMBER.test(number)) this.whole.set(Number(number), at.offset, at.length);
    else this.odd.set(ownCopy(number), at);
  }

  /**
   * A number of the after run: its before record the first time it comes (undefined when the
   * before run has none), REPEAT when the after run had it already.
   */
  take(number: string): string | undefined | typeof REPEAT {
    const whole = WHOLE_NUMBER.test(number);
    const key = whole ? Number(number) : 0;
    const at = whole ? this.whole.get(key) : this.odd.get(number);
    if (at?.length === TAKEN) return REPEAT;
    const record = at && this.store.read(at);
    // A number of the after run only has no record: offset -1.
    const offset = at?.offset ?? -1;
    if (whole) this.whole.set(key, offset, TAKEN);
    else this.odd.set(ownCopy(number), { offset, length: TAKEN });
    return record;
  }

  /** The records no take() asked for, in the order they were added. */
  *untaken(): Generator<string> {
    // Records lie one after the other in the store, in the before run's order: sorted by offset,
    // each ends where the next begins. Each offset is kept doubled, plus 1 once taken.
    const all = new Float64Array(this.whole.size + this.odd.size);
    let n = 0;
    const note = (offset: number, length: number) => {
      if (offset >= 0) all[n++] = offset * 2 + (length === TAKEN ? 1 : 0);
    };
    this.whole.forEach((_, offset, length) => note(offset, length));
    for (const at of this.odd.values()) note(at.offset, at.length);
    const sorted = all.subarray(0, n).sort();
    for (let i = 0; i < n; i++) {
      const c = sorted[i] as number;
      if (c % 2 === 1) continue;
      const offset = c / 2;
      const next = i + 1 < n ? Math.floor((sorted[i + 1] as number) / 2) : this.end;
      yield this.store.read({ offset, length: next - offset });
    }
  }

  close(): void {
    this.store.close();
  }

  private locate(number: string): Located | undefined {
    return WHOLE_NUMBER.test(number) ? this.whole.get(Number(number)) : this.odd.get(number);
  }
}
