import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SpillingRunDedup } from '../../src/pipeline/dedup/run-dedup.js';
import { cacheKey } from '../../src/store/answer-store.js';
import { NumberIndex } from '../../src/pipeline/dedup/number-index.js';
import { SpillStore } from '../../src/pipeline/dedup/spill-store.js';
import { tempDir } from '../support/tmp.js';


describe('NumberIndex', () => {
  it('maps many phone-number keys exactly, through several growths', () => {
    const index = new NumberIndex();
    const keys: number[] = [];
    for (let i = 0; i < 50_000; i++) keys.push(12_015_550_000 + i * 7919, 1e15 + 12_015_550_000 + i * 7919);
    keys.forEach((k, i) => index.set(k, i * 10, i % 300));
    expect(index.size).toBe(keys.length);
    const wrong = keys.filter((k, i) => index.get(k)?.offset !== i * 10 || index.get(k)?.length !== i % 300);
    expect(wrong).toEqual([]);
    expect(index.get(12_015_550_001)).toBeUndefined();
    expect(index.get(2e15 + 12_015_550_000)).toBeUndefined();
    // ≤ 3/4 full, 20 bytes a slot: under 27 bytes a key, and never more than double that.
    expect(index.bytes / keys.length).toBeLessThan(54);
  });

  it('replaces the location of a key already there', () => {
    const index = new NumberIndex();
    index.set(5, 1, 2);
    index.set(5, 30, 4);
    expect(index.size).toBe(1);
    expect(index.get(5)).toEqual({ offset: 30, length: 4 });
  });

  it('refuses keys it cannot hold exactly', () => {
    const index = new NumberIndex();
    expect(() => index.set(0, 0, 0)).toThrow(RangeError);
    expect(() => index.set(2 ** 53, 0, 0)).toThrow(RangeError);
    expect(() => index.set(1.5, 0, 0)).toThrow(RangeError);
  });
});

describe('SpillStore', () => {
  it('keeps small runs in memory and larger ones in an unlinked temp file', () => {
    const dir = tempDir();
    const store = new SpillStore({ dir, bufferBytes: 256 });
    const texts = Array.from({ length: 400 }, (_, i) => `["answer ${i}","${'é'.repeat(i % 7)}"]`);
    const first = store.append(texts[0] as string);
    expect(store.onDisk).toBe(false);
    expect(store.read(first)).toBe(texts[0]);
    const at = [first, ...texts.slice(1).map((t) => store.append(t))];
    expect(store.onDisk).toBe(true);
    // Unlinked once open: nothing is left behind even if the process dies.
    expect(readdirSync(dir)).toEqual([]);
    at.forEach((a, i) => expect(store.read(a)).toBe(texts[i]));
    store.close();
    expect(() => store.append('x')).toThrow(/closed/);
  });

  it('stores a record larger than its buffer', () => {
    const store = new SpillStore({ dir: tempDir(), bufferBytes: 64 });
    const small = store.append('small');
    const big = 'b'.repeat(1000);
    const at = store.append(big);
    const after = store.append('after');
    expect([store.read(small), store.read(at), store.read(after)]).toEqual(['small', big, 'after']);
    store.close();
  });

  it('holds records in memory when the temp file cannot be created, losing none', () => {
    const store = new SpillStore({ dir: join(tempDir(), 'missing', 'dir'), bufferBytes: 100 });
    const texts = Array.from({ length: 200 }, (_, i) => `record-${i}-${'x'.repeat(i % 90)}`);
    const at = texts.map((t) => store.append(t));
    expect(store.onDisk).toBe(false);
    at.forEach((a, i) => expect(store.read(a)).toBe(texts[i]));
    store.close();
  });
});

describe('SpillingRunDedup', () => {
  it('remembers every answer exactly across disk spills, per lookup, odd numbers included', () => {
    const dir = tempDir();
    const cache = new SpillingRunDedup<object>(2, { dir, bufferBytes: 512 });
    const numbers = Array.from({ length: 3000 }, (_, i) => String(12_015_550_000 + i * 37));
    numbers.push('0012015550123', '12345678901234567890', '1', '999999999999999');
    numbers.forEach((n, i) => {
      cache.finish(0, cacheKey(n), { result: { lrn: n, i, nested: { lata: String(i % 500) } }, error: null, fetchedAt: 1_700_000_000_000 + i, cached: i % 2 === 0 });
      if (i % 3 === 0) cache.finish(1, cacheKey(n), { result: null, error: { code: 'invalid_number', message: `bad ${n}` } });
    });
    expect(cache.size).toBe(numbers.length + Math.ceil(numbers.length / 3));
    numbers.forEach((n, i) => {
      expect(cache.finished(0, cacheKey(n))).toEqual({ result: { lrn: n, i, nested: { lata: String(i % 500) } }, error: null, fetchedAt: 1_700_000_000_000 + i, cached: i % 2 === 0 });
      expect(cache.finished(1, cacheKey(n))).toEqual(i % 3 === 0 ? { result: null, error: { code: 'invalid_number', message: `bad ${n}` } } : undefined);
    });
    // A number and the same digits with a leading zero are different numbers.
    expect(cache.finished(0, cacheKey('012015550000'))).toBeUndefined();
    expect(cache.finished(0, cacheKey('12015550001'))).toBeUndefined();
    cache.close();
    expect(cache.finished(0, cacheKey(numbers[0] as string))).toBeUndefined();
    expect(readdirSync(dir)).toEqual([]);
  });
});
