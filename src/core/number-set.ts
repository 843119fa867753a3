// The distinct numbers seen so far, for the duplicate counts of `report` and `--dry-run` and the
// lookups a run ended with an answer its cache keeps (pipeline/dedup/dedup.ts): an
// open-addressing hash set of whole numbers (digits, no leading 0, at most 15: exact doubles) in
// one typed array, 16 bytes a number at most, so a million distinct numbers cost about 16 MB
// rather than the ~80 MB of a Set of strings. Anything else (what --no-validate lets through) goes
// into a Set of its own: counted exactly, never by a hash that two texts could share.

/** A number that is its own exact integer key. */
export const WHOLE_NUMBER = /^[1-9]\d{0,14}$/;

const EMPTY = 0; // no whole number is 0

export class NumberSet {
  private slots = new Float64Array(1 << 12);
  private mask = this.slots.length - 1;
  private readonly others = new Set<string>();
  size = 0;

  /** Adds the number; false when it was already there. */
  add(number: string): boolean {
    return WHOLE_NUMBER.test(number) ? this.addWhole(Number(number)) : this.addOther(number);
  }

  /** Adds a whole number given as its value (an exact integer ≥ 1); false when it was already there. */
  addWhole(value: number): boolean {
    const i = this.slotOf(value);
    if (this.slots[i] === value) return false;
    this.slots[i] = value;
    this.size += 1;
    if ((this.size - this.others.size) * 2 > this.slots.length) this.grow();
    return true;
  }

  /** Adds a number that is not a whole number (kept as its text); false when it was already there. */
  addOther(number: string): boolean {
    if (this.others.has(number)) return false;
    this.others.add(number);
    this.size += 1;
    return true;
  }

  hasWhole(value: number): boolean {
    return this.slots[this.slotOf(value)] === value;
  }

  hasOther(number: string): boolean {
    return this.others.has(number);
  }

  /** The slot holding `value`, or the empty one where it would go. */
  private slotOf(value: number): number {
    let i = hashWhole(value) & this.mask;
    for (;;) {
      const slot = this.slots[i] as number;
      if (slot === EMPTY || slot === value) return i;
      i = (i + 1) & this.mask;
    }
  }

  private grow(): void {
    const old = this.slots;
    this.slots = new Float64Array(old.length * 2);
    this.mask = this.slots.length - 1;
    for (const value of old) {
      if (value === EMPTY) continue;
      let i = hashWhole(value) & this.mask;
      while (this.slots[i] !== EMPTY) i = (i + 1) & this.mask;
      this.slots[i] = value;
    }
  }
}

/**
 * The hash of a whole number (an exact integer up to 2^53), for the typed-array tables here and in
 * the run's dedup index: both 32-bit halves are mixed, as phone numbers differ mostly in their low
 * digits, in runs.
 */
export function hashWhole(key: number): number {
  const lo = key >>> 0;
  const hi = Math.floor(key / 4294967296) >>> 0;
  let h = Math.imul(lo ^ Math.imul(hi, 0x9e3779b1), 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}
