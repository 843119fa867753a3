// An answer that names a number (CNAM `number`, trust `phone_number`) must name the one asked:
// anything else is an answer meant for another request, a bad_response that is never kept.
import { afterEach, describe, expect, it } from 'vitest';
import { createTransport } from '../../src/api/index.js';
import { CNAM, TRUST } from '../../src/core/lookups.js';
import { KEY } from './fixtures.js';
import { json, serve } from './server.js';

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

async function answering(echo: string | ((asked: string) => string), httpClient?: 'node' | 'undici') {
  const server = await serve((req, res) => {
    const asked = JSON.parse(req.body) as { phone_number: string };
    const cnam = req.url.includes('cnam');
    const number = typeof echo === 'function' ? echo(asked.phone_number) : echo === 'same' ? asked.phone_number : echo;
    json(res, 200, cnam ? { data: { number, cnam: 'JANE DOE' } } : { success: true, data: { phone_number: number, trust_level: 'high', reputation_score: 90, is_spam: false, is_robocall: false, is_scam: false, spam_type: null, last_updated: '2025-01-01T00:00:00Z' } });
  });
  const t = createTransport({ baseUrl: server.url, apiKey: KEY, httpClient });
  cleanup.push(() => server.close(), () => t.close());
  return { t, server };
}

describe('the number an answer names', () => {
  it.each([
    ['CNAM', CNAM],
    ['trust', TRUST],
  ] as const)('%s: another number is a bad_response naming both', async (_name, d) => {
    const { t } = await answering('12015559999');
    const a = await t.send(d, '12015550123', {});
    expect(a.kind).toBe('error');
    if (a.kind !== 'error') return;
    expect(a.error.code).toBe('bad_response');
    expect(a.error.message).toMatch(/12015559999.*12015550123/);
  });

  it.each(['same', '2015550123', '+12015550123', '(201) 555-0123', ''])('the same number in any form (%j), or none, is the answer', async (echo) => {
    const { t } = await answering(echo);
    expect((await t.send(CNAM, '12015550123', {})).kind).toBe('ok');
    expect((await t.send(TRUST, '12015550123', {})).kind).toBe('ok');
  });

  it.each(['node', 'undici'] as const)('on the %s client, the connection such an answer came on is not used again', async (httpClient) => {
    const { t, server } = await answering((asked) => (asked === '12015550666' ? '12015550777' : asked), httpClient);
    expect((await t.send(CNAM, '12015550123', {})).kind).toBe('ok');
    expect((await t.send(CNAM, '12015550124', {})).kind).toBe('ok');
    expect(server.connections()).toBe(1);
    expect((await t.send(CNAM, '12015550666', {})).kind).toBe('error');
    expect((await t.send(CNAM, '12015550125', {})).kind).toBe('ok');
    expect(server.connections()).toBe(2);
  });
});
