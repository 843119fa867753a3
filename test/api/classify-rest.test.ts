import { describe, expect, it } from 'vitest';
import { oversize } from '../../src/api/classify.js';
import { classifyRest } from '../../src/api/rest.js';
import { CNAM, LRN, TRUST, type LookupDescriptor, type LookupOptions } from '../../src/core/lookups.js';
import { NOW, KEY, ctx } from './fixtures.js';
import { check, res, type Expect } from './responses.js';
import type { RawResponse } from '../../src/api/classify.js';

const LRN_OK = { lrn: '12015550000', lrn_activated_at: '2020-01-02T03:04:05+00:00' };
const ENH = { carrier: 'Acme', carrier_type: 'WIRELESS', city: 'Newark', zip_code: '07102', county: 'Essex', timezone: '-0500', state: 'NJ', rate_center: 'NWRK', lata: '224', ocn: '1234' };
const HTML = '<!DOCTYPE html><html><head><title>502 Bad Gateway</title><style>body{}</style></head><body><h1>Bad   Gateway</h1>\n<p>nginx</p></body></html>';
const RL_LRN = { error: 'Rate limit exceeded', message: 'Too many requests', retry_after: 2 };
const TRUST_OK = { phone_number: '12015550123', is_spam: false, is_robocall: false, is_scam: false, spam_type: null, reputation_score: 87, trust_level: 'high', last_updated: '2025-01-01T00:00:00Z' };

type Row = [name: string, d: LookupDescriptor, opts: LookupOptions, raw: RawResponse, e: Expect];

