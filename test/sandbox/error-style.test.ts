// sandbox --error-style vri: the real service's error bodies, the three formats in turn, both 429
// spellings, its codes; and the client reads every one of them as it reads the default style.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { createClient } from '../../src/index.js';
import { FakeClock } from '../support/clock.js';
import { numbers } from '../support/numbers.js';

let sb: Sandbox;
beforeAll(async () => {
  sb = await startSandbox({ port: 0, errorStyle: 'vri', limits: { lrn: 0, cnam: 0, trust: 0 } });
});
afterAll(() => sb.close());

async function post(path: string, body: unknown, key = sb.apiKey): Promise<{ status: number; json: Record<string, unknown> }> {
  const res = await fetch(`${sb.url}${path}`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}

/** The code of a body in any of the three formats (format A has none). */
const codeOf = (j: Record<string, unknown>) => (typeof j.code === 'string' ? j.code : (j.error as { code?: string } | undefined)?.code);
const formatOf = (j: Record<string, unknown>) => ('errors' in j ? 'A' : typeof j.error === 'object' ? 'nested' : 'B');

describe('sandbox --error-style vri', () => {
  it('invalid numbers: INVALID_PHONE_NUMBER, INTERNATIONAL_NOT_SUPPORTED for a non-U.S. number, the three formats in turn, on every endpoint', async () => {
    const seen: string[] = [];
    for (const path of ['/api/v1/lrn', '/api/v1/cnam', '/api/v1/trust']) {
      const r = await post(path, { phone_number: '123' });
      expect(r.status).toBe(400);
      seen.push(formatOf(r.json));
      if (formatOf(r.json) !== 'A') expect(codeOf(r.json)).toBe('INVALID_PHONE_NUMBER');
    }
    expect(new Set(seen)).toEqual(new Set(['A', 'B', 'nested']));
    const intl = await post('/api/v1/lrn', { phone_number: '+442071234567' });
    expect(JSON.stringify(intl.json)).toContain('International numbers are not supported');
  });

  it('a wrong key is INVALID_API_KEY; a 429 says rate_limited or RATE_LIMIT_EXCEEDED with retry_after', async () => {
    const bad = await post('/api/v1/cnam', { phone_number: '12015550123' }, 'not-the-key-at-all');
    expect(bad.status).toBe(401);
    sb.configure({ limits: { lrn: 0, cnam: 0, trust: 1 } });
    const codes = new Set<string | undefined>();
    for (let i = 0; i < 8; i++) {
      const r = await post('/api/v1/trust', { phone_number: '12015550123' });
      if (r.status === 429) codes.add(codeOf(r.json));
    }
    codes.delete(undefined);
    expect([...codes].every((c) => c === 'rate_limited' || c === 'RATE_LIMIT_EXCEEDED')).toBe(true);
    expect(codes.size).toBeGreaterThan(0);
  });

  it('the client reads them: invalid numbers with the service message, others answered', async () => {
    sb.configure({ limits: { lrn: 0, cnam: 0, trust: 0 } });
    const client = createClient({ baseUrl: sb.url, apiKey: sb.apiKey });
    const records = [];
    for await (const r of client.bulk('lrn', ['12015550123', '+44 20 7123 4567', '12015550124'], { validate: false })) records.push(r);
    await client.close();
    expect(records.map((r) => [r.ok, r.error?.code ?? null])).toEqual([
      [true, null],
      [false, 'invalid_number'],
      [true, null],
    ]);
  });

  it('errorStyle is refused when unknown, and cannot change while running', async () => {
    await expect(startSandbox({ errorStyle: 'soap' as never })).rejects.toThrow(/errorStyle must be "numintel" or "vri"/);
    expect(() => sb.configure({ errorStyle: 'numintel' })).toThrow(/cannot change/);
  });
});

describe('sandbox --error-style vri: values', () => {
  it('carrier_type WRS and spam_type TELEMARKETER appear, and the client passes them through untouched over REST and GraphQL', async () => {
    // On virtual time: the client's documented pace would take seconds of real waiting for 1,200 lookups.
    const clock = new FakeClock();
    const vri = await startSandbox({ port: 0, errorStyle: 'vri', limits: { lrn: 0, cnam: 0, trust: 0 } }, clock);
    try {
      const seen = { WRS: 0, TELEMARKETER: 0 };
      for (const transport of ['rest', 'graphql'] as const) {
        const client = createClient({ baseUrl: vri.url, apiKey: vri.apiKey, transport, clock });
        for await (const r of client.bulk('lrn', numbers(300), { enhanced: true })) {
          if ((r.result?.enhanced_lrn_data as { carrier_type?: string } | undefined)?.carrier_type === 'WRS') seen.WRS++;
        }
        for await (const r of client.bulk('trust', numbers(300))) if (r.result?.spam_type === 'TELEMARKETER') seen.TELEMARKETER++;
        await client.close();
      }
      expect(seen.WRS).toBeGreaterThan(0);
      expect(seen.TELEMARKETER).toBeGreaterThan(0);
    } finally {
      await vri.close();
    }
  });
});
