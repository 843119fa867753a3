// Outputs whose report is known: twelve enrich records written out by the real sinks as CSV,
// JSON lines and JSON, for enrich and for each single lookup, and the figures they must give
// (worked out by hand in the comments, not by the code under test).
import { LOOKUPS, type LookupKind } from '../../src/core/lookups.js';
import type { EnrichRecord, LookupError, LookupRecord, OutputRecord, Result } from '../../src/core/records.js';
import { createSink, type OutputFormat } from '../../src/output/sink.js';
import { Collect } from '../output/helpers.js';

export const AS_OF = Date.parse('2026-01-31T00:00:00Z');
export const HOSTILE_CARRIER = '<script>alert("carrier")</script>';
export const HOSTILE_NAME = `<img src=x onerror=alert('cnam')> & "friends"`;

const TOO_SHORT: LookupError = { code: 'invalid_number', message: 'too short (7 digits): a U.S. number has 10 digits, or 11 starting with 1' };
const EMPTY: LookupError = { code: 'invalid_number', message: 'empty: no phone number given' };
const NOT_ATTEMPTED: LookupError = { code: 'not_attempted', message: 'the run stopped before this row was looked up' };

function lrn(number: string, lrnValue: string, activated: string | null, carrier: string, type: string, state: string, tz: string, enabled: boolean, provider: string): Result {
  return {
    lrn: lrnValue,
    lrn_activated_at: activated,
    enhanced_lrn_data: { carrier, carrier_type: type, city: 'Somewhere', zip_code: '00000', county: 'County', timezone: tz, state, rate_center: 'RC', lata: '1', ocn: '1' },
    messaging: { provider, enabled, country: 'US', country_code: '1', reference_id: `R${number}` },
  };
}
const cnam = (number: string, name: string | null, spam: string): Result => ({ number, cnam: name, spam_type: spam });
function trust(number: string, spam: boolean, robo: boolean, scam: boolean, score: number, level: string): Result {
  const type = spam ? 'SPAM' : robo ? 'ROBOCALL' : scam ? 'SCAM' : null;
  return { phone_number: number, is_spam: spam, is_robocall: robo, is_scam: scam, spam_type: type, reputation_score: score, trust_level: level, last_updated: '2026-01-01T00:00:00Z' };
}

function rec(input: string, number: string | null, results: EnrichRecord['results'], errors: EnrichRecord['errors'] = {}): EnrichRecord {
  const full: EnrichRecord['errors'] = { lrn: null, cnam: null, trust: null, ...errors };
  const res: EnrichRecord['results'] = { lrn: null, cnam: null, trust: null, ...results };
  const none = { lrn: false, cnam: false, trust: false };
  return { input, number, ok: Object.values(full).every((e) => !e), results: res, errors: full, cached: none, fetched_at: { lrn: null, cnam: null, trust: null } };
}