const rows: Row[] = [
  // LRN
  ['LRN ok', LRN, {}, res(200, LRN_OK), { kind: 'ok', result: LRN_OK }],
  ['LRN ok, null activation date', LRN, {}, res(200, { lrn: '1', lrn_activated_at: null }), { kind: 'ok', result: { lrn: '1', lrn_activated_at: null } }],
  ['LRN ok, enhanced, unknown fields dropped', LRN, { enhanced: true }, res(200, { ...LRN_OK, enhanced_lrn_data: { ...ENH, extra: 1 }, zz: true }), { kind: 'ok', result: { ...LRN_OK, enhanced_lrn_data: ENH } }],
  ['LRN ok, requested sub-object null or partial', LRN, { enhanced: true, messaging: true }, res(200, { ...LRN_OK, enhanced_lrn_data: null, messaging: { provider: 'X' } }), { kind: 'ok', result: { ...LRN_OK, enhanced_lrn_data: null, messaging: { provider: 'X' } } }],
  ['LRN ok, unrequested sub-object dropped', LRN, {}, res(200, { ...LRN_OK, enhanced_lrn_data: ENH }), { kind: 'ok', result: LRN_OK }],
  ['LRN lacks lrn', LRN, {}, res(200, { lrn_activated_at: null }), { kind: 'error', code: 'bad_response', status: 200, says: ['lacks lrn'] }],
  ['LRN 400 invalid number', LRN, {}, res(400, { error: 'Invalid phone number format', details: 'must be 11 digits starting with 1' }), { kind: 'invalid', code: 'invalid_number', status: 400, says: ['Invalid phone number format: must be 11 digits starting with 1'] }],
  ['LRN 422 error body', LRN, {}, res(422, { error: 'Unprocessable' }), { kind: 'invalid', code: 'invalid_number', status: 422 }],
  ['LRN 200 with an error body about the number', LRN, {}, res(200, { error: 'Invalid phone number' }), { kind: 'invalid', status: 200 }],
  ['LRN 404 error body', LRN, {}, res(404, { error: 'Not Found', details: 'no such route' }), { kind: 'error', code: 'http_error', status: 404, says: ['HTTP 404: Not Found: no such route'] }],
  ['LRN 429 body retry_after, no headers', LRN, {}, res(429, RL_LRN), { kind: 'retry', code: 'rate_limited', waitMs: 2000, says: ['Rate limit exceeded: Too many requests', 'wait 2s'] }],
  ['429 without any hint', LRN, {}, res(429, 'slow down'), { kind: 'retry', code: 'rate_limited', waitMs: null, says: ['"slow down"', 'no wait hint'] }],
  ['429 Retry-After as an HTTP date', LRN, {}, res(429, '', { 'retry-after': new Date(NOW + 7000).toUTCString() }), { kind: 'retry', waitMs: 7000 }],
  ['429: the longest hint wins (reset delta)', LRN, {}, res(429, RL_LRN, { 'retry-after': '1', 'x-ratelimit-reset': '5' }), { kind: 'retry', waitMs: 5000 }],
  ['429: draft RateLimit reset', LRN, {}, res(429, {}, { ratelimit: '"default";r=0;t=4' }), { kind: 'retry', waitMs: 4000 }],
  ['401 → fatal', LRN, {}, res(401, { error: 'unauthorized', message: 'Invalid API key' }, { 'www-authenticate': 'Bearer' }), { kind: 'fatal', code: 'unauthorized', status: 401, says: ['Invalid API key', 'NUMINTEL_API_KEY'] }],
  ['403 with an HTML page → fatal', LRN, {}, res(403, '<html><body>Forbidden</body></html>'), { kind: 'fatal', code: 'unauthorized', says: ['"Forbidden"'] }],
  ['402 → fatal', LRN, {}, res(402, { error: 'payment_required', message: 'Free tier used up' }), { kind: 'fatal', code: 'payment_required', status: 402, says: ['Free tier used up', 'wallet'] }],
  ['402 with an empty body', LRN, {}, res(402, ''), { kind: 'fatal', code: 'payment_required', says: ['(HTTP 402)'] }],
  ['500 → retry', LRN, {}, res(500, { error: 'boom' }), { kind: 'retry', code: 'server_error', status: 500, waitMs: null, says: ['boom'] }],
  ['503 Retry-After', LRN, {}, res(503, '', { 'retry-after': '5', 'x-ratelimit-reset': '60' }), { kind: 'retry', code: 'server_error', waitMs: 5000 }],
  ['502 HTML page quotes its text', LRN, {}, res(502, HTML), { kind: 'retry', code: 'server_error', says: ['"502 Bad Gateway Bad Gateway nginx"'] }],
  ['504 → timeout', LRN, {}, res(504, ''), { kind: 'retry', code: 'timeout' }],
  ['408 → timeout', LRN, {}, res(408, ''), { kind: 'retry', code: 'timeout' }],
  ['501 is not retried', LRN, {}, res(501, 'nope'), { kind: 'error', code: 'http_error' }],
  ['301 names where it points', LRN, {}, res(301, '', { location: 'https://elsewhere.example/api' }), { kind: 'error', code: 'http_error', says: ['redirected', 'elsewhere.example', 'base URL'] }],
  ['200 HTML', LRN, {}, res(200, HTML), { kind: 'error', code: 'bad_response', says: ['expected JSON', 'Bad Gateway'] }],
  ['200 empty body', LRN, {}, res(200, ''), { kind: 'error', code: 'bad_response', says: ['an empty body'] }],
  ['200 truncated JSON', LRN, {}, res(200, '{"lrn":"1201'), { kind: 'error', code: 'bad_response', says: ['{"lrn":"1201'] }],
  ['200 JSON array', LRN, {}, res(200, [LRN_OK]), { kind: 'error', code: 'bad_response', says: ['unexpected JSON shape'] }],
  ['200 JSON string', LRN, {}, res(200, 'null'), { kind: 'error', code: 'bad_response' }],
  ['a body echoing the key is withheld', LRN, {}, res(401, { error: `bad key ${KEY}` }), { kind: 'fatal', says: ["(the server's text is withheld: it quotes the API key)"] }],
  ['418 other 4xx', LRN, {}, res(418, ''), { kind: 'error', code: 'http_error', says: ['HTTP 418'] }],
  ['400 not about the number, non-JSON', LRN, {}, res(400, 'Bad Request'), { kind: 'error', code: 'http_error' }],
  ['400 non-JSON about the number', LRN, {}, res(400, 'invalid phone number'), { kind: 'invalid', code: 'invalid_number' }],
  // CNAM
  ['CNAM ok', CNAM, {}, res(200, { data: { number: '12015550123', cnam: 'JOHN DOE' }, errors: [] }), { kind: 'ok', result: { number: '12015550123', cnam: 'JOHN DOE' } }],
  ['CNAM ok, null name', CNAM, {}, res(200, { data: { number: '12015550123', cnam: null }, errors: [] }), { kind: 'ok', result: { number: '12015550123', cnam: null } }],
  ['CNAM ok with spam', CNAM, { spam: true }, res(200, { data: { number: '1', cnam: 'X', spam_type: 'ROBOCALL' }, errors: [] }), { kind: 'ok', result: { number: '1', cnam: 'X', spam_type: 'ROBOCALL' } }],
  ['CNAM 400 INVALID_NUMBER envelope', CNAM, { spam: true }, res(400, { data: { number: '', cnam: null, spam_type: 'INVALID_NUMBER' }, errors: ['Invalid phone number format'] }), { kind: 'invalid', code: 'invalid_number', status: 400, says: ['Invalid phone number format'] }],
  ['CNAM 200 INVALID_NUMBER envelope, spam off', CNAM, {}, res(200, { data: { number: '', cnam: null, spam_type: 'INVALID_NUMBER' }, errors: [] }), { kind: 'invalid', status: 200, says: ['INVALID_NUMBER'] }],
  ['CNAM 200 errors with null data', CNAM, {}, res(200, { data: null, errors: ['Number not recognised'] }), { kind: 'invalid', status: 200, says: ['Number not recognised'] }],
  ['CNAM 404 errors with null data', CNAM, {}, res(404, { data: null, errors: ['route not found'] }), { kind: 'error', code: 'http_error' }],
  ['CNAM 429 envelope with headers', CNAM, {}, res(429, { data: null, errors: ['Rate limit exceeded'] }, { 'retry-after': '1', 'x-ratelimit-limit': '50', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(NOW / 1000 + 3) }), { kind: 'retry', code: 'rate_limited', waitMs: 3000, says: ['Rate limit exceeded'] }],
  ['CNAM lacks number', CNAM, {}, res(200, { data: { cnam: 'X' }, errors: [] }), { kind: 'error', code: 'bad_response', says: ['lacks number'] }],
  ['CNAM empty envelope', CNAM, {}, res(200, { data: null, errors: [] }), { kind: 'error', code: 'bad_response' }],
  ['CNAM top-level result without envelope', CNAM, {}, res(200, { number: '1', cnam: 'X' }), { kind: 'error', code: 'bad_response' }],
  // Trust
  ['trust ok', TRUST, {}, res(200, { success: true, data: TRUST_OK }), { kind: 'ok', result: TRUST_OK }],
  ['trust 400 success:false', TRUST, {}, res(400, { success: false, error: 'Bad input' }), { kind: 'invalid', status: 400, says: ['Bad input'] }],
  ['trust 200 success:false about the number', TRUST, {}, res(200, { success: false, error: 'phone number must be 11 digits' }), { kind: 'invalid', status: 200 }],
  ['trust 200 success:false otherwise', TRUST, {}, res(200, { success: false, error: 'temporarily disabled' }), { kind: 'error', code: 'http_error', status: 200, says: ['temporarily disabled'] }],
  ['trust 429 success:false', TRUST, {}, res(429, { success: false, error: 'rate limited' }, { 'retry-after': '2' }), { kind: 'retry', code: 'rate_limited', waitMs: 2000 }],
  ['trust 500 success:false', TRUST, {}, res(500, { success: false, error: 'oops' }), { kind: 'retry', code: 'server_error' }],
  ['trust success without data', TRUST, {}, res(200, { success: true }), { kind: 'error', code: 'bad_response' }],
  ['trust lacks fields', TRUST, {}, res(200, { success: true, data: { phone_number: '1', is_spam: false } }), { kind: 'error', code: 'bad_response', says: ['is_robocall', 'last_updated'] }],
  ['trust 403', TRUST, {}, res(403, { success: false, error: 'forbidden' }), { kind: 'fatal', code: 'unauthorized' }],
];

