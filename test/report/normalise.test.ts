// The vocabulary tables: line types as different sources spell them, why numbers were refused
// (the validator's own messages), zone names, porting ages and the reader's dates.
import { describe, expect, it } from 'vitest';
import { parseNumber } from '../../src/core/numbers.js';
import { invalidReason, isFalse, isTrue, lineClass, parseIso, recency, sameNumber, zoneLabel } from '../../src/report/normalise.js';
import { STATE_TILES, stateCode } from '../../src/report/tile-map.js';
import { splitQuoted } from '../../src/report/reader.js';
import { parse } from 'csv-parse/sync';

describe('line types', () => {
  it.each([
    ['WIRELESS', 'mobile'],
    ['WRS', 'mobile'],
    ['mobile', 'mobile'],
    ['Mobile', 'mobile'],
    ['CELLULAR', 'mobile'],
    ['LANDLINE', 'landline'],
    ['LND', 'landline'],
    ['FIXED', 'landline'],
    ['fixed line', 'landline'],
    ['Fixed-Line', 'landline'],
    ['WIRELINE', 'landline'],
    ['VOIP', 'voip'],
    ['VoIP', 'voip'],
    ['NON-FIXED VOIP', 'voip'],
    ['non_fixed_voip', 'voip'],
    ['FIXED VOIP', 'voip'],
    ['TOLLFREE', 'toll_free'],
    ['FixedVoIP', 'voip'],
    ['PSTN', 'landline'],
    ['Prepaid Wireless', 'mobile'],
    ['TOLL-FREE', 'toll_free'],
    ['toll free', 'toll_free'],
    [' WIRELESS ', 'mobile'],
  ])('%s is %s', (code, cls) => {
    expect(lineClass(code)).toBe(cls);
  });

  it('a code no table knows is other (the report keeps it as written)', () => {
    for (const code of ['PAGER', 'SATELLITE', 'X-42', 'wireless-ish']) expect(lineClass(code)).toBe('other');
  });
});

describe('reasons for invalid numbers, from the validator\u2019s own messages', () => {
  const reason = (input: string) => {
    const parsed = parseNumber(input);
    if (parsed.ok) throw new Error(`${input} is valid`);
    return invalidReason(parsed.message);
  };
  it.each([
    ['', 'empty'],
    ['555-0199', 'too_short'],
    ['1201555012345678', 'too_long'],
    ['(123) 555-0101', 'bad_area_code'],
    ['201-055-0101', 'bad_exchange'],
    ['call me', 'letters'],
    ['+44 20 7946 0958', 'not_us'],
  ])('%j: %s', (input, want) => {
    expect(reason(input)).toBe(want);
  });
  it('the service\u2019s own refusal', () => {
    expect(invalidReason('the service says the number is invalid (HTTP 400)')).toBe('refused');
  });
});

describe('time zones and porting ages', () => {
  it('names the U.S. offsets and keeps anything else as written', () => {
    expect(zoneLabel('-0500')).toBe('-0500 Eastern');
    expect(zoneLabel('-1000')).toBe('-1000 Hawaii-Aleutian');
    expect(zoneLabel('America/Chicago')).toBe('America/Chicago');
  });

  it('buckets ages up to and including each bound', () => {
    const asOf = Date.parse('2026-01-31T00:00:00Z');
    expect(recency('2026-01-24T00:00:00Z', asOf)).toBe('le_7d');
    expect(recency('2026-01-23T23:59:59Z', asOf)).toBe('le_30d');
    expect(recency('2026-01-01T00:00:00Z', asOf)).toBe('le_30d');
    expect(recency('2025-12-31T23:00:00Z', asOf)).toBe('le_1y');
    expect(recency('2025-01-31T00:00:00Z', asOf)).toBe('le_1y');
    expect(recency('2025-01-30T23:59:59Z', asOf)).toBe('older');
    expect(recency('2027-01-01T00:00:00Z', asOf)).toBe('le_7d');
    expect(recency('', asOf)).toBe('unknown');
    expect(recency('not a date', asOf)).toBe('unknown');
  });

  it('reads dates as Date.parse does', () => {
    for (const s of ['2018-06-26T22:40:24-05:00', '2024-12-21T00:54:12Z', '2021-09-01T00:00:00+00:00', '2021-09-01T00:00:00.123Z', '2021-09-01T00:00:00+0530', '2021-09-01', 'Sep 1 2021', '2021-13-45T00:00:00Z']) {
      expect(parseIso(s), s).toEqual(Date.parse(s) - (s.includes('.123') ? 123 : 0));
    }
  });
});

describe('quoted CSV records', () => {
  it.each([
    'a,"b,c",d',
    '"x ""quoted"" y",,"",z',
    '"multi\nline",2',
    'plain,"tail"after,end',
    '"",""',
  ])('%j is split as csv-parse splits it', (record) => {
    const [want] = parse(record, { relax_quotes: true, relax_column_count: true }) as string[][];
    expect(splitQuoted(record)).toEqual(want);
  });
});

describe('the rest of the vocabulary', () => {
  it('an LRN is the number itself with or without the leading 1 and punctuation', () => {
    expect(sameNumber('12015550123', '12015550123')).toBe(true);
    expect(sameNumber('2015550123', '12015550123')).toBe(true);
    expect(sameNumber('+1 (201) 555-0123', '12015550123')).toBe(true);
    expect(sameNumber('12015559999', '12015550123')).toBe(false);
  });

  it('flags as services write them; anything else is neither', () => {
    for (const v of ['true', 'TRUE', 'True', '1', 'yes']) expect([isTrue(v), isFalse(v)]).toEqual([true, false]);
    for (const v of ['false', 'FALSE', '0', 'no']) expect([isTrue(v), isFalse(v)]).toEqual([false, true]);
    for (const v of ['', undefined, 'maybe']) expect([isTrue(v), isFalse(v)]).toEqual([false, false]);
  });

  it('porting dates as epoch seconds or milliseconds', () => {
    const asOf = Date.parse('2026-01-31T00:00:00Z');
    expect(recency(String(asOf / 1000 - 86_400), asOf)).toBe('le_7d');
    expect(recency(String(asOf - 40 * 86_400_000), asOf)).toBe('le_1y');
  });

  it('states by code or by name; the tile map has every state, DC and PR once, each on its own tile', () => {
    expect(stateCode(' nj ')).toBe('NJ');
    expect(stateCode('New  Jersey')).toBe('NJ');
    expect(stateCode('District of Columbia')).toBe('DC');
    expect(stateCode('Ontario')).toBe('ONTARIO');
    expect(Object.keys(STATE_TILES)).toHaveLength(52);
    expect(new Set(Object.values(STATE_TILES).map(([c, r]) => `${c},${r}`)).size).toBe(52);
    for (const [c, r] of Object.values(STATE_TILES)) expect(c < 12 && r < 8).toBe(true);
  });
});
