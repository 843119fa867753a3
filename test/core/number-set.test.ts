import { describe, expect, it } from 'vitest';
import { NumberSet } from '../../src/core/number-set.js';
import { prng } from '../../src/core/prng.js';

describe('NumberSet', () => {
  it('answers as a Set of the texts would, through many doublings, for whole numbers and other texts alike', () => {
    const random = prng(7);
    const set = new NumberSet();
    const oracle = new Set<string>();
    const pick = (): string => {
      const r = random();
      // Mostly 11-digit numbers from a small range (so they repeat), some other texts.
      if (r < 0.8) return String(12015550000 + Math.floor(random() * 40_000));
      if (r < 0.9) return `0${Math.floor(random() * 500)}`;
      return `+44 20 ${Math.floor(random() * 500)}`;
    };
    for (let i = 0; i < 100_000; i++) {
      const n = pick();
      expect(set.add(n)).toBe(!oracle.has(n));
      oracle.add(n);
    }
    expect(set.size).toBe(oracle.size);
  });

  it('keeps texts apart exactly: a text is never taken for a number or for another text', () => {
    const set = new NumberSet();
    expect(set.add('12015550123')).toBe(true);
    expect(set.add('012015550123')).toBe(true); // leading 0: not the same number
    expect(set.add('12015550123 ')).toBe(true);
    expect(set.add('999999999999999')).toBe(true); // 15 digits, the largest whole one
    expect(set.add('9999999999999999')).toBe(true); // 16 digits: a text
    expect(set.add('9999999999999998')).toBe(true); // beyond exact doubles: kept as texts, apart
    expect(set.add('12015550123')).toBe(false);
    expect(set.size).toBe(6);
  });
});
