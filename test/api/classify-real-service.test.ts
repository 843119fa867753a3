// The real service's shapes (shared/spec/real-service-notes.md) on every endpoint and both
// transports' shared classifier: the three error body formats, both 429 spellings, PROVIDER_ERROR,
// INSUFFICIENT_BALANCE, the invalid-number codes with the service's own message, unknown values
// passed through, wrong-typed values refused.
import { describe, expect, it } from 'vitest';
import { classifyRest } from '../../src/api/rest.js';
import { CNAM, LRN, TRUST } from '../../src/core/lookups.js';
import { ctx } from './fixtures.js';
import { res } from './responses.js';

const ENDPOINTS = [LRN, CNAM, TRUST] as const;

describe.each(ENDPOINTS)('real-service error bodies on $kind', (d) => {
  const classify = (status: number, body: unknown, headers: Record<string, string> = {}) => classifyRest(d, {}, res(status, body, headers), ctx);

  it('429 in format B with code rate_limited and retry_after', () => {
    const a = classify(429, { error: 'Too Many Requests', code: 'rate_limited', message: 'slow down', bucket: 'per_api_key', window_seconds: 60, retry_after: 5 });
    expect(a).toMatchObject({ kind: 'retry', rateLimited: true, waitMs: 5000, error: { code: 'rate_limited', status: 429 } });
  });

  it('429 nested, spelled RATE_LIMIT_EXCEEDED, asking for an hour', () => {
    const a = classify(429, { error: { code: 'RATE_LIMIT_EXCEEDED', message: 'please wait 1 hour', retry_after: 3600 } });
    expect(a).toMatchObject({ kind: 'retry', rateLimited: true, waitMs: 3_600_000, error: { code: 'rate_limited' } });
    expect(a.kind !== 'ok' && a.error.message).toContain('please wait 1 hour');
  });

  it('429 in format A {data, errors}', () => {
    expect(classify(429, { data: null, errors: ['Rate limit exceeded'] }, { 'retry-after': '2' })).toMatchObject({ kind: 'retry', waitMs: 2000, error: { code: 'rate_limited' } });
  });

  it('a gateway turning the 429 into a 200 or a 400: the code still says rate limited', () => {
    expect(classify(200, { error: 'Too Many Requests', code: 'RATE_LIMIT_EXCEEDED', retry_after: 1 })).toMatchObject({ kind: 'retry', rateLimited: true, waitMs: 1000 });
    expect(classify(400, { error: { code: 'rate_limited', message: 'slow down' } })).toMatchObject({ kind: 'retry', rateLimited: true });
  });

  it.each([
    [{ error: 'upstream provider unavailable — retry after a few seconds', code: 'PROVIDER_ERROR' }],
    [{ error: { code: 'PROVIDER_ERROR', message: 'upstream provider unavailable' } }],
    [{ data: null, errors: ['upstream provider unavailable'] }],
  ])('503 PROVIDER_ERROR is transient: %o', (body) => {
    expect(classify(503, body)).toMatchObject({ kind: 'retry', rateLimited: false, error: { code: 'server_error', status: 503 } });
  });

  it('PROVIDER_ERROR with a 200 status is still transient', () => {
    expect(classify(200, { error: 'upstream provider unavailable', code: 'PROVIDER_ERROR' })).toMatchObject({ kind: 'retry', error: { code: 'server_error' } });
  });

  it.each([
    [402, { error: 'Insufficient balance', code: 'INSUFFICIENT_BALANCE', details: { balance: 0 } }],
    [402, { error: { code: 'INSUFFICIENT_BALANCE', message: 'Insufficient balance' } }],
    [400, { error: 'Insufficient balance', code: 'INSUFFICIENT_BALANCE' }],
  ])('%i INSUFFICIENT_BALANCE is payment required: the run stops', (status, body) => {
    const a = classify(status, body);
    expect(a).toMatchObject({ kind: 'fatal', error: { code: 'payment_required' } });
    expect(a.kind !== 'ok' && a.error.message).toContain('Insufficient balance');
  });

  it.each([
    [{ error: 'Invalid phone number', code: 'INVALID_PHONE_NUMBER', details: { phone_number: '123' } }, 'Invalid phone number'],
    [{ error: { code: 'INTERNATIONAL_NOT_SUPPORTED', message: 'International numbers are not supported' } }, 'International numbers are not supported'],
    [{ error: 'International numbers are not supported', code: 'INTERNATIONAL_NOT_SUPPORTED' }, 'International numbers are not supported'],
    [{ data: null, errors: ['Invalid phone number'] }, 'Invalid phone number'],
  ])('400 %o is invalid_number with the service message', (body, message) => {
    expect(classify(400, body)).toMatchObject({ kind: 'invalid', error: { code: 'invalid_number', message, status: 400 } });
  });

  it.each([
    [{ data: null, errors: ['Invalid phone number format'] }],
    [{ data: {}, errors: ['Invalid phone number format'] }],
    [{ error: 'Invalid phone number' }],
  ])('200 %o, an error body with a success status, is the service refusing the number, not an unreadable answer', (body) => {
    expect(classify(200, body)).toMatchObject({ kind: 'invalid', error: { code: 'invalid_number', message: expect.stringMatching(/^Invalid phone number/), status: 200 } });
  });

  it('401 INVALID_API_KEY / MISSING_API_KEY refuse the key', () => {
    expect(classify(401, { error: 'Invalid API key', code: 'INVALID_API_KEY' })).toMatchObject({ kind: 'fatal', error: { code: 'unauthorized' } });
    expect(classify(400, { error: { code: 'MISSING_API_KEY', message: 'no key' } })).toMatchObject({ kind: 'fatal', error: { code: 'unauthorized' } });
  });

  it('500 INTERNAL_ERROR is transient; an undocumented code in a 400 is a per-number error', () => {
    expect(classify(500, { error: 'oops', code: 'INTERNAL_ERROR' })).toMatchObject({ kind: 'retry', error: { code: 'server_error' } });
    expect(classify(404, { error: { code: 'NOT_FOUND', message: 'no such route' } })).toMatchObject({ kind: 'error', error: { code: 'http_error', status: 404 } });
  });

  it('keys named __proto__ or constructor in an error body pollute nothing', () => {
    const text = '{"__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}},"error":"x","code":"PROVIDER_ERROR"}';
    expect(classifyRest(d, {}, { status: 503, headers: {}, text }, ctx)).toMatchObject({ kind: 'retry' });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe('format A on trust (its error style on the real service)', () => {
  it('a 200 whose errors say something else is a refusal quoting them', () => {
    for (const data of [null, {}]) {
      const a = classifyRest(TRUST, {}, res(200, { data, errors: ['account under review'] }), ctx);
      expect(a).toMatchObject({ kind: 'error', error: { code: 'http_error', message: 'the service refused the request (HTTP 200: account under review)' } });
    }
  });
});

describe('real-service values', () => {
  it('unknown spam_type (TELEMARKETER), a null spam_type and carrier_type WRS pass through untouched', () => {
    const trust = { phone_number: '12015550123', is_spam: true, is_robocall: false, is_scam: false, spam_type: 'TELEMARKETER', reputation_score: 30, trust_level: 'low', last_updated: '2025-01-01T00:00:00Z' };
    expect(classifyRest(TRUST, {}, res(200, { success: true, data: trust }), ctx)).toMatchObject({ kind: 'ok', result: trust });
    const cnam = { number: '12015550123', cnam: 'ACME', spam_type: null };
    expect(classifyRest(CNAM, { spam: true }, res(200, { data: cnam, errors: [] }), ctx)).toMatchObject({ kind: 'ok', result: cnam });
    const enh = { carrier: 'Acme', carrier_type: 'WRS', city: 'Newark', zip_code: '07102', county: 'Essex', timezone: 'America/New_York', state: 'NJ', rate_center: 'NWRK', lata: '224', ocn: '1234' };
    const lrn = { lrn: '12015550000', lrn_activated_at: null, enhanced_lrn_data: enh };
    expect(classifyRest(LRN, { enhanced: true }, res(200, lrn), ctx)).toMatchObject({ kind: 'ok', result: lrn });
  });

  it.each([[12015550000], [['12015550000']], [{ value: '12015550000' }]])('lrn sent as %o is bad_response, not ok', (lrn) => {
    const a = classifyRest(LRN, {}, res(200, { lrn, lrn_activated_at: null }), ctx);
    expect(a).toMatchObject({ kind: 'error', error: { code: 'bad_response', message: expect.stringContaining('lrn of the wrong type') } });
  });

  it('a wrong type inside a sub-object is named with its path', () => {
    const a = classifyRest(LRN, { enhanced: true }, res(200, { lrn: '1', lrn_activated_at: null, enhanced_lrn_data: { carrier: ['x'] } }), ctx);
    expect(a).toMatchObject({ kind: 'error', error: { code: 'bad_response', message: expect.stringContaining('enhanced_lrn_data.carrier') } });
  });
});

describe('the key, when a server echoes it not verbatim', () => {
  const KEY = 'sk_live_0123456789abcdefXYZ';
  const secretCtx = { ...ctx, secret: KEY };
  it.each([
    ['split by an HTML tag', `<html><body>unknown key sk_live_0123<b></b>456789abcdefXYZ</body></html>`],
    ['base64-encoded', `unknown credentials ${Buffer.from(`Bearer ${KEY}`).toString('base64')}`],
    ['a long run of it', 'key 456789abcdefX not found'],
    ['URL-encoded in a query', `see https://x.example/?k=${encodeURIComponent(KEY)}`],
  ])('%s: the text is withheld', (_what, text) => {
    const a = classifyRest(LRN, {}, { status: 401, headers: {}, text }, secretCtx);
    expect(a.kind).toBe('fatal');
    const message = a.kind !== 'ok' ? a.error.message : '';
    expect(message).toContain('withheld');
    expect(message).not.toMatch(/0123|456789|abcdef/);
  });

  it('a base URL with the key in its query is never echoed whole', async () => {
    const { checkBaseUrl } = await import('../../src/api/base-url.js');
    for (const url of [`https://api.example/?key=${KEY}`, `ftp://user:${KEY}@x/?key=${KEY}`, `not a url ?key=${KEY}`]) {
      let refused: unknown;
      try {
        checkBaseUrl(url, true);
      } catch (err) {
        refused = err;
      }
      expect(refused, url).toBeInstanceOf(Error);
      expect((refused as Error).message).not.toContain('0123456789');
    }
  });
});
