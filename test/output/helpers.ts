// Shared fixtures for the output tests: a collecting stream and record builders.
import { Writable } from 'node:stream';
import type { LookupKind } from '../../src/core/lookups.js';
import type { EnrichRecord, LookupError, LookupRecord, Result } from '../../src/core/records.js';

export class Collect extends Writable {
  readonly chunks: string[] = [];
  constructor() {
    super({ decodeStrings: false });
  }
  override _write(chunk: unknown, _enc: BufferEncoding, cb: (err?: Error | null) => void): void {
    this.chunks.push(String(chunk));
    cb();
  }
  get text(): string {
    return this.chunks.join('');
  }
}

export function ok(lookup: LookupKind, input: string, number: string, result: Result, row?: Record<string, string>): LookupRecord {
  return { input, number, lookup, ok: true, result, error: null, cached: false, fetched_at: null, ...(row ? { row } : {}) };
}

export function failed(lookup: LookupKind, input: string, number: string | null, error: LookupError, row?: Record<string, string>): LookupRecord {
  return { input, number, lookup, ok: false, result: null, error, cached: false, fetched_at: null, ...(row ? { row } : {}) };
}

export function enriched(
  input: string,
  number: string,
  results: EnrichRecord['results'],
  errors: EnrichRecord['errors'] = {},
): EnrichRecord {
  const isOk = Object.values(errors).every((e) => !e);
  const cached = Object.fromEntries(Object.keys(results).map((k) => [k, false]));
  const fetched = Object.fromEntries(Object.keys(results).map((k) => [k, null]));
  return { input, number, ok: isOk, results, errors, cached, fetched_at: fetched };
}

export const LRN_RESULT = { lrn: '12015550000', lrn_activated_at: '2021-09-01T00:00:00+00:00' };
export const ENHANCED = {
  carrier: 'Verizon Wireless',
  carrier_type: 'WIRELESS',
  city: 'Jersey City',
  zip_code: '07302',
  county: 'Hudson',
  timezone: 'America/New_York',
  state: 'NJ',
  rate_center: 'JERSEYCITY',
  lata: '224',
  ocn: '6006',
};
export const MESSAGING = { provider: 'Syniverse', enabled: true, country: 'US', country_code: '1', reference_id: 'ref-1' };
export const CNAM_RESULT = { number: '12015550123', cnam: 'ACME CORP', spam_type: 'NONE' };
export const TRUST_RESULT = {
  phone_number: '12015550123',
  is_spam: true,
  is_robocall: false,
  is_scam: false,
  spam_type: 'SPAM',
  reputation_score: 12,
  trust_level: 'low',
  last_updated: '2024-01-01T00:00:00Z',
};
