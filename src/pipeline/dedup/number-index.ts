// An exact map from a whole number (a phone number as digits, ≤ 15 of them, so a safe integer) to
// where its answer is stored: open addressing in typed arrays, outside the JS heap, ~20 bytes a
// slot at most 3/4 full, instead of ~100 for a Map entry with a string key. 0 marks a free slot,
// so keys must be ≥ 1.
import { hashWhole } from '../../core/number-set.js';

/** Slots to start with (a power of two); the table doubles when 3/4 full. */
const INITIAL_CAPACITY = 1024;
const MAX_LOAD = 0.75;

export interface Located {
  readonly offset: number;
  readonly length: number;
}

export class NumberIndex {
  private keys: Float64Array;
  private offsets: Float64Array;
  private lengths: Uint32Array;
  private count = 0;

  constructor() {
    this.keys = new Float64Array(INITIAL_CAPACITY);
    this.offsets = new Float64Array(INITIAL_CAPACITY);
    this.lengths = new Uint32Array(INITIAL_CAPACITY);
  }

  get size(): number {
    return this.count;
  }

  /** Bytes held by the table (what a run pays per distinct answer, times the load). */
  get bytes(): number {
    return this.keys.byteLength + this.offsets.byteLength + this.lengths.byteLength;
  }

  get(key: number): Located | undefined {
    const slot = this.find(key);
    if (this.keys[slot] !== key) return undefined;
    return { offset: this.offsets[slot] as number, length: this.lengths[slot] as number };
  }

  /** Adds or replaces. */
  set(key: number, offset: number, length: number): void {
    if (!Number.isSafeInteger(key) || key < 1) throw new RangeError(`index keys are safe integers ≥ 1, got ${key}`);
    let slot = this.find(key);
    if (this.keys[slot] !== key) {
      if ((this.count + 1) / this.keys.length > MAX_LOAD) {
        this.grow();
        slot = this.find(key);
      }
      this.keys[slot] = key;
      this.count += 1;
    }
    this.offsets[slot] = offset;
    this.lengths[slot] = length;
  }

  /** Every key with where it is, in no particular order. */
  forEach(fn: (key: number, offset: number, length: number) => void): void {
    const { keys, offsets, lengths } = this;
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i] as number;
      if (key !== 0) fn(key, offsets[i] as number, lengths[i] as number);
    }
  }

  /** The key's slot, or the free slot where it would go. */
  private find(key: number): number {
    const mask = this.keys.length - 1;
    let slot = hashWhole(key) & mask;
    for (;;) {
      const k = this.keys[slot];
      if (k === key || k === 0) return slot;
      slot = (slot + 1) & mask;
    }
  }

  private grow(): void {
    const { keys, offsets, lengths } = this;
    const size = keys.length * 2;
    this.keys = new Float64Array(size);
    this.offsets = new Float64Array(size);
    this.lengths = new Uint32Array(size);
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i] as number;
      if (key === 0) continue;
      const slot = this.find(key);
      this.keys[slot] = key;
      this.offsets[slot] = offsets[i] as number;
      this.lengths[slot] = lengths[i] as number;
    }
  }
}
