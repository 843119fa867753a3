import { parse, validate } from 'graphql';
import { describe, expect, it } from 'vitest';
import { buildQuery, classifyGraphql, graphqlRequest } from '../../src/api/graphql.js';
import { classifyRest } from '../../src/api/rest.js';
import { CNAM, LOOKUPS, LRN, TRUST, type FieldSpec, type LookupDescriptor, type LookupOptions } from '../../src/core/lookups.js';
import { KEY, NOW, combinations, ctx } from './fixtures.js';
import { SPEC_SCHEMA as SCHEMA } from './graphql-spec-schema.js';
import { check, res, type Expect } from './responses.js';
import type { RawResponse } from '../../src/api/classify.js';

const cases = Object.values(LOOKUPS).flatMap((d) => combinations(d).map((opts) => [d.kind, JSON.stringify(opts), d, opts] as const));

describe('buildQuery', () => {
  it('builds the documented LRN query with both options', () => {
    expect(buildQuery(LRN, { enhanced: true, messaging: true })).toBe(
      'query($phoneNumber: String!, $includeEnhancedLrn: Boolean, $includeMessaging: Boolean) { lookupLrn(phoneNumber: $phoneNumber, includeEnhancedLrn: $includeEnhancedLrn, includeMessaging: $includeMessaging) { lrn lrn_activated_at enhanced_lrn_data { carrier carrier_type city zip_code county timezone state rate_center lata ocn } messaging { provider enabled country country_code reference_id } } }',
    );
    expect(buildQuery(LRN, {})).toBe('query($phoneNumber: String!) { lookupLrn(phoneNumber: $phoneNumber) { lrn lrn_activated_at } }');
    expect(buildQuery(TRUST, {})).toBe(
      'query($phoneNumber: String!) { trustLookup(phoneNumber: $phoneNumber) { phoneNumber isSpam isRobocall isScam spamType reputationScore trustLevel lastUpdated } }',
    );
    expect(buildQuery(CNAM, { spam: true })).toBe(
      'query($phoneNumber: String!, $includeSpam: Boolean) { lookupCnam(phoneNumber: $phoneNumber, includeSpam: $includeSpam) { number cnam spam_type } }',
    );
  });

  it.each(cases)('%s %s: valid against the documented schema, options passed only when on', (_k, _o, d, opts) => {
    const { path, body } = graphqlRequest(d, '12015550123', opts);
    expect(path).toBe('/graphql');
    expect(validate(SCHEMA, parse(body.query))).toEqual([]);
    const on = d.options.filter((o) => opts[o.name]);
    expect(body.variables).toEqual({ phoneNumber: '12015550123', ...Object.fromEntries(on.map((o) => [o.graphqlArg, true])) });
    for (const o of d.options) expect(body.query.includes(`$${o.graphqlArg}`)).toBe(opts[o.name] === true);
    for (const f of d.fields.filter((x) => x.option)) {
      expect(new RegExp(`\\b${f.graphqlName}\\b`).test(body.query)).toBe(opts[f.option!] === true);
    }
  });

  it('ignores options the lookup does not have, and differs per option it has', () => {
    expect(buildQuery(LRN, { enhanced: true })).toBe(buildQuery(LRN, { enhanced: true, spam: true }));
    expect(buildQuery(LRN, { enhanced: true })).not.toBe(buildQuery(LRN, { messaging: true }));
  });
});

/** A sample result in REST names, values by type, for whatever fields are active. */
function sample(fields: readonly FieldSpec[], opts: LookupOptions, naming: 'rest' | 'graphql'): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const f of fields) {
    if (f.option && !opts[f.option]) continue;
    const key = naming === 'rest' ? f.name : f.graphqlName;
    out[key] = f.type === 'object' ? sample(f.fields ?? [], opts, naming) : f.type === 'boolean' ? true : f.type === 'integer' ? 42 : f.nullable ? null : `v-${f.name}`;
  }
  return out;
}

function restEnvelope(d: LookupDescriptor, result: unknown): unknown {
  if (d.envelope === 'data-errors') return { data: result, errors: [] };
  if (d.envelope === 'success-data') return { success: true, data: result };
  return result;
}

