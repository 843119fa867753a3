import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, startSandbox, type EnrichRecord, type LookupRecord, type OutputRecord, type Sandbox } from '../src/index.js';

describe('the library API', () => {
  let sb: Sandbox;
  beforeAll(async () => {
    sb = await startSandbox({ port: 0 });
  });
  afterAll(() => sb.close());

  async function direct(path: string, body: unknown): Promise<unknown> {
    const res = await fetch(`${sb.url}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${sb.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return res.json();
  }

  it('looks one number up, with the same result the service gives', async () => {
    const client = createClient({ baseUrl: sb.url, apiKey: sb.apiKey });
    const record = await client.lookup('lrn', '(201) 555-0123', { enhanced: true });
    await client.close();
    expect(record).toMatchObject({ input: '(201) 555-0123', number: '12015550123', lookup: 'lrn', ok: true, error: null });
    expect(record.result).toEqual(await direct('/api/v1/lrn', { phone_number: '12015550123', include_enhanced_lrn: true }));
  });

  it('streams bulk records in order, invalid numbers unsent and duplicates looked up once', async () => {
    const client = createClient({ baseUrl: sb.url, apiKey: sb.apiKey, transport: 'graphql' });
    const before = sb.stats().byNumber['cnam:12125550147'] ?? 0;
    const records = [];
    for await (const r of client.bulk('cnam', ['212-555-0147', 'nope', '2125550147', '415 555 0199'], { spam: true })) records.push(r);
    await client.close();
    expect(records.map((r) => [r.input, r.ok, r.error?.code ?? null])).toEqual([
      ['212-555-0147', true, null],
      ['nope', false, 'invalid_number'],
      ['2125550147', true, null],
      ['415 555 0199', true, null],
    ]);
    expect(records[2]?.result).toEqual(records[0]?.result);
    expect((sb.stats().byNumber['cnam:12125550147'] ?? 0) - before).toBe(1);
  });

  it('enriches with several lookups per number', async () => {
    const client = createClient({ baseUrl: sb.url, apiKey: sb.apiKey });
    const records = [];
    for await (const r of client.enrich(['lrn', 'trust'], ['12015550123'])) records.push(r);
    await client.close();
    expect(records).toHaveLength(1);
    expect(Object.keys(records[0]?.results ?? {})).toEqual(['lrn', 'trust']);
    expect(records[0]?.results.trust).toEqual((await direct('/api/v1/trust', { phone_number: '12015550123' }) as { data: unknown }).data);
  });

  it('enrich with a lookup named twice sends it once per number, as --lookups lrn,lrn does', async () => {
    const client = createClient({ baseUrl: sb.url, apiKey: sb.apiKey, cache: 'off' });
    const before = sb.stats().byNumber['lrn:12015550171'] ?? 0;
    const records = [];
    for await (const r of client.enrich(['lrn', 'trust', 'lrn'], ['2015550171'])) records.push(r);
    await client.close();
    expect(Object.keys(records[0]?.results ?? {})).toEqual(['lrn', 'trust']);
    expect((sb.stats().byNumber['lrn:12015550171'] ?? 0) - before).toBe(1);
  });

  it('typed records are the exported LookupRecord / EnrichRecord / OutputRecord: code written for those takes them', async () => {
    // Compiled by `npm run typecheck`: with the results as interfaces (no index signature), a
    // TypedLookupRecord<'cnam'> was not assignable to LookupRecord, nor an enrich record to EnrichRecord.
    const inputOf = (r: OutputRecord): string => r.input;
    const lookedUp = (r: LookupRecord): string | null => r.number;
    const enriched = (r: EnrichRecord): boolean => r.ok;
    const client = createClient({ baseUrl: sb.url, apiKey: sb.apiKey });
    const one = await client.lookup('cnam', '12015550123');
    expect([inputOf(one), lookedUp(one)]).toEqual(['12015550123', '12015550123']);
    for await (const r of client.enrich(['lrn', 'trust'], ['12015550123'])) expect([inputOf(r), enriched(r)]).toEqual(['12015550123', true]);
    await client.close();
  });

  it('throws a refused error when the key is refused', async () => {
    const client = createClient({ baseUrl: sb.url, apiKey: 'not-a-valid-key-at-all' });
    await expect(client.lookup('trust', '12015550123')).rejects.toMatchObject({ kind: 'refused' });
    await client.close();
  });
});
