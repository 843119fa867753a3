// The library on the bulk endpoints: createClient({ transport: 'bulk' }) fills batches from bulk()
// and from parallel lookup() calls, and its records are those of transport 'rest'.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BadOptionError, createClient, startSandbox, type Sandbox } from '../src/index.js';

let sb: Sandbox;
beforeAll(async () => {
  sb = await startSandbox({ port: 0, bulkLimits: { lrn: 0, cnam: 0 } });
});
afterAll(() => sb.close());

const NUMBERS = Array.from({ length: 120 }, (_, i) => `1201555${String(3000 + i).padStart(4, '0')}`);
const records = async (transport: 'rest' | 'bulk') => {
  const client = createClient({ baseUrl: sb.url, apiKey: sb.apiKey, transport, batchSize: 50, cache: 'off', rates: { cnam: 0 } });
  const out = [];
  for await (const r of client.bulk('cnam', NUMBERS, { spam: true })) out.push({ ...r, fetched_at: undefined });
  await client.close();
  return out;
};

describe("transport 'bulk'", () => {
  it('bulk(): 50 numbers a request, the records of rest', async () => {
    const before = sb.stats().bulk.requests.cnam ?? 0;
    const bulk = await records('bulk');
    expect((sb.stats().bulk.requests.cnam ?? 0) - before).toBe(3);
    expect(bulk).toEqual(await records('rest'));
  });

  it('parallel lookup() calls share a request', async () => {
    const client = createClient({ baseUrl: sb.url, apiKey: sb.apiKey, transport: 'bulk', cache: 'off' });
    const before = sb.stats().bulk.requests.lrn ?? 0;
    const got = await Promise.all(NUMBERS.slice(0, 20).map((n) => client.lookup('lrn', n)));
    await client.close();
    expect(got.every((r) => r.ok)).toBe(true);
    expect((sb.stats().bulk.requests.lrn ?? 0) - before).toBe(1);
  });

  it('a batch size out of 1–1000 is refused at once', () => {
    expect(() => createClient({ baseUrl: sb.url, apiKey: sb.apiKey, transport: 'bulk', batchSize: 1001 })).toThrow(BadOptionError);
  });
});
