// The before run's index of `numintel diff` across spills to its temp file: every record back
// exactly, repeats told apart from numbers of the after run only, and the records never taken in
// the order they were added, odd numbers (no whole number) among them.
import { readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { BeforeIndex, REPEAT } from '../../src/diff/before-index.js';
import { SpillStore } from '../../src/pipeline/dedup/spill-store.js';
import { tempDir } from '../support/tmp.js';

describe('BeforeIndex', () => {
  it('gives every record back exactly once, marks repeats, and lists the untaken in order, spilled to disk', () => {
    const dir = tempDir();
    const index = new BeforeIndex({ dir, bufferBytes: 512 });
    // Scattered numbers, records of varied length (multi-byte text too), a few odd numbers.
    const numbers = Array.from({ length: 5000 }, (_, i) => String(12_015_550_000 + ((i * 7919) % 100_000)));
    numbers.push('0012015550123', '+1 (201) 555-0199', '12345678901234567890');
    const record = (n: string, i: number) => `c${'é'.repeat(i % 5)}\x1f${'x'.repeat(i % 40)}\x1f${n}`;
    numbers.forEach((n, i) => {
      expect(index.has(n)).toBe(false);
      index.add(n, record(n, i));
    });
    expect(index.spilled).toBe(true);
    expect(readdirSync(dir)).toEqual([]);
    // Every other number taken, in an order of its own.
    const taken = new Set<string>();
    for (let i = numbers.length - 1; i >= 0; i -= 2) {
      const n = numbers[i] as string;
      expect(index.take(n)).toBe(record(n, i));
      taken.add(n);
      expect(index.take(n)).toBe(REPEAT);
    }
    expect(index.take('19995550000')).toBeUndefined();
    expect(index.take('19995550000')).toBe(REPEAT);
    expect(index.take('not a number')).toBeUndefined();
    expect(index.take('not a number')).toBe(REPEAT);
    expect([...index.untaken()]).toEqual(numbers.flatMap((n, i) => (taken.has(n) ? [] : [record(n, i)])));
    index.close();
  });

  it('keeps a small before run in memory', () => {
    const index = new BeforeIndex({ dir: tempDir(), bufferBytes: 1 << 20 });
    index.add('12015550100', 'a');
    index.add('12015550101', 'b');
    expect(index.spilled).toBe(false);
    expect(index.take('12015550101')).toBe('b');
    expect([...index.untaken()]).toEqual(['a']);
    index.close();
  });
});

describe('SpillStore read-ahead', () => {
  it('reads the records from the file in any order, whether within what was read ahead or not', () => {
    const store = new SpillStore({ dir: tempDir(), bufferBytes: 300, readAheadBytes: 100 });
    const texts = Array.from({ length: 300 }, (_, i) => `r${i}-${'ü'.repeat(i % 9)}`);
    const at = texts.map((t) => store.append(t));
    expect(store.onDisk).toBe(true);
    at.forEach((a, i) => expect(store.read(a)).toBe(texts[i]));
    for (let i = at.length - 1; i >= 0; i -= 3) expect(store.read(at[i]!)).toBe(texts[i]);
    const big = 'B'.repeat(500);
    const bigAt = store.append(big);
    store.append('x'.repeat(400));
    expect(store.read(bigAt)).toBe(big);
    expect(store.read(at[1]!)).toBe(texts[1]);
    store.close();
  });
});