describe('classifyRest', () => {
  it.each(rows)('%s', (_name, d, opts, raw, e) => {
    const a = classifyRest(d, opts, raw, ctx);
    check(a, e);
    if (a.kind !== 'ok') expect(a.error.message).not.toContain(KEY);
  });

  it('keeps the descriptor order and drops fields the description does not know', () => {
    const body = { zz: 1, enhanced_lrn_data: { ocn: '1', carrier: 'A' }, lrn_activated_at: null, lrn: '1' };
    const a = classifyRest(LRN, { enhanced: true }, res(200, body), ctx);
    expect(a.kind).toBe('ok');
    if (a.kind !== 'ok') return;
    expect(Object.keys(a.result)).toEqual(['lrn', 'lrn_activated_at', 'enhanced_lrn_data']);
    expect(Object.keys(a.result.enhanced_lrn_data as object)).toEqual(['carrier', 'ocn']);
  });

  it('a value of the wrong type is an unreadable answer naming the field, not a result', () => {
    const a = classifyRest(TRUST, {}, res(200, { success: true, data: { ...TRUST_OK, reputation_score: '87', trust_level: 3 } }), ctx);
    expect(a).toMatchObject({ kind: 'error', error: { code: 'bad_response', message: expect.stringContaining('the result has reputation_score, trust_level of the wrong type') } });
    for (const lrn of [12015550123, ['12015550123'], { v: '12015550123' }, true]) {
      expect(classifyRest(LRN, {}, res(200, { ...LRN_OK, lrn }), ctx)).toMatchObject({ kind: 'error', error: { code: 'bad_response' } });
    }
  });

  it('keeps unknown values of the right type exactly as sent', () => {
    const trust = { ...TRUST_OK, spam_type: 'TELEMARKETER' };
    expect(classifyRest(TRUST, {}, res(200, { success: true, data: trust }), ctx)).toMatchObject({ kind: 'ok', result: trust });
    const clean = { ...TRUST_OK, spam_type: null };
    expect(classifyRest(TRUST, {}, res(200, { success: true, data: clean }), ctx)).toMatchObject({ kind: 'ok', result: clean });
  });

  it('carries the rate headers on every class', () => {
    const headers = { 'x-ratelimit-limit': '200', 'x-ratelimit-remaining': '199', 'x-ratelimit-reset': '1' };
    const rate = { limit: 200, remaining: 199, resetAt: NOW + 1000 };
    for (const raw of [res(200, LRN_OK, headers), res(400, { error: 'x' }, headers), res(429, '', headers), res(401, '', headers), res(200, '<html>', headers)]) {
      expect(classifyRest(LRN, {}, raw, ctx).rate).toEqual(rate);
    }
    expect(classifyRest(LRN, {}, res(200, LRN_OK), ctx).rate).toBeUndefined();
  });

  it('never throws, whatever the body', () => {
    const bodies = ['{', '[]', '"x"', '0', 'true', '{"data":[]}', '{"success":"yes"}', '\u0000\u001b[31m', '{"errors":{}}', '{"error":{"message":{}}}'];
    for (const d of [LRN, CNAM, TRUST]) {
      for (const status of [200, 204, 400, 404, 429, 500, 599, 600, 0]) {
        for (const text of bodies) {
          const a = classifyRest(d, {}, { status, headers: {}, text }, ctx);
          expect(a.kind).not.toBe('ok');
          // oxlint-disable-next-line no-control-regex
          if (a.kind !== 'ok') expect(a.error.message).not.toMatch(/[\u0000-\u001f]/);
        }
      }
    }
  });
});

describe('oversize', () => {
  it('is a bad_response on 2xx, keeping the rate', () => {
    const a = oversize(200, { 'x-ratelimit-remaining': '3' }, 1024, ctx);
    check(a, { kind: 'error', code: 'bad_response', says: ['exceeds 1024 bytes'] });
    expect(a.rate).toEqual({ remaining: 3 });
  });

  it('keeps the class the status decides', () => {
    check(oversize(429, { 'retry-after': '2' }, 1024, ctx), { kind: 'retry', code: 'rate_limited', waitMs: 2000 });
    check(oversize(401, {}, 1024, ctx), { kind: 'fatal', code: 'unauthorized' });
  });
});
