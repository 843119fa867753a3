import { describe, expect, it } from 'vitest';
import { buildLookupSchema } from '../../src/sandbox/index.js';
import { SPEC_SCHEMA } from '../api/graphql-spec-schema.js';
import { schemaOutline } from '../e2e/graphql-support.js';
import { cnam, gql, lrn, post, trust } from './helpers.js';
import { sandbox } from '../support/sandbox.js';
import { steppedClock } from '../support/clock.js';

const LRN_Q = `query($n: String!, $e: Boolean, $m: Boolean) {
  lookupLrn(phoneNumber: $n, includeEnhancedLrn: $e, includeMessaging: $m) {
    lrn lrn_activated_at
    enhanced_lrn_data { carrier carrier_type city zip_code county timezone state rate_center lata ocn }
    messaging { provider enabled country country_code reference_id }
  }
}`;

describe('GraphQL schema', () => {
  it('has the types, fields and arguments of the service description', () => {
    // Built from the lookup descriptors the client's queries come from too, so it is checked against
    // the schema written by hand from the service description, not against the descriptors.
    const expected = schemaOutline(SPEC_SCHEMA);
    expect(Object.keys(expected)).toHaveLength(6);
    expect(schemaOutline(buildLookupSchema())).toEqual(expected);
  });
});

