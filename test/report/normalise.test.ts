// The vocabulary tables: line types as different sources spell them, why numbers were refused
// (the validator's own messages), zone names, porting ages and the reader's dates.
import { describe, expect, it } from 'vitest';
import { parseNumber } from '../../src/core/numbers.js';
import { invalidReason, lineClass, parseIso, recency, zoneLabel } from '../../src/report/normalise.js';
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
    ['555-0199', 'too short'],
    ['1201555012345678', 'too long'],
    ['(123) 555-0101', 'invalid area code'],
    ['201-055-0101', 'invalid exchange'],
    ['call me', 'letters'],
    ['+44 20 7946 0958', 'not a U.S. number'],
  ])('%j: %s', (input, want) => {
    expect(reason(input)).toBe(want);
  });
  it('the service\u2019s own refusal', () => {
    expect(invalidReason('the service says the number is invalid (HTTP 400)')).toBe('refused by the service');
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
