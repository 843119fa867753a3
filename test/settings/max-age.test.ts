// --max-age and --price: what parses, to what, and the usage errors that quote the bad part.
import { describe, expect, it } from 'vitest';
import { NumintelError } from '../../src/core/errors.js';
import { defaultMaxAge, formatDuration, parseDuration, parseMaxAge } from '../../src/settings/max-age.js';
import { parsePrices, priceProperty } from '../../src/settings/prices.js';
import { findSetting, parseSetting } from '../../src/settings/known-settings.js';

const M = 60_000;
const H = 60 * M;
const D = 24 * H;

describe('parseMaxAge', () => {
  const cases: [string, Record<string, number>][] = [
    ['12h', { lrn: 12 * H, cnam: 12 * H, trust: 12 * H }],
    ['30d', { lrn: 30 * D, cnam: 30 * D, trust: 30 * D }],
    ['90m', { lrn: 90 * M, cnam: 90 * M, trust: 90 * M }],
    ['45s', { lrn: 45_000, cnam: 45_000, trust: 45_000 }],
    ['2w', { lrn: 14 * D, cnam: 14 * D, trust: 14 * D }],
    ['1.5h', { lrn: 90 * M, cnam: 90 * M, trust: 90 * M }],
    ['0s', { lrn: 0, cnam: 0, trust: 0 }],
    ['lrn=7d,cnam=30d', { lrn: 7 * D, cnam: 30 * D, trust: D }],
    [' LRN = 7D , trust=1h ', { lrn: 7 * D, cnam: 7 * D, trust: H }],
    ['cnam=30d,12h', { lrn: 12 * H, cnam: 30 * D, trust: 12 * H }],
    ['12h,cnam=30d', { lrn: 12 * H, cnam: 30 * D, trust: 12 * H }],
  ];
  it.each(cases)('%s', (text, want) => {
    expect(parseMaxAge(text, '--max-age')).toEqual(want);
  });

  it('defaults: LRN 24 h, CNAM 7 days, trust 24 h', () => {
    expect(defaultMaxAge()).toEqual({ lrn: D, cnam: 7 * D, trust: D });
  });

  const bad: [string, RegExp][] = [
    ['', /invalid max-age "" in "" from --max-age: it is empty/],
    ['12', /invalid max-age "12" in "12" from --max-age: not a duration/],
    ['12y', /"12y".*not a duration/],
    ['-1h', /"-1h".*not a duration/],
    ['lrn=7d,,cnam=1d', /"".*an empty item/],
    ['carrier=7d', /"carrier=7d".*unknown lookup "carrier" \(known: lrn, cnam, trust\)/],
    ['lrn=7d,lrn=1d', /"lrn=1d".*lrn is given twice/],
    ['lrn=soon', /"lrn=soon".*not a duration/],
  ];
  it.each(bad)('refuses %j', (text, message) => {
    let caught: unknown;
    try {
      parseMaxAge(text, '--max-age');
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(NumintelError);
    expect((caught as NumintelError).kind).toBe('usage');
    expect((caught as NumintelError).message).toMatch(message);
    expect((caught as NumintelError).hint).toMatch(/12h.*30d.*lrn=7d,cnam=30d/);
  });

  it('durations round-trip through their shortest form', () => {
    expect(parseDuration('90m')).toBe(90 * M);
    expect(['90m', '12h', '1d', '30d', '2w', '45s'].map((t) => formatDuration(parseDuration(t) as number))).toEqual(['90m', '12h', '1d', '30d', '14d', '45s']);
  });

  it('is a setting (config max-age), refused with the setting’s words when bad', () => {
    const spec = findSetting('max-age');
    expect(spec && parseSetting(spec, 'cnam=30d', 'the command line')).toEqual({ lrn: D, cnam: 30 * D, trust: D });
    expect(() => spec && parseSetting(spec, '30 days', 'profile default')).toThrow(/invalid max-age "30 days" from profile default/);
  });
});

describe('parsePrices', () => {
  it('reads prices per lookup', () => {
    expect(parsePrices('lrn=0.0005,cnam=0.006', '--price')).toEqual({ lrn: 0.0005, cnam: 0.006 });
    expect(parsePrices(' TRUST = .01 ', '--price')).toEqual({ trust: 0.01 });
  });
  it.each([
    ['0.0005', /"0.0005".*expected <lookup>=<price>/],
    ['lrn=-1', /"lrn=-1".*not a price/],
    ['lrn=free', /"lrn=free".*not a price/],
    ['sms=1', /unknown lookup "sms"/],
  ])('refuses %j', (text, message) => {
    expect(() => parsePrices(text, '--price')).toThrow(message);
  });
  it('a price’s property is the lookup’s name in camel case, as the pattern it replaced made it', () => {
    const pattern = (kind: string) => `price${kind.replace(/(^|_)([a-z])/g, (_m, _u: string, c: string) => c.toUpperCase())}`;
    const kinds = ['lrn', 'cnam', 'trust', 'line_type', 'a__b', 'x_1', '_lead', 'trail_', 'caller_id_v2', 'Up_per'];
    for (let i = 0; i < 2000; i++) kinds.push(Array.from({ length: 1 + (i % 9) }, (_, j) => 'ab_Z1_'[(i * 7 + j * 13) % 6]).join(''));
    for (const kind of kinds) expect(priceProperty(kind as never), kind).toBe(pattern(kind));
    expect(priceProperty('line_type' as never)).toBe('priceLineType');
  });
  it('price.<lookup> are settings', () => {
    const spec = findSetting('price.cnam');
    expect(spec?.property).toBe('priceCnam');
    expect(spec && parseSetting(spec, '0.006', 'x')).toBe(0.006);
    expect(() => spec && parseSetting(spec, 'cheap', 'x')).toThrow(/invalid price.cnam "cheap"/);
  });
});
