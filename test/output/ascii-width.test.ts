// asciiWidth stands in front of string-width (textWidth, which cli-table3 measures with in the
// bundle): wherever it answers, it must answer as string-width does, and leave everything else to it.
import { Chalk } from 'chalk';
import fc from 'fast-check';
import stringWidth from 'string-width';
import { describe, expect, it } from 'vitest';
import { asciiWidth } from '../../src/output/ascii-width.js';

const colours = [1, 2, 3].map((level) => new Chalk({ level: level as 1 | 2 | 3 }));
const painted = fc.tuple(fc.integer({ min: 0, max: 2 }), fc.constantFrom('bold', 'dim', 'red', 'green', 'cyan', 'underline'), fc.string({ maxLength: 6 })).map(([level, style, text]) => {
  const c = colours[level]!;
  return (c[style as 'bold'] as (s: string) => string)(text);
});
const piece = fc.oneof(
  fc.string({ maxLength: 8 }),
  painted,
  fc.constantFrom('\x1b', '\x1b[', '\x1b[m', '\x1b[0m', '\x1b[1;m', '\x1b[;1m', '\x1b[1234m', '\x1b[12345m', '\x1b[38;5;123m', '\x1b[38;2;255;0;10m', '\x1b]8;;https://x.test\x07link\x1b]8;;\x07', '\x9b1m', '\x1b[[1m'),
  fc.constantFrom('─', '│', '┌', '┼', '╰', '…', '\u24ff', '\u2580', '\u2025', '\u2027', 'é', '中文', '😀', '👍🏽', 'e\u0301', '\t', '\n', '\x7f', '\x00', '0\ufe0f\u20e3', '#\ufe0f\u20e3', 'ｱ', '\u3000'),
);
const text = fc.array(piece, { maxLength: 6 }).map((parts) => parts.join(''));

describe('asciiWidth', () => {
  it('measures as string-width does wherever it answers, and answers for printable ASCII, the box and colour codes', () => {
    fc.assert(
      fc.property(text, (t) => {
        const w = asciiWidth(t);
        if (w !== undefined) expect(w).toBe(stringWidth(t));
      }),
      { numRuns: 20_000 },
    );
  });

  it.each([
    ['12015550123', 11],
    ['', 0],
    ['Acme Wireless, Inc. (NJ) #1 ~ 100%', 34],
    [colours[0]!.bold('lrn_activated_at'), 16],
    [colours[2]!.green.underline('ok') + ' ' + colours[1]!.dim('cached'), 9],
    ['\x1b[m\x1b[38;5;123mx\x1b[0m', 1],
    ['┌──────┬─┐ │ ok … │', 19],
  ])('answers for %j: %i', (t, width) => {
    expect(asciiWidth(t)).toBe(width);
    expect(stringWidth(t)).toBe(width);
  });

  it.each(['中文', 'é', '😀', 'a\tb', '\x1b[1234m', '\x1b]8;;https://x.test\x07link\x1b]8;;\x07', '\x9b1m'])('leaves %j to string-width', (t) => {
    expect(asciiWidth(t)).toBeUndefined();
  });
});
