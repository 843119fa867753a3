import { describe, expect, it } from 'vitest';
import { CNAM, LRN, TRUST, type LookupDescriptor, type LookupOptions } from '../../src/core/lookups.js';
import { csvHeader } from '../../src/output/csv-layout.js';

const single = (d: LookupDescriptor, options: LookupOptions = {}, inputColumns: string[] | null = null) =>
  csvHeader({ mode: 'single', lookups: [d], options, inputColumns });
const enrich = (ds: LookupDescriptor[], options: LookupOptions = {}, inputColumns: string[] | null = null) =>
  csvHeader({ mode: 'enrich', lookups: ds, options, inputColumns });

const ENHANCED = ['carrier', 'carrier_type', 'city', 'zip_code', 'county', 'timezone', 'state', 'rate_center', 'lata', 'ocn'];
const MESSAGING = ['messaging_provider', 'messaging_enabled', 'messaging_country', 'messaging_country_code', 'messaging_reference_id'];
const TRUST_FIELDS = ['phone_number', 'is_spam', 'is_robocall', 'is_scam', 'spam_type', 'reputation_score', 'trust_level', 'last_updated'];

describe('csvHeader, single lookups (list input)', () => {
  it.each<[string, LookupDescriptor, LookupOptions, string[]]>([
    ['lrn', LRN, {}, ['lrn', 'lrn_activated_at']],
    ['lrn --enhanced', LRN, { enhanced: true }, ['lrn', 'lrn_activated_at', ...ENHANCED]],
    ['lrn --messaging', LRN, { messaging: true }, ['lrn', 'lrn_activated_at', ...MESSAGING]],
    ['lrn --enhanced --messaging', LRN, { enhanced: true, messaging: true }, ['lrn', 'lrn_activated_at', ...ENHANCED, ...MESSAGING]],
    // CNAM's own `number` field would clash with ours: it carries its kind.
    ['cnam', CNAM, {}, ['cnam_number', 'cnam']],
    ['cnam --spam', CNAM, { spam: true }, ['cnam_number', 'cnam', 'spam_type']],
    ['trust', TRUST, {}, TRUST_FIELDS],
    // Options of other lookups change nothing.
    ['trust with lrn options', TRUST, { enhanced: true, spam: true }, TRUST_FIELDS],
  ])('%s', (_name, d, options, fields) => {
    expect(single(d, options)).toEqual(['input', 'number', ...fields, 'error']);
  });
});

describe('csvHeader, enrich', () => {
  it('prefixes each lookup’s columns with its kind and gives each an error column', () => {
    expect(enrich([LRN])).toEqual(['input', 'number', 'lrn_lrn', 'lrn_lrn_activated_at', 'lrn_error']);
    expect(enrich([LRN, CNAM], { spam: true, messaging: true })).toEqual([
      'input', 'number',
      'lrn_lrn', 'lrn_lrn_activated_at', ...MESSAGING.map((m) => `lrn_${m}`), 'lrn_error',
      'cnam_number', 'cnam_cnam', 'cnam_spam_type', 'cnam_error',
    ]);
    expect(enrich([LRN, CNAM, TRUST], { enhanced: true })).toEqual([
      'input', 'number',
      'lrn_lrn', 'lrn_lrn_activated_at', ...ENHANCED.map((m) => `lrn_${m}`), 'lrn_error',
      'cnam_number', 'cnam_cnam', 'cnam_error',
      ...TRUST_FIELDS.map((f) => `trust_${f}`), 'trust_error',
    ]);
  });

  it('follows the order of the lookups given', () => {
    expect(enrich([TRUST, LRN]).slice(2, 3)).toEqual(['trust_phone_number']);
    expect(enrich([TRUST, LRN]).slice(-3)).toEqual(['lrn_lrn', 'lrn_lrn_activated_at', 'lrn_error']);
  });
});

describe('csvHeader, CSV input', () => {
  it('keeps every input column in order and adds no input column', () => {
    expect(single(LRN, {}, ['id', 'phone', 'name'])).toEqual(['id', 'phone', 'name', 'number', 'lrn', 'lrn_activated_at', 'error']);
  });

  it('renames an added column that clashes with an input column, never the input column', () => {
    expect(single(TRUST, {}, ['phone_number', 'number', 'error', 'numintel_number'])).toEqual([
      'phone_number', 'number', 'error', 'numintel_number',
      'numintel_number_2', 'numintel_phone_number', ...TRUST_FIELDS.slice(1), 'numintel_error',
    ]);
    expect(enrich([LRN], {}, ['input', 'lrn_lrn', 'lrn_error'])).toEqual([
      'input', 'lrn_lrn', 'lrn_error', 'number', 'numintel_lrn_lrn', 'lrn_lrn_activated_at', 'numintel_lrn_error',
    ]);
  });

  it('depends only on the layout', () => {
    expect(single(CNAM, { spam: true }, ['a'])).toEqual(['a', 'number', 'cnam_number', 'cnam', 'spam_type', 'error']);
  });

  it('refuses a layout that cannot be written', () => {
    expect(() => csvHeader({ mode: 'single', lookups: [], options: {}, inputColumns: null })).toThrow();
    expect(() => csvHeader({ mode: 'single', lookups: [LRN, CNAM], options: {}, inputColumns: null })).toThrow();
  });
});
