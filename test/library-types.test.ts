// The library's types as a consumer meets them, checked by `npm run typecheck` (tsc --strict over
// test/): `ok` narrows a record, known vocabularies are named yet open, and a lookup's options are
// its own. The records themselves come from the sandbox, so the types describe what arrives.
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import { createClient, startSandbox, type LookupError, type LrnResult, type Sandbox, type TrustResult, type TypedLookupRecord } from '../src/index.js';

describe('the library types', () => {
  let sb: Sandbox;
  beforeAll(async () => {
    sb = await startSandbox({ port: 0 });
  });
  afterAll(() => sb.close());

  it('`ok` narrows: a result and no error, or an error', async () => {
    const client = createClient({ baseUrl: sb.url, apiKey: sb.apiKey });
    const good = await client.lookup('lrn', '2015550123', { enhanced: true });
    const bad = await client.lookup('lrn', '12');
    await client.close();
    for (const record of [good, bad]) {
      if (record.ok) {
        expectTypeOf(record.result).toEqualTypeOf<LrnResult>();
        expectTypeOf(record.error).toEqualTypeOf<null>();
        // No `?.` or `!` needed.
        expect(typeof record.result.lrn).toBe('string');
        expect(record.error).toBeNull();
      } else {
        expectTypeOf(record.error).toEqualTypeOf<LookupError>();
        expect(typeof record.error.message).toBe('string');
      }
    }
    expect([good.ok, bad.ok]).toEqual([true, false]);
    expectTypeOf<TypedLookupRecord<'lrn'>['ok']>().toEqualTypeOf<boolean>();
  });

  it('trust_level, carrier_type and spam_type name their known values and take any other string', async () => {
    const client = createClient({ baseUrl: sb.url, apiKey: sb.apiKey });
    const trust = await client.lookup('trust', '2015550123');
    const lrn = await client.lookup('lrn', '2015550123', { enhanced: true });
    await client.close();
    expectTypeOf<'high'>().toExtend<TrustResult['trust_level']>();
    expectTypeOf<'a level the service adds later'>().toExtend<TrustResult['trust_level']>();
    expectTypeOf<TrustResult['trust_level']>().toExtend<string>();
    expectTypeOf<'ROBOCALL' | null>().toExtend<TrustResult['spam_type']>();
    expectTypeOf<'WIRELESS' | 'WRS'>().toExtend<NonNullable<LrnResult['enhanced_lrn_data']>['carrier_type']>();
    // A comparison with a known value compiles; the values the sandbox sends are among the known ones.
    if (!trust.ok || !lrn.ok) throw new Error('the sandbox answers these numbers');
    const level = trust.result.trust_level;
    expect(['high', 'medium', 'low']).toContain(level);
    expect(level === 'high' || level === 'medium' || level === 'low').toBe(true);
    expect(['WIRELESS', 'LANDLINE', 'VOIP', 'TOLLFREE', 'WRS']).toContain(lrn.result.enhanced_lrn_data?.carrier_type);
  });

  it("a lookup's options are its own: { spam: true } on LRN is a type error (and refused when run)", async () => {
    const client = createClient({ baseUrl: sb.url, apiKey: sb.apiKey });
    // @ts-expect-error spam is CNAM's option, not LRN's
    await expect(client.lookup('lrn', '2015550123', { spam: true })).rejects.toThrow('`spam` is an option of cnam, not of lrn');
    const drain = async () => {
      // @ts-expect-error enhanced is LRN's option, not CNAM's
      for await (const r of client.bulk('cnam', ['2015550123'], { enhanced: true })) expect(r).toBeUndefined();
    };
    await expect(drain()).rejects.toThrow('`enhanced` is an option of lrn, not of cnam');
    const fine = await client.lookup('cnam', '2015550123', { spam: true, validate: true });
    await client.close();
    expect(fine.ok).toBe(true);
    if (fine.ok) expect(fine.result.spam_type).toBeDefined();
  });
});

it('a lookup without options takes none: { spam: true } on trust is a type error', () => {
  const client = createClient({ baseUrl: 'http://127.0.0.1:1', apiKey: 'sk_test_0123456789abcdef' });
  // Never called: the calls are here for the type checker.
  const typeOnly = () => [
    // @ts-expect-error trust has no options
    client.lookup('trust', '2015550123', { spam: true }),
    client.lookup('trust', '2015550123', { validate: false }),
  ];
  expect(typeof typeOnly).toBe('function');
  return client.close();
});