const N1 = '12015550001';
export const RECORDS: EnrichRecord[] = [
  // 1: not ported, activated 3 days before, mobile
  rec('(201) 555-0001', N1, {
    lrn: lrn(N1, N1, '2026-01-28T00:00:00Z', 'Verizon Wireless', 'WIRELESS', 'NJ', '-0500', true, 'Verizon Wireless'),
    cnam: cnam(N1, 'SMITH JOHN', 'NONE'),
    trust: trust(N1, false, false, false, 95, 'high'),
  }),
  // 2: ported 20.8 days before (a -05:00 date), WRS = mobile, empty name
  rec('2015550002', '12015550002', {
    lrn: lrn('12015550002', '12015559999', '2026-01-10T00:00:00-05:00', 'T-Mobile USA', 'WRS', 'NY', '-0500', true, 'T-Mobile'),
    cnam: cnam('12015550002', '', 'SPAM'),
    trust: trust('12015550002', true, false, false, 15, 'low'),
  }),
  // 3: ported 244 days before, non-fixed VoIP
  rec('2125550003', '12125550003', {
    lrn: lrn('12125550003', '12125550000', '2025-06-01T00:00:00Z', 'Onvoy Spectrum', 'NON-FIXED VOIP', 'NY', '-0500', false, 'Sinch'),
    cnam: cnam('12125550003', 'ACME CORP', 'ROBOCALL'),
    trust: trust('12125550003', false, true, false, 42, 'medium'),
  }),
  // 4: landline activated long ago, null name, no provider
  rec('3105550004', '13105550004', {
    lrn: lrn('13105550004', '13105550004', '2010-01-01T00:00:00Z', 'AT&T', 'LANDLINE', 'CA', '-0800', false, ''),
    cnam: cnam('13105550004', null, 'NONE'),
    trust: trust('13105550004', false, false, false, 70, 'high'),
  }),
  // 5: hostile carrier and name, an unknown line type, no activation date, scam
  rec('3105550005', '13105550005', {
    lrn: lrn('13105550005', '13105550005', null, HOSTILE_CARRIER, 'PAGER', 'CA', '-0800', true, 'Bandwidth'),
    cnam: cnam('13105550005', HOSTILE_NAME, 'NONE'),
    trust: trust('13105550005', false, false, true, 5, 'low'),
  }),
  // 6: toll-free, activated an hour before
  rec('8005550006', '18005550006', {
    lrn: lrn('18005550006', '18005550006', '2026-01-30T23:00:00Z', 'Lumen', 'TOLLFREE', 'TX', '-0600', false, ''),
    cnam: cnam('18005550006', 'TOLL FREE', 'NONE'),
    trust: trust('18005550006', false, false, false, 100, 'high'),
  }),
  // 7: number 1 again (answered from the first answer: not billed)
  rec('201-555-0001', N1, {
    lrn: lrn(N1, N1, '2026-01-28T00:00:00Z', 'Verizon Wireless', 'WIRELESS', 'NJ', '-0500', true, 'Verizon Wireless'),
    cnam: cnam(N1, 'SMITH JOHN', 'NONE'),
    trust: trust(N1, false, false, false, 95, 'high'),
  }),
  // 8, 9: invalid
  rec('555-0199', null, {}, { lrn: TOO_SHORT, cnam: TOO_SHORT, trust: TOO_SHORT }),
  rec('', null, {}, { lrn: EMPTY, cnam: EMPTY, trust: EMPTY }),
  // 10: LRN and trust failed
  rec('3125550010', '13125550010', { cnam: cnam('13125550010', 'CHICAGO IL', 'NONE') }, {
    lrn: { code: 'server_error', message: 'HTTP 503: service unavailable', status: 503 },
    trust: { code: 'timeout', message: 'no answer in 15 s' },
  }),
  // 11: FIXED = landline, activated 61 days before; CNAM rate limited
  rec('3125550011', '13125550011', {
    lrn: lrn('13125550011', '13125550011', '2025-12-01T00:00:00Z', 'Comcast', 'FIXED', 'IL', '-0600', true, 'Comcast'),
    trust: trust('13125550011', false, false, false, 88, 'high'),
  }, { cnam: { code: 'rate_limited', message: 'HTTP 429', status: 429 } }),
  // 12: the run stopped first
  rec('3125550012', '13125550012', {}, { lrn: NOT_ATTEMPTED, cnam: NOT_ATTEMPTED, trust: NOT_ATTEMPTED }),
];

/** The same rows as one lookup's records. */
export function singleRecords(kind: LookupKind): LookupRecord[] {
  return RECORDS.map((r) => {
    const result = r.results[kind] ?? null;
    const error = r.errors[kind] ?? null;
    return { input: r.input, number: r.number, lookup: kind, ok: result !== null, result, error, cached: r.cached[kind] ?? false, fetched_at: r.fetched_at[kind] ?? null };
  });
}

/** The records with a CSV input row whose columns clash with numintel's (number, state, city). */
export function withInputRow<T extends OutputRecord>(records: T[]): T[] {
  return records.map((r, i) => ({ ...r, row: { name: `Person ${i + 1}`, number: r.input, state: 'ZZ', city: 'Input City' } }));
}

export async function written(records: OutputRecord[], format: OutputFormat, kinds: readonly LookupKind[], inputColumns: string[] | null = null): Promise<string> {
  const out = new Collect();
  const layout = {
    mode: kinds.length === 1 && !('results' in (records[0] as object)) ? ('single' as const) : ('enrich' as const),
    lookups: kinds.map((k) => LOOKUPS[k]),
    options: { enhanced: true, messaging: true, spam: true },
    inputColumns,
    appending: false,
  };
  const sink = await createSink(format, out, layout);
  for (const r of records) await sink.write(r);
  await sink.end();
  return out.text;
}

/** The built-in lookups: the figures below are theirs. */
export const ALL_KINDS = ['lrn', 'cnam', 'trust'] as const satisfies readonly LookupKind[];

// ---- the figures, by hand ----

export const INPUT = {
  rows: 12,
  valid: 10,
  invalid: 2,
  invalid_by_reason: { empty: 1, too_short: 1 },
  duplicates: 1,
  distinct_numbers: 9,
};

