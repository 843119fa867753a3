// "phone/number, then a refusal within 40 characters of the same line" is written as a scan rather
// than one regex with a bounded repetition (see body.ts); it must say exactly what that regex says.
// The regex is the oracle here, alone, on random messages made of the words that matter.
import { expect, it } from 'vitest';
import { refusalNearNumberWord } from '../../src/api/body.js';
import { prng } from '../../src/core/prng.js';

/** What the scan replaced. */
const ORACLE = /\b(phone|number)\b.{0,40}\b(invalid|malformed|not valid|format|must be|digits?)\b/i;

it('agrees with the regex it replaced on 200,000 random messages', () => {
  const words = ['phone', 'number', 'Number', 'invalid', 'invalidate', 'malformed', 'not valid', 'format', 'formats', 'must be', 'digits', 'digit', 'x', 'abc', ' ', '  ', '\n', '\r', '\u2028', '-', '_', 'phonenumber', '12345678901234567890', 'é', '.'];
  const rnd = prng(11);
  const disagree: string[] = [];
  let positives = 0;
  let negativesWithBoth = 0;
  for (let i = 0; i < 200_000; i++) {
    let m = '';
    const n = 1 + Math.floor(rnd() * 12);
    for (let j = 0; j < n; j++) m += words[Math.floor(rnd() * words.length)] + (rnd() < 0.6 ? ' ' : '');
    const expected = ORACLE.test(m);
    if (expected) positives++;
    else if (/phone|number/i.test(m) && /invalid|format|digit/i.test(m)) negativesWithBoth++;
    if (refusalNearNumberWord(m) !== expected) disagree.push(m);
  }
  // Both sides of the 40-character rule are exercised, not only the easy cases.
  expect(positives).toBeGreaterThan(10_000);
  expect(negativesWithBoth).toBeGreaterThan(10_000);
  expect(disagree.slice(0, 5)).toEqual([]);
});