describe('GraphQL result mapping', () => {
  it.each(cases)('%s %s: the same result as REST, in the same key order', (_k, _o, d, opts) => {
    const viaRest = classifyRest(d, opts, res(200, restEnvelope(d, sample(d.fields, opts, 'rest'))), ctx);
    const viaGraphql = classifyGraphql(d, opts, res(200, { data: { [d.graphqlField]: sample(d.fields, opts, 'graphql') } }), ctx);
    expect(viaRest.kind).toBe('ok');
    expect(viaGraphql).toEqual(viaRest);
    if (viaRest.kind === 'ok' && viaGraphql.kind === 'ok') {
      expect(JSON.stringify(viaGraphql.result)).toBe(JSON.stringify(viaRest.result));
    }
  });

  it('maps trust camelCase to the REST names', () => {
    const data = { trustLookup: { phoneNumber: '12015550123', isSpam: true, isRobocall: false, isScam: false, spamType: 'SPAM', reputationScore: 12, trustLevel: 'low', lastUpdated: '2025-01-01T00:00:00Z' } };
    check(classifyGraphql(TRUST, {}, res(200, { data }), ctx), {
      kind: 'ok',
      result: { phone_number: '12015550123', is_spam: true, is_robocall: false, is_scam: false, spam_type: 'SPAM', reputation_score: 12, trust_level: 'low', last_updated: '2025-01-01T00:00:00Z' },
    });
  });

  it('leaves out a sub-object that was not requested, even if the server sends it', () => {
    const a = classifyGraphql(LRN, {}, res(200, { data: { lookupLrn: { lrn: '1', lrn_activated_at: null, enhanced_lrn_data: null, messaging: { provider: 'x' } } } }), ctx);
    expect(a.kind === 'ok' && a.result).toEqual({ lrn: '1', lrn_activated_at: null });
  });
});

const err = (code: string | undefined, message = 'something', extra: Record<string, unknown> = {}) => ({
  message,
  ...(code === undefined ? {} : { extensions: { code, ...extra } }),
});
const nullData = (d: LookupDescriptor, ...errors: unknown[]) => ({ data: { [d.graphqlField]: null }, errors });

type Row = [name: string, d: LookupDescriptor, raw: RawResponse, e: Expect];
const rl = { 'x-ratelimit-limit': '200', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '1', 'retry-after': '1' };

const rows: Row[] = [
  ['401 UNAUTHENTICATED', LRN, res(401, { data: null, errors: [err('UNAUTHENTICATED', 'Invalid API key')] }), { kind: 'fatal', code: 'unauthorized', status: 401, says: ['Invalid API key'] }],
  ['200 UNAUTHENTICATED', LRN, res(200, nullData(LRN, err('UNAUTHENTICATED'))), { kind: 'fatal', code: 'unauthorized' }],
  ['200 FORBIDDEN', CNAM, res(200, nullData(CNAM, err('FORBIDDEN'))), { kind: 'fatal', code: 'unauthorized' }],
  ['402 with the partial data of the lookups before the quota ran out', LRN, res(402, { data: { lookupLrn: null, other: { lrn: '1' } }, errors: [err('PAYMENT_REQUIRED', 'Quota used up')] }), { kind: 'fatal', code: 'payment_required', status: 402 }],
  ['402 PAYMENT_REQUIRED', LRN, res(402, { errors: [err('PAYMENT_REQUIRED', 'Quota used up')] }), { kind: 'fatal', code: 'payment_required', says: ['Quota used up'] }],
  ['200 PAYMENT_REQUIRED', TRUST, res(200, nullData(TRUST, err('PAYMENT_REQUIRED'))), { kind: 'fatal', code: 'payment_required' }],
  ['429 RATE_LIMITED with headers and retryAfter', LRN, res(429, { data: null, errors: [err('RATE_LIMITED', 'slow down', { retryAfter: 3 })] }, rl), { kind: 'retry', code: 'rate_limited', waitMs: 3000 }],
  ['200 RATE_LIMITED, retryAfter only', LRN, res(200, nullData(LRN, err('RATE_LIMITED', 'slow down', { retryAfter: 2 }))), { kind: 'retry', code: 'rate_limited', waitMs: 2000 }],
  ['200 INVALID_NUMBER', LRN, res(200, nullData(LRN, err('INVALID_NUMBER', 'Invalid phone number format'))), { kind: 'invalid', code: 'invalid_number', status: 200, says: ['Invalid phone number format'] }],
  ['400 BAD_USER_INPUT', CNAM, res(400, { errors: [err('BAD_USER_INPUT', 'bad phoneNumber')] }), { kind: 'invalid', code: 'invalid_number', status: 400 }],
  ['no code: a message about an invalid number', TRUST, res(200, nullData(TRUST, { message: 'Invalid phone number: must be 11 digits' })), { kind: 'invalid' }],
  ['no code: unauthorized by message', LRN, res(200, { errors: [{ message: 'Unauthorized' }] }), { kind: 'fatal', code: 'unauthorized' }],
  ['no code: rate limit by message', LRN, res(200, { errors: ['Rate limit exceeded'] }), { kind: 'retry', code: 'rate_limited' }],
  ['200 INTERNAL_SERVER_ERROR', LRN, res(200, nullData(LRN, err('INTERNAL_SERVER_ERROR'))), { kind: 'retry', code: 'server_error' }],
  ['500 INTERNAL_SERVER_ERROR', LRN, res(500, { errors: [err('INTERNAL_SERVER_ERROR', 'boom')] }), { kind: 'retry', code: 'server_error', says: ['boom'] }],
  ['503 HTML', LRN, res(503, '<html><title>Unavailable</title></html>', { 'retry-after': '4' }), { kind: 'retry', code: 'server_error', waitMs: 4000 }],
  ['400 GRAPHQL_PARSE_FAILED', LRN, res(400, { errors: [err('GRAPHQL_PARSE_FAILED', 'Syntax Error: Expected Name')] }), { kind: 'error', code: 'http_error', status: 400, says: ['Syntax Error', 'GRAPHQL_PARSE_FAILED'] }],
  ['400 GRAPHQL_VALIDATION_FAILED', LRN, res(400, { errors: [err('GRAPHQL_VALIDATION_FAILED', 'Cannot query field "x"')] }), { kind: 'error', code: 'http_error', says: ['GRAPHQL_VALIDATION_FAILED'] }],
  ['unknown code', LRN, res(200, nullData(LRN, err('WEIRD', 'hmm'))), { kind: 'error', code: 'http_error', says: ['hmm (WEIRD)'] }],
  ['the most serious of several errors wins', LRN, res(200, nullData(LRN, err('INVALID_NUMBER'), err('UNAUTHENTICATED'))), { kind: 'fatal', code: 'unauthorized' }],
  ['partial data with errors → ok', LRN, res(200, { data: { lookupLrn: { lrn: '1', lrn_activated_at: null } }, errors: [err('INTERNAL_SERVER_ERROR', 'carrier db down')] }), { kind: 'ok', result: { lrn: '1', lrn_activated_at: null } }],
  ['CNAM spam_type INVALID_NUMBER', CNAM, res(200, { data: { lookupCnam: { number: '', cnam: null, spam_type: 'INVALID_NUMBER' } } }), { kind: 'invalid', code: 'invalid_number' }],
  ['data null without errors', LRN, res(200, { data: null }), { kind: 'error', code: 'bad_response' }],
  ['result lacks a required field', TRUST, res(200, { data: { trustLookup: { phoneNumber: '1' } } }), { kind: 'error', code: 'bad_response', says: ['lacks is_spam'] }],
  ['non-JSON 200', LRN, res(200, 'OK'), { kind: 'error', code: 'bad_response' }],
  ['REST-shaped answer on /graphql', LRN, res(200, { lrn: '1', lrn_activated_at: null }), { kind: 'error', code: 'bad_response' }],
  ['404 (no GraphQL endpoint)', LRN, res(404, 'Cannot POST /graphql'), { kind: 'error', code: 'http_error', status: 404 }],
  ['errors without a message', LRN, res(200, { errors: [{}] }), { kind: 'error', code: 'http_error' }],
];

