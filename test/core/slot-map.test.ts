import { describe, expect, it } from 'vitest';
import { SlotMap } from '../../src/core/slot-map.js';

describe('SlotMap: values that come and go, by key', () => {
  it('finds what was set, by number or by text key, until it is deleted', () => {
    const t = new SlotMap<number | string, { n: number }>();
    const a = { n: 1 };
    const b = { n: 2 };
    t.set(12015550123, a);
    t.set('0:+44 20 7946 0000', b);
    expect(t.get(12015550123)).toBe(a);
    expect(t.get('0:+44 20 7946 0000')).toBe(b);
    expect(t.get(12015550124)).toBeUndefined();
    t.delete(12015550123);
    expect(t.get(12015550123)).toBeUndefined();
    expect(t.get('0:+44 20 7946 0000')).toBe(b);
    // Deleting what is not there changes nothing.
    t.delete(12015550123);
    t.delete('nothing');
    expect(t.get('0:+44 20 7946 0000')).toBe(b);
  });

  it('a key set again holds the newer value; a key set after its delete is found again', () => {
    const t = new SlotMap<number, string>();
    t.set(1, 'first');
    t.set(1, 'second');
    expect(t.get(1)).toBe('second');
    t.delete(1);
    t.set(1, 'third');
    expect(t.get(1)).toBe('third');
  });

  it('keeps thousands set and deleted in any order apart (emptied places are reused)', () => {
    const t = new SlotMap<number, number>();
    const live = new Map<number, number>();
    let seed = 7;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31);
    for (let step = 0; step < 20_000; step++) {
      const key = next() % 500;
      if (next() % 3 === 0) {
        t.delete(key);
        live.delete(key);
      } else {
        t.set(key, step);
        live.set(key, step);
      }
    }
    for (let key = 0; key < 500; key++) expect(t.get(key)).toBe(live.get(key));
  });
});
