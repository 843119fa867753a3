import { describe, expect, it } from 'vitest';
import { invalidReasonOf, parseNumber } from '../../src/core/numbers.js';

describe('parseNumber', () => {
  it.each([
    ['12015550123', '12015550123'],
    ['2015550123', '12015550123'],
    ['+1 (201) 555-0123', '12015550123'],
    ['201.555.0123', '12015550123'],
    ['201-555-0123 x12', '12015550123'],
    ['201-555-0123 ext. 12', '12015550123'],
    ['(201) 555-0123 #4', '12015550123'],
    ['  1-201-555-0123  ', '12015550123'],
    ['+12015550123', '12015550123'],
    ['1 (800) 555-1212', '18005551212'],
    ['tel:+1-201-555-0123', '12015550123'],
    // Full-width forms (an East Asian input method or spreadsheet), and Arabic-Indic digits.
    ['１２０１５５５０１２３', '12015550123'],
    ['＋１ （２０１） ５５５－０１２３', '12015550123'],
    ['\u3000２０１５５５０１２３\u3000', '12015550123'],
    ['٢٠١٥٥٥٠١٢٣', '12015550123'],
    ['۲۰۱۵۵۵۰۱۲۳', '12015550123'],
  ])('normalises %j to %s', (input, expected) => {
    expect(parseNumber(input)).toEqual({ ok: true, number: expected });
  });

  it.each([
    ['', /empty/],
    ['   ', /empty/],
    ['555-0199', /too short \(7 digits\)/],
    ['201555012', /too short \(9 digits\)/],
    ['120155501234', /too long \(12 digits\)/],
    ['22015550123', /too long \(11 digits\)/],
    ['(123) 555-0101', /area code 123 is not valid/],
    ['201-055-0123', /exchange 055 is not valid/],
    ['+44 20 7946 0958', /not a U\.S\. number \(country code \+44\)/],
    ['1-800-FLOWERS', /contains letters/],
    ['n/a', /contains letters/],
    ['---', /no digits/],
    ['１－８００－ＦＬＯＷＥＲＳ', /^"１－８００－ＦＬＯＷＥＲＳ" contains letters/],
    ['５５５－０１９９', /too short \(7 digits\)/],
    ['－－－', /^no digits in "－－－"/],
  ])('refuses %j with a reason', (input, message) => {
    const parsed = parseNumber(input);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.message).toMatch(message);
  });

  it('refuses an unassigned area code that passes the digit rules', () => {
    const parsed = parseNumber('(999) 555-0101');
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.message).toMatch(/not a valid U\.S\. number/);
  });

  it('with validate:false sends the digits as given, adding the 1 to ten digits', () => {
    expect(parseNumber('(123) 456-7890', { validate: false })).toEqual({ ok: true, number: '11234567890' });
    expect(parseNumber('555-0199', { validate: false })).toEqual({ ok: true, number: '5550199' });
    expect(parseNumber('n/a', { validate: false })).toEqual({ ok: false, message: 'no digits in "n/a"' });
  });
});

describe('invalidReasonOf', () => {
  it("names the reason of every refusal's message, and of no other message", () => {
    const inputs: [string, string][] = [
      ['', 'empty'],
      ['call me', 'letters'],
      ['+', 'no_digits'],
      ['+44 20 7946 0958', 'not_us'],
      ['555-0107', 'too_short'],
      ['201555010412345', 'too_long'],
      ['1'.repeat(200), 'too_long'],
      ['101-555-0101', 'bad_area_code'],
      ['201-155-0101', 'bad_exchange'],
      ['999-555-0101', 'unassigned'],
    ];
    for (const [input, want] of inputs) {
      const parsed = parseNumber(input);
      expect(parsed.ok, input).toBe(false);
      if (!parsed.ok) expect([input, invalidReasonOf(parsed.message)]).toEqual([input, want]);
    }
    const noDigits = parseNumber('--', { validate: false });
    expect(!noDigits.ok && invalidReasonOf(noDigits.message)).toBe('no_digits');
    expect(invalidReasonOf('the service says the number is invalid (HTTP 400)')).toBeUndefined();
  });
});
