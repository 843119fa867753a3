import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  CNAM,
  LRN,
  TRUST,
  csvColumns,
  flattenResult,
  isLookupKind,
  optionsFor,
  registerLookup,
  restBody,
} from '../../src/core/lookups.js';
import { VERSION } from '../../src/core/version.js';

describe('lookup descriptors', () => {
  it('are registered once: a name already taken is refused, and only registered names are lookups', () => {
    expect(() => registerLookup({ ...LRN, title: 'Another LRN' })).toThrow('a lookup named "lrn" is already registered');
    expect([isLookupKind('trust'), isLookupKind('toString'), isLookupKind('line_type')]).toEqual([true, false, false]);
  });

  it('build REST bodies with only the requested options', () => {
    expect(restBody(LRN, '12015550123', {})).toEqual({ phone_number: '12015550123' });
    expect(restBody(LRN, '12015550123', { enhanced: true, messaging: true, spam: true })).toEqual({
      phone_number: '12015550123',
      include_enhanced_lrn: true,
      messaging_lookup: true,
    });
    expect(restBody(CNAM, '12015550123', { spam: true })).toEqual({ phone_number: '12015550123', include_spam: true });
    expect(restBody(TRUST, '12015550123', { spam: true })).toEqual({ phone_number: '12015550123' });
  });

  it('give CSV columns that depend only on the options', () => {
    expect(csvColumns(LRN, {})).toEqual(['lrn', 'lrn_activated_at']);
    expect(csvColumns(LRN, { messaging: true })).toEqual([
      'lrn',
      'lrn_activated_at',
      'messaging_provider',
      'messaging_enabled',
      'messaging_country',
      'messaging_country_code',
      'messaging_reference_id',
    ]);
    expect(csvColumns(LRN, { enhanced: true })).toContain('carrier');
    expect(csvColumns(CNAM, {})).toEqual(['number', 'cnam']);
    expect(csvColumns(CNAM, { spam: true })).toEqual(['number', 'cnam', 'spam_type']);
    expect(csvColumns(TRUST, {})).toHaveLength(8);
  });

  it('flatten results into those columns, tolerating missing and null parts', () => {
    const opts = { enhanced: true };
    const cells = flattenResult(LRN, opts, {
      lrn: '12015550000',
      lrn_activated_at: null,
      enhanced_lrn_data: { carrier: 'Verizon', timezone: '-0500' },
    });
    expect(cells).toHaveLength(csvColumns(LRN, opts).length);
    expect(cells.slice(0, 4)).toEqual(['12015550000', '', 'Verizon', '']);
    expect(flattenResult(LRN, opts, { lrn: '1', enhanced_lrn_data: null })).toHaveLength(12);
    expect(flattenResult(TRUST, {}, { is_spam: false, reputation_score: 87 })).toEqual(['', 'false', '', '', '', '87', '', '']);
  });

  it('keep only the options a lookup knows', () => {
    expect(optionsFor(CNAM, { enhanced: true, spam: true })).toEqual({ spam: true });
  });

  it('keep VERSION in step with package.json', () => {
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
    expect(VERSION).toBe(pkg.version);
  });
});
