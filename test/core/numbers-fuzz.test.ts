// Fuzzing the number parser (fast-check, bounded runs): whatever a cell holds — unicode digits,
// NUL, emoji, huge runs of spaces — parseNumber returns a well-formed answer and never throws;
// every way of writing a valid number gives the same 11 digits.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseNumber } from '../../src/core/numbers.js';

const VALID = /^1[2-9]\d\d[2-9]\d{6}$/;

function wellFormed(input: string, validate: boolean): void {
  const r = parseNumber(input, { validate });
  if (r.ok) expect(r.number).toMatch(validate ? VALID : /^\d+$/);
  else {
    expect(r.message.length).toBeGreaterThan(0);
    expect(r.message.length).toBeLessThan(200);
  }
}

const nasty = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 80 }),
  fc.string({ unit: fc.constantFrom(...' \t\n\u00a0\u2007\u0000x#+-().0123456789٠١٢٣٤٥٦٧٨٩０１２３😀e'.split('')), maxLength: 120 }),
  fc.tuple(fc.constantFrom(' ', '\t', '0', 'x', '#', '/'), fc.integer({ min: 1_000, max: 200_000 }), fc.string({ maxLength: 5 })).map(([c, n, tail]) => `2015550123${c.repeat(n)}${tail}`),
);

describe('parseNumber under fuzzing', () => {
  it('never throws and always answers well formed (validated and --no-validate)', () => {
    fc.assert(
      fc.property(nasty, fc.boolean(), (input, validate) => wellFormed(input, validate)),
      { numRuns: 3000, seed: 20261122 },
    );
  });

  it('a huge cell is refused as too long, not scanned by any pattern', () => {
    const r = parseNumber(`2015550123${' '.repeat(160_000)}x`);
    expect(r).toEqual({ ok: false, message: 'too long (160011 characters) to be a phone number' });
  });

  it('every common way of writing a valid number gives its 11 digits', () => {
    const national = fc.tuple(fc.integer({ min: 2, max: 9 }), fc.integer({ min: 0, max: 99 }), fc.integer({ min: 2, max: 9 }), fc.integer({ min: 0, max: 99 }), fc.integer({ min: 0, max: 9999 }));
    const sep = fc.constantFrom('', ' ', '-', '.', '  ');
    fc.assert(
      fc.property(national, sep, sep, fc.constantFrom('', '1', '+1 ', '1-', '+1'), fc.boolean(), fc.constantFrom('', ' x12', ' ext. 345', ' #9', 'ext7'), (n, s1, s2, prefix, parens, ext) => {
        const [a, b, c, d, e] = n;
        const area = `${a}${String(b).padStart(2, '0')}`;
        const exchange = `${c}${String(d).padStart(2, '0')}`;
        const line = String(e).padStart(4, '0');
        const expected = `1${area}${exchange}${line}`;
        const written = `${prefix}${parens ? `(${area})` : area}${s1}${exchange}${s2}${line}${ext}`;
        const r = parseNumber(written);
        // The library may call a range unassigned; it must never give other digits.
        if (r.ok) expect(r.number).toBe(expected);
        else expect(r.message).toMatch(/not a valid U\.S\. number/);
        expect(parseNumber(written, { validate: false })).toEqual({ ok: true, number: expected });
      }),
      { numRuns: 3000, seed: 7 },
    );
  });
});