describe('classifyGraphql', () => {
  it.each(rows)('%s', (_name, d, raw, e) => {
    const a = classifyGraphql(d, {}, raw, ctx);
    check(a, e);
    if (a.kind !== 'ok') expect(a.error.message).not.toContain(KEY);
  });

  it('reads the same rate headers as REST', () => {
    const a = classifyGraphql(LRN, {}, res(200, { data: { lookupLrn: { lrn: '1', lrn_activated_at: null } } }, rl), ctx);
    expect(a.rate).toEqual({ limit: 200, remaining: 0, resetAt: NOW + 1000 });
  });

  it('an invalid number reads exactly as the service put it, as over REST', () => {
    const words = 'Invalid phone number format: phoneNumber must be 11 digits starting with 1';
    const a = classifyGraphql(LRN, {}, res(200, nullData(LRN, err('INVALID_NUMBER', words))), ctx);
    expect(a.kind === 'invalid' && a.error).toEqual({ code: 'invalid_number', message: words, status: 200 });
    const r = classifyRest(LRN, {}, res(400, { error: 'Invalid phone number format', details: 'phone_number must be 11 digits starting with 1' }), ctx);
    expect(r.kind === 'invalid' && r.error.message).toBe('Invalid phone number format: phone_number must be 11 digits starting with 1');
  });

  it('keeps a requested sub-object that came back null beside an error about it, as REST would', () => {
    const body = {
      data: { lookupLrn: { lrn: '1', lrn_activated_at: null, enhanced_lrn_data: null } },
      errors: [{ message: 'carrier db down', path: ['lookupLrn', 'enhanced_lrn_data'], extensions: { code: 'INTERNAL_SERVER_ERROR' } }],
    };
    const a = classifyGraphql(LRN, { enhanced: true }, res(200, body), ctx);
    expect(a.kind === 'ok' && a.result).toEqual({ lrn: '1', lrn_activated_at: null, enhanced_lrn_data: null });
  });

  it('redacts the key when a server echoes it in an error', () => {
    const a = classifyGraphql(LRN, {}, res(200, { errors: [err('UNAUTHENTICATED', `unknown key ${KEY}`)] }), ctx);
    expect(a.kind).toBe('fatal');
    if (a.kind !== 'ok') expect(a.error.message).not.toContain(KEY);
  });
});