/** The figures per lookup; `cached` is 0 where the records say what was cached (JSON), null where they cannot. */
export function lookupFigures(cachedKnown: boolean): typeof LOOKUP_FIGURES {
  const cached = cachedKnown ? 0 : null;
  return {
    lrn: { ...LOOKUP_FIGURES.lrn, cached },
    cnam: { ...LOOKUP_FIGURES.cnam, cached },
    trust: { ...LOOKUP_FIGURES.trust, cached },
  } as typeof LOOKUP_FIGURES;
}

const LOOKUP_FIGURES = {
  lrn: { rows: 12, answered: 8, cached: null, billed: 7, failed: 2, failed_by_code: { not_attempted: 1, server_error: 1 } },
  cnam: { rows: 12, answered: 8, cached: null, billed: 7, failed: 2, failed_by_code: { not_attempted: 1, rate_limited: 1 } },
  trust: { rows: 12, answered: 8, cached: null, billed: 7, failed: 2, failed_by_code: { not_attempted: 1, timeout: 1 } },
};

export const LINE_TYPE = {
  base: 8,
  mobile: 3,
  landline: 2,
  voip: 1,
  toll_free: 1,
  other: 1,
  not_given: 0,
  other_codes: { PAGER: 1 },
  wireless_or_voip: 4,
  wireless_or_voip_share: 0.5,
};

export const PORTING = {
  base: 8,
  ported: 2,
  ported_share: 0.25,
  activated: { le_7d: 3, le_30d: 1, le_1y: 2, older: 1, unknown: 1 },
  activated_ported: { le_7d: 0, le_30d: 1, le_1y: 1, older: 0, unknown: 0 },
};

export const CARRIERS = {
  base: 8,
  distinct: 7,
  top: [
    { name: 'Verizon Wireless', count: 2 },
    { name: HOSTILE_CARRIER, count: 1 },
    { name: 'AT&T', count: 1 },
    { name: 'Comcast', count: 1 },
    { name: 'Lumen', count: 1 },
    { name: 'Onvoy Spectrum', count: 1 },
    { name: 'T-Mobile USA', count: 1 },
  ],
  rest: 0,
};

export const STATES = { CA: 2, NJ: 2, NY: 2, IL: 1, TX: 1 };
export const ZONES = { '-0500': 4, '-0600': 2, '-0800': 2 };
export const MESSAGING = { base: 8, enabled: 5, disabled: 3, unknown: 0, enabled_share: 0.625 };
export const PROVIDERS = { 'Verizon Wireless': 2, Bandwidth: 1, Comcast: 1, Sinch: 1, 'T-Mobile': 1 };
// Real: SMITH JOHN (twice), ACME CORP, the hostile name; placeholders: TOLL FREE, CHICAGO IL (a
// place label); none: '' and null.
export const CNAM = {
  base: 8,
  real: 4,
  placeholder: 2,
  none: 2,
  real_share: 0.5,
  placeholder_share: 0.25,
  none_share: 0.25,
  placeholder_names: { '(place label)': 1, 'TOLL FREE': 1 },
  spam_types: { NONE: 6, ROBOCALL: 1, SPAM: 1 },
};

/**
 * The numbers to act on, as of AS_OF, most severe first: row 5 (scam, low trust 5), row 3 (CNAM and
 * trust robocall), row 2 (spam in both, low trust 15, ported 20.8 days before). Row 7 repeats row 1.
 */
export const ACT_ON = {
  total: 3,
  by_reason: { scam: 1, robocall: 1, spam: 1, low_trust: 2, ported_30d: 1 },
  rows: [
    { row: 5, number: '13105550005', reasons: ['scam', 'low_trust'], trust_level: 'low', score: 5 },
    { row: 3, number: '12125550003', reasons: ['robocall'], trust_level: 'medium', score: 42 },
    { row: 2, number: '12015550002', reasons: ['spam', 'low_trust', 'ported_30d'], trust_level: 'low', score: 15, ported_days_ago: 20 },
  ],
};
export const TRUST = {
  base: 8,
  spam: 1,
  robocall: 1,
  scam: 1,
  any_flag: 3,
  spam_share: 0.125,
  robocall_share: 0.125,
  scam_share: 0.125,
  any_flag_share: 0.375,
  levels: { high: 5, low: 2, medium: 1 },
  spam_types: { ROBOCALL: 1, SCAM: 1, SPAM: 1 },
  score: {
    base: 8,
    mean: 63.8,
    // 95, 15, 42, 70, 5, 100, 95, 88
    histogram: [1, 1, 0, 0, 1, 0, 0, 1, 1, 3],
  },
};
