// The distinct numbers of a report, for its duplicate count: an open-addressing hash set of
// 11-digit numbers held as doubles in one typed array (16 bytes a number at most), so a million
// distinct numbers cost about 16 MB rather than the ~80 MB of a Set of strings.

const EMPTY = 0; // no valid number is 0

export class NumberSet {
  private slots = new Float64Array(1 << 12);
  private mask = this.slots.length - 1;
  size = 0;

  /** Adds the number; false when it was already there. A value that is not all digits is hashed by text. */
  add(number: string): boolean {
    let value = Number(number);
    if (!Number.isSafeInteger(value) || value <= 0) value = -hashText(number) - 1;
    let i = mix(value) & this.mask;
    for (;;) {
      const slot = this.slots[i] as number;
      if (slot === EMPTY) break;
      if (slot === value) return false;
      i = (i + 1) & this.mask;
    }
    this.slots[i] = value;
    if (++this.size * 2 > this.slots.length) this.grow();
    return true;
  }

  private grow(): void {
    const old = this.slots;
    this.slots = new Float64Array(old.length * 2);
    this.mask = this.slots.length - 1;
    for (const value of old) {
      if (value === EMPTY) continue;
      let i = mix(value) & this.mask;
      while (this.slots[i] !== EMPTY) i = (i + 1) & this.mask;
      this.slots[i] = value;
    }
  }
}

function mix(value: number): number {
  const lo = value % 0x1_0000_0000 | 0;
  const hi = (value / 0x1_0000_0000) | 0;
  return Math.imul(lo ^ Math.imul(hi, 0x27d4eb2d), 0x9e3779b1) ^ (lo >>> 15);
}

function hashText(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return h >>> 0;
}
