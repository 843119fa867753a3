// Output in input order, as soon as the head of the line is done, with a bounded read-ahead:
// rows live in a ring of fixed capacity; when it is full the reader stops pulling input until the
// head leaves, so memory stays flat however large the input and however slow one row is.
import { checkCount } from '../check-count.js';

export class ReorderWindow<Row> {
  private readonly ring: (Row | undefined)[];
  private head = 0;
  private count = 0;

  constructor(readonly capacity: number) {
    checkCount('window capacity', capacity, 1);
    this.ring = new Array<Row | undefined>(capacity);
  }

  get size(): number {
    return this.count;
  }

  get full(): boolean {
    return this.count >= this.capacity;
  }

  /** Adds the next row in input order; the caller checks `full` first. */
  push(row: Row): void {
    if (this.full) throw new Error('reorder window overflow');
    this.ring[(this.head + this.count) % this.capacity] = row;
    this.count += 1;
  }

  /** The oldest row still waiting to be written. */
  peek(): Row | undefined {
    return this.count === 0 ? undefined : this.ring[this.head];
  }

  /** The rows waiting, oldest first. */
  *[Symbol.iterator](): IterableIterator<Row> {
    for (let i = 0; i < this.count; i++) yield this.ring[(this.head + i) % this.capacity] as Row;
  }

  shift(): Row | undefined {
    if (this.count === 0) return undefined;
    const row = this.ring[this.head];
    this.ring[this.head] = undefined;
    this.head = (this.head + 1) % this.capacity;
    this.count -= 1;
    return row;
  }
}

/** A wakeup for one waiter at a time: costs nothing when nobody waits. */
export class Notifier {
  private resolve: (() => void) | undefined;
  private promise: Promise<void> | undefined;

  wait(): Promise<void> {
    if (!this.promise) this.promise = new Promise<void>((r) => (this.resolve = r));
    return this.promise;
  }

  notify(): void {
    const r = this.resolve;
    this.resolve = undefined;
    this.promise = undefined;
    r?.();
  }
}

/**
 * The read-ahead a run allows: enough to keep every slot busy behind one slow row, and to keep
 * sending at a full window's pace (a few seconds at 200/s) while the head row waits out a 429's
 * Retry-After of a second or two.
 */
export function windowSize(concurrency: number): number {
  return Math.max(4 * concurrency, 1024);
}

/**
 * First tries a run keeps queued per kind, ready for the next free slot or pacing token: a few
 * times the concurrency (a whole wave of answers can free every slot in one turn), however many
 * rows the window lets it read ahead.
 */
export function queueAhead(concurrency: number): number {
  return Math.max(32, 4 * concurrency);
}
