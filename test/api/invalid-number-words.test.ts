// looksLikeInvalidNumber's "phone/number, then a refusal within 40 characters" is written as a
// scan rather than one regex with a bounded repetition (see body.ts); it must say exactly what the
// regex says. The regex is the oracle here, on random messages made of the words that matter.
import { expect, it } from 'vitest';
import { looksLikeInvalidNumber } from '../../src/api/body.js';
import { prng } from '../../src/core/prng.js';

/** What looksLikeInvalidNumber said when it was one set of regexes. */
const OLD = (m: string) =>
  /invalid[\s_-]*(phone|number|tn|msisdn)/i.test(m) ||
  /\b(phone|number)\b.{0,40}\b(invalid|malformed|not valid|format|must be|digits?)\b/i.test(m) ||
  /\b(must be|should be|expected) \d+ digits\b/i.test(m) ||
  /\binternational (phone )?numbers? (is |are )?not supported\b/i.test(m) ||
  /\b(INVALID_PHONE_NUMBER|INTERNATIONAL_NOT_SUPPORTED)\b/.test(m);

it('agrees with the regex it replaced on 200,000 random messages', () => {
  const words = ['phone', 'number', 'Number', 'invalid', 'invalidate', 'malformed', 'not valid', 'format', 'formats', 'must be', 'digits', 'digit', 'x', 'abc', ' ', '  ', '\n', '-', '_', 'phonenumber', '12345678901234567890', 'é', '.'];
  const rnd = prng(11);
  const disagree: string[] = [];
  let positives = 0;
  for (let i = 0; i < 200_000; i++) {
    let m = '';
    const n = 1 + Math.floor(rnd() * 12);
    for (let j = 0; j < n; j++) m += words[Math.floor(rnd() * words.length)] + (rnd() < 0.6 ? ' ' : '');
    const expected = OLD(m);
    if (expected) positives++;
    if (looksLikeInvalidNumber(m) !== expected) disagree.push(m);
  }
  expect(positives).toBeGreaterThan(10_000);
  expect(disagree.slice(0, 5)).toEqual([]);
});