describe('GraphQL lookups', () => {
  it('gives the same LRN result as REST, sub-objects only when requested and selected', async () => {
    const sb = await sandbox();
    const n = '12125550123';
    const rest = await lrn(sb, { phone_number: n, include_enhanced_lrn: true, messaging_lookup: true });
    const all = await gql(sb, LRN_Q, { n, e: true, m: true });
    expect(all.status).toBe(200);
    expect(all.json).toEqual({ data: { lookupLrn: rest.json } });
    const plain = await gql(sb, LRN_Q, { n });
    expect(plain.json.data.lookupLrn.enhanced_lrn_data).toBeNull();
    expect(plain.json.data.lookupLrn.messaging).toBeNull();
    const unselected = await gql(sb, 'query($n: String!) { lookupLrn(phoneNumber: $n, includeEnhancedLrn: true) { lrn } }', { n });
    expect(unselected.json.data.lookupLrn).toEqual({ lrn: rest.json.lrn });
  });

  it('maps CNAM and trust with GraphQL names, several fields and aliases in one query', async () => {
    const sb = await sandbox();
    const n = '13125550199';
    const restC = await cnam(sb, { phone_number: n, include_spam: true });
    const restT = await trust(sb, { phone_number: n });
    const r = await gql(
      sb,
      `{ a: lookupCnam(phoneNumber: "${n}", includeSpam: true) { number cnam spam_type }
         b: lookupCnam(phoneNumber: "${n}") { cnam spam_type }
         t: trustLookup(phoneNumber: "${n}") { phoneNumber isSpam isRobocall isScam spamType reputationScore trustLevel lastUpdated } }`,
    );
    expect(r.status).toBe(200);
    expect(r.json.data.a).toEqual(restC.json.data);
    expect(r.json.data.b).toEqual({ cnam: restC.json.data.cnam, spam_type: null });
    const t = restT.json.data;
    expect(r.json.data.t).toEqual({
      phoneNumber: t.phone_number, isSpam: t.is_spam, isRobocall: t.is_robocall, isScam: t.is_scam,
      spamType: t.spam_type, reputationScore: t.reputation_score, trustLevel: t.trust_level, lastUpdated: t.last_updated,
    });
    expect(sb.stats().lookups).toEqual({ lrn: 0, cnam: 3, trust: 2 });
    expect(sb.stats().requests.graphql).toBe(1);
  });

  it('answers an invalid number with 200, data null for that field, INVALID_NUMBER and path', async () => {
    const sb = await sandbox();
    const r = await gql(sb, '{ x: lookupLrn(phoneNumber: "2125550123") { lrn } y: trustLookup(phoneNumber: "2125550123") { trustLevel } }');
    expect(r.status).toBe(200);
    expect(r.json.data.x).toBeNull();
    expect(r.json.data.y.trustLevel).toMatch(/^(high|medium|low)$/);
    expect(r.json.errors).toHaveLength(1);
    expect(r.json.errors[0].extensions.code).toBe('INVALID_NUMBER');
    expect(r.json.errors[0].path).toEqual(['x']);
    expect(r.json.errors[0].message).toMatch(/11 digits starting with 1/);
    expect(sb.stats().billed).toBe(1);
  });

  it('parse errors, validation errors and bad bodies are 400 with codes', async () => {
    const sb = await sandbox();
    const syntax = await gql(sb, '{ lookupLrn(');
    expect(syntax.status).toBe(400);
    expect(syntax.json.errors[0].extensions.code).toBe('GRAPHQL_PARSE_FAILED');
    expect(typeof syntax.json.errors[0].message).toBe('string');
    const unknown = await gql(sb, '{ lookupLrn(phoneNumber: "12125550123") { lrn carrier } }');
    expect(unknown.status).toBe(400);
    expect(unknown.json.errors[0].extensions.code).toBe('GRAPHQL_VALIDATION_FAILED');
    const missingArg = await gql(sb, '{ lookupCnam { cnam } }');
    expect(missingArg.json.errors[0].extensions.code).toBe('GRAPHQL_VALIDATION_FAILED');
    const badVar = await gql(sb, LRN_Q, { n: 12125550123 });
    expect(badVar.status).toBe(400);
    expect(badVar.json.errors[0].extensions.code).toBe('BAD_USER_INPUT');
    const noQuery = await post(sb, '/graphql', { variables: {} });
    expect(noQuery.status).toBe(400);
    expect(noQuery.json.errors[0].extensions.code).toBe('BAD_REQUEST');
    const junk = await post(sb, '/graphql', undefined, { raw: '{{{' });
    expect(junk.status).toBe(400);
    const get = await post(sb, '/graphql', undefined, { method: 'GET' });
    expect(get.status).toBe(405);
    expect(get.headers.get('allow')).toBe('POST');
    expect(sb.stats().billed).toBe(0);
  });

  it('a refusal of a query that names a lookup carries the rate headers of that lookup, as refusals over REST do', async () => {
    const sb = await sandbox({ limits: { cnam: 5 } }, steppedClock(1_700_000_000_000));
    for (let i = 0; i < 2; i++) expect((await gql(sb, '{ lookupCnam(phoneNumber: "12125550123") { cnam } }')).status).toBe(200);
    const rate = (r: { headers: Headers }) => [r.headers.get('x-ratelimit-limit'), r.headers.get('x-ratelimit-remaining'), r.headers.get('x-ratelimit-reset')];
    // No key: a fresh window's, as REST's 401.
    const noKey = await gql(sb, '{ lookupCnam(phoneNumber: "12125550123") { cnam } }', undefined, { key: 'wrong-key-000000' });
    expect(noKey.status).toBe(401);
    expect(rate(noKey)).toEqual(['5', '5', '1700000001']);
    // A query the schema refuses counts in no window: the key's room as it is.
    const invalid = await gql(sb, '{ lookupCnam(phoneNumber: "12125550123") { cnam carrier } }');
    expect(invalid.status).toBe(400);
    expect(rate(invalid)).toEqual(['5', '3', '1700000001']);
    // Variables that do not fit: counted, like REST's 400s.
    const badVar = await gql(sb, 'query($n: String!) { lookupCnam(phoneNumber: $n) { cnam } }', { n: 12125550123 });
    expect(badVar.status).toBe(400);
    expect(rate(badVar)).toEqual(['5', '2', '1700000001']);
    // Nothing to say which lookup: no rate headers.
    expect((await gql(sb, '{ lookupCnam(', undefined, { key: 'wrong-key-000000' })).headers.get('x-ratelimit-limit')).toBeNull();
  });

  it('rate-limits each lookup field in the same window as REST, with RATE_LIMITED and headers', async () => {
    const sb = await sandbox({ limits: { lrn: 2, cnam: 0, trust: 0 } });
    const q = '{ a: lookupLrn(phoneNumber: "12125550001") { lrn } b: lookupLrn(phoneNumber: "12125550002") { lrn } c: lookupLrn(phoneNumber: "12125550003") { lrn } }';
    const r = await gql(sb, q);
    expect(r.status).toBe(429);
    expect(r.json.errors[0].extensions.code).toBe('RATE_LIMITED');
    expect(r.json.errors[0].extensions.retryAfter).toBeGreaterThanOrEqual(1);
    expect(r.headers.get('retry-after')).not.toBeNull();
    expect(r.headers.get('x-ratelimit-limit')).toBe('2');
    expect(Number(r.headers.get('x-ratelimit-reset'))).toBeLessThan(1e9);
  });

  it('counts introspection-only queries as no lookup', async () => {
    const sb = await sandbox({ quota: 0 });
    const r = await gql(sb, '{ __typename }');
    expect(r.status).toBe(200);
    expect(r.json).toEqual({ data: { __typename: 'Query' } });
  });
});
