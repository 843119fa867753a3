import { afterEach, describe, expect, it, vi } from 'vitest';
import { createTransport, type ClientOptions } from '../../src/api/index.js';
import { graphqlRequest } from '../../src/api/graphql.js';
import { CNAM, LOOKUPS, LRN, TRUST } from '../../src/core/lookups.js';
import type { Transport } from '../../src/core/transport.js';
import { KEY, NOW, combinations, fakeClock } from './fixtures.js';
import { freePort, json, serve, type Script, type ScriptedServer } from './server.js';

const LRN_OK = { lrn: '12015550000', lrn_activated_at: null };
const cleanup: (() => Promise<void>)[] = [];

afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

async function setup(script: Script, opts: Partial<ClientOptions> = {}): Promise<{ server: ScriptedServer; t: Transport; lines: string[] }> {
  const server = await serve(script);
  const lines: string[] = [];
  const t = createTransport({ baseUrl: server.url, apiKey: KEY, userAgent: 'numintel/0.1.0', clock: fakeClock(), trace: (l) => lines.push(l), ...opts });
  cleanup.push(() => server.close(), () => t.close());
  return { server, t, lines };
}

// Every case runs on both HTTP clients: a run's first requests go out on Node's, the rest of a bulk run on undici's.
describe.each(['undici', 'node'] as const)('REST transport on the %s HTTP client', (httpClient) => {
  const on = (script: Script, opts: Partial<ClientOptions> = {}) => setup(script, { httpClient, ...opts });

  it('sends the documented request and returns the result', async () => {
    const { server, t } = await on((_req, res) => json(res, 200, LRN_OK));
    const a = await t.send(LRN, '12015550123', { enhanced: true });
    expect(a).toEqual({ kind: 'ok', result: LRN_OK });
    const [req] = server.seen;
    expect(req?.method).toBe('POST');
    expect(req?.url).toBe('/api/v1/lrn');
    expect(JSON.parse(req?.body ?? '')).toEqual({ phone_number: '12015550123', include_enhanced_lrn: true });
    expect(req?.headers).toMatchObject({
      authorization: `Bearer ${KEY}`,
      'content-type': 'application/json',
      accept: 'application/json',
      'user-agent': 'numintel/0.1.0',
    });
    expect(t.name).toBe('rest');
  });

  it('sends no Authorization header without a key', async () => {
    const { server, t } = await on((_req, res) => json(res, 401, { error: 'unauthorized' }), { apiKey: undefined });
    expect((await t.send(LRN, '12015550123', {})).kind).toBe('fatal');
    expect(server.seen[0]?.headers.authorization).toBeUndefined();
  });

  it('joins a base URL path prefix', async () => {
    const server = await serve((_req, res) => json(res, 200, { data: { number: '1', cnam: 'X' }, errors: [] }));
    cleanup.push(() => server.close());
    for (const [transport, base] of [['rest', `${server.url}/proxy/`], ['graphql', `${server.url}/proxy`]] as const) {
      const t = createTransport({ baseUrl: base, transport, httpClient });
      cleanup.push(() => t.close());
      await t.send(CNAM, '12015550123', {});
    }
    expect(server.seen.map((s) => s.url)).toEqual(['/proxy/api/v1/cnam', '/proxy/graphql']);
  });

  it('reuses one keep-alive connection for sequential requests', async () => {
    const { server, t } = await on((_req, res) => json(res, 200, LRN_OK));
    for (let i = 0; i < 5; i++) expect((await t.send(LRN, '12015550123', {})).kind).toBe('ok');
    expect(server.seen).toHaveLength(5);
    expect(server.connections()).toBe(1);
  });

  it('reads rate headers with the clock: a 429 waits for the longest hint', async () => {
    const reset = String(NOW / 1000 + 4);
    const { t } = await on((_req, res) =>
      json(res, 429, { data: null, errors: ['Rate limit exceeded'] }, { 'retry-after': '1', 'x-ratelimit-limit': '50', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': reset }),
    );
    const a = await t.send(CNAM, '12015550123', {});
    expect(a).toMatchObject({ kind: 'retry', rateLimited: true, waitMs: 4000, rate: { limit: 50, remaining: 0, resetAt: NOW + 4000 } });
  });

  it('reads header names in any case; a repeated Retry-After is a list, no single wait, and the reset stands', async () => {
    const reset = String(NOW / 1000 + 4);
    const { t } = await on((_req, res) => {
      // Node's flat list of names and values: each pair goes out as it stands.
      res.writeHead(429, ['Content-Type', 'application/json', 'Retry-After', '2', 'Retry-After', '9', 'X-RateLimit-Limit', '50', 'X-RATELIMIT-REMAINING', '0', 'x-RateLimit-Reset', reset]);
      res.end(JSON.stringify({ data: null, errors: ['Rate limit exceeded'] }));
    });
    const a = await t.send(CNAM, '12015550123', {});
    expect(a).toMatchObject({ kind: 'retry', rateLimited: true, waitMs: 4000, rate: { limit: 50, remaining: 0, resetAt: NOW + 4000 } });
  });

  it('turns a server that never answers into a timeout', async () => {
    const { t } = await on(() => undefined, { timeoutMs: 150 });
    const a = await t.send(LRN, '12015550123', {});
    expect(a.kind).toBe('retry');
    if (a.kind !== 'ok') expect(a.error).toMatchObject({ code: 'timeout' });
    if (a.kind !== 'ok') expect(a.error.message).toContain('150ms');
  });

  it('turns a stalled body into a timeout', async () => {
    const { t } = await on((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"lrn":');
    }, { timeoutMs: 150 });
    const a = await t.send(LRN, '12015550123', {});
    expect(a.kind === 'retry' && a.error.code).toBe('timeout');
  });

  it('times each request out at its own deadline while others come and go', async () => {
    // Numbers ending in 0 are never answered; the rest at once.
    const { t } = await on((req, res) => {
      if (!req.body.includes('0"')) json(res, 200, LRN_OK);
    }, { timeoutMs: 300 });
    const timedOut = (number: string) => {
      const started = performance.now();
      return t.send(LRN, number, {}).then((a) => ({ a, after: performance.now() - started }));
    };
    const first = timedOut('12015550120');
    await new Promise((resolve) => setTimeout(resolve, 100));
    const second = timedOut('12015550130');
    for (let i = 0; i < 5; i++) expect((await t.send(LRN, '12015550123', {})).kind).toBe('ok');
    for (const { a, after } of [await first, await second]) {
      expect(a.kind === 'retry' && a.error.code).toBe('timeout');
      // Never before its own deadline: not the first request's, not a shared one.
      expect(after).toBeGreaterThanOrEqual(300);
    }
  });

  it('cancels the requests whose signal aborted, and only those', async () => {
    const { server, t } = await on((req, res) => {
      // The third request's arrival answers the first two, which by then are cancelled or not.
      if (req.body.includes('12015550125')) for (const r of held.splice(0)) json(r, 200, LRN_OK);
      else held.push(res);
      if (req.body.includes('12015550125')) json(res, 200, LRN_OK);
    });
    const held: Parameters<Script>[1][] = [];
    const ac = new AbortController();
    const both = [t.send(LRN, '12015550123', {}, ac.signal), t.send(LRN, '12015550124', {}, ac.signal)];
    const other = new AbortController();
    const kept = t.send(LRN, '12015550126', {}, other.signal);
    while (server.seen.length < 3) await new Promise((resolve) => setTimeout(resolve, 5));
    const reason = new Error('stop');
    ac.abort(reason);
    for (const p of both) await expect(p).rejects.toBe(reason);
    expect((await t.send(LRN, '12015550125', {})).kind).toBe('ok');
    expect((await kept).kind).toBe('ok');
  });

  it('turns a reset connection into a network_error', async () => {
    const { t } = await on((_req, _res, socket) => socket.destroy());
    const a = await t.send(LRN, '12015550123', {});
    expect(a.kind === 'retry' && a.error.code).toBe('network_error');
  });

  it('turns a refused port into a network_error', async () => {
    const t = createTransport({ baseUrl: `http://127.0.0.1:${await freePort()}`, apiKey: KEY, httpClient });
    cleanup.push(() => t.close());
    const a = await t.send(LRN, '12015550123', {});
    expect(a.kind).toBe('retry');
    if (a.kind !== 'ok') expect(a.error.code).toBe('network_error');
    if (a.kind !== 'ok') expect(a.error.message).toContain('ECONNREFUSED');
  });

  it('drops a body over the size cap, with or without Content-Length', async () => {
    const big = JSON.stringify({ ...LRN_OK, pad: 'x'.repeat(4096) });
    const { t } = await on((req, res) => {
      res.writeHead(200, req.url === '/api/v1/lrn' ? { 'content-length': String(Buffer.byteLength(big)) } : {});
      // Without a length the body streams in pieces, so the cap trips mid-read.
      for (let i = 0; i < big.length; i += 512) res.write(big.slice(i, i + 512));
      res.end();
    }, { maxResponseBytes: 1024 });
    for (const d of [LRN, CNAM]) {
      const a = await t.send(d, '12015550123', {});
      expect(a.kind === 'error' && a.error.code).toBe('bad_response');
      if (a.kind !== 'ok') expect(a.error.message).toContain('exceeds 1024 bytes');
    }
  });

  it('rejects with the abort reason when the caller cancels, mid-request or before', async () => {
    let arrived: () => void = () => undefined;
    const seen = new Promise<void>((resolve) => (arrived = resolve));
    const { server, t } = await on(() => arrived());
    const ac = new AbortController();
    const pending = t.send(LRN, '12015550123', {}, ac.signal);
    await seen;
    const reason = new Error('user pressed Ctrl-C');
    ac.abort(reason);
    await expect(pending).rejects.toBe(reason);

    await expect(t.send(LRN, '12015550123', {}, AbortSignal.abort())).rejects.toMatchObject({ name: 'AbortError' });
    expect(server.seen).toHaveLength(1);
  });

  it('opens at most `connections` connections, however many requests are in flight', async () => {
    const { server, t } = await on((_req, res) => setTimeout(() => json(res, 200, LRN_OK), 20), { connections: 2 });
    const attempts = await Promise.all(Array.from({ length: 8 }, () => t.send(LRN, '12015550123', {})));
    expect(attempts.map((a) => a.kind)).toEqual(Array(8).fill('ok'));
    expect(server.connections()).toBe(2);
  });

  it('close() closes its connections; a request after it fails without reaching the server', async () => {
    const { server, t } = await on((_req, res) => json(res, 200, LRN_OK));
    await t.send(LRN, '12015550123', {});
    expect(server.open()).toBe(1);
    await t.close();
    await vi.waitFor(() => expect(server.open()).toBe(0), { timeout: 2000, interval: 10 });
    const after = await t.send(LRN, '12015550123', {});
    expect(after.kind).toBe('error');
    expect(server.seen).toHaveLength(1);
  });
});

describe('traces and the key', () => {
  it('traces one line per request and per response, the key masked', async () => {
    const { server, t, lines } = await setup((_req, res) => json(res, 200, LRN_OK, { 'x-ratelimit-remaining': '199' }));
    await t.send(LRN, '12015550123', {});
    expect(lines).toEqual([
      `→ POST ${server.url}/api/v1/lrn {"phone_number":"12015550123"} (authorization: Bearer sk_t…(24 chars))`,
      '← 200 /api/v1/lrn 0ms remaining=199',
    ]);
  });

  it('traces a request that failed on the wire and one the closed client never sent', async () => {
    const { t, lines } = await setup((_req, _res, socket) => socket.destroy());
    const failed = await t.send(LRN, '12015550123', {});
    await t.close();
    const unsent = await t.send(LRN, '12015550123', {});
    expect([failed.kind, unsent.kind]).toEqual(['retry', 'error']);
    expect(lines).toHaveLength(4);
    expect(lines[1]).toMatch(/^← ✗ \/api\/v1\/lrn 0ms retry network_error: the connection to http:\/\/127\.0\.0\.1:\d+ failed before an answer arrived \((ECONNRESET: socket hang up|UND_ERR_SOCKET: other side closed)\)$/);
    expect(lines[2]).toMatch(/^→ POST http:\/\/127\.0\.0\.1:\d+\/api\/v1\/lrn \{"phone_number":"12015550123"\}/);
    expect(lines[3]).toMatch(/^← ✗ \/api\/v1\/lrn 0ms error network_error: request to http:\/\/127\.0\.0\.1:\d+ failed \(CLIENT_CLOSED: the client is closed\)$/);
  });

  it('shows the transport in GraphQL traces and the class of failures', async () => {
    const { t, lines } = await setup((_req, res) => json(res, 429, { errors: [{ message: 'slow', extensions: { code: 'RATE_LIMITED', retryAfter: 1 } }] }), { transport: 'graphql' });
    await t.send(TRUST, '12015550123', {});
    expect(lines[0]).toMatch(/^→ POST http:\/\/127\.0\.0\.1:\d+\/graphql \[graphql trustLookup\] \{"phoneNumber":"12015550123"\}/);
    // The lookup is named on the answer too: over GraphQL every lookup shares one path.
    expect(lines[1]).toBe('← 429 /graphql [graphql trustLookup] 0ms retry rate_limited wait=1000ms');
  });

  it('never shows the key, even when the server echoes it', async () => {
    const { t, lines } = await setup((req, res, socket) => {
      if (req.url === '/graphql') return json(res, 200, { errors: [{ message: `bad key ${req.headers.authorization}` }] });
      if (req.url === '/api/v1/cnam') return socket.destroy();
      json(res, 401, { error: 'unauthorized', message: `key ${req.headers.authorization} unknown` }, { 'x-echo': String(req.headers.authorization) });
    });
    const messages: string[] = [];
    for (const d of [LRN, CNAM]) {
      const a = await t.send(d, '12015550123', {});
      if (a.kind !== 'ok') messages.push(a.error.message);
    }
    const gql = createTransport({ baseUrl: new URL(lines[0]!.split(' ')[2]!).origin, apiKey: KEY, transport: 'graphql', trace: (l) => lines.push(l) });
    cleanup.push(() => gql.close());
    const g = await gql.send(LRN, '12015550123', {});
    if (g.kind !== 'ok') messages.push(g.error.message);
    expect(messages).toHaveLength(3);
    expect(lines.length).toBe(6);
    for (const text of [...lines, ...messages]) expect(text).not.toContain(KEY);
    expect(messages[0]).toContain("(the server's text is withheld: it quotes the API key)");
  });
});

describe('GraphQL transport', () => {
  const restData: Record<string, Record<string, unknown>> = {
    lrn: { lrn: '12015550000', lrn_activated_at: '2021-05-01T00:00:00+00:00', enhanced_lrn_data: { carrier: 'Acme', carrier_type: 'VOIP', city: 'Newark', zip_code: '07102', county: 'Essex', timezone: '-0500', state: 'NJ', rate_center: 'NWRK', lata: '224', ocn: '1234' }, messaging: { provider: 'P', enabled: true, country: 'US', country_code: '1', reference_id: 'r1' } },
    cnam: { number: '12015550123', cnam: 'JANE ROE', spam_type: 'NONE' },
    trust: { phone_number: '12015550123', is_spam: false, is_robocall: true, is_scam: false, spam_type: 'ROBOCALL', reputation_score: 40, trust_level: 'medium', last_updated: '2025-01-01T00:00:00Z' },
  };
  const camel: Record<string, string> = { phone_number: 'phoneNumber', is_spam: 'isSpam', is_robocall: 'isRobocall', is_scam: 'isScam', spam_type: 'spamType', reputation_score: 'reputationScore', trust_level: 'trustLevel', last_updated: 'lastUpdated' };

  /** A server that answers both transports from the same data, honouring the options as the description says. */
  const script: Script = (req, res) => {
    const body = JSON.parse(req.body) as { query?: string; variables?: Record<string, unknown>; include_enhanced_lrn?: boolean; messaging_lookup?: boolean; include_spam?: boolean };
    if (req.url === '/graphql') {
      const kind = /lookupLrn/.test(body.query ?? '') ? 'lrn' : /lookupCnam/.test(body.query ?? '') ? 'cnam' : 'trust';
      const v = body.variables ?? {};
      const d = { ...restData[kind] };
      if (!v.includeEnhancedLrn) delete d.enhanced_lrn_data;
      if (!v.includeMessaging) delete d.messaging;
      if (kind === 'cnam' && !v.includeSpam) delete d.spam_type;
      const out = kind === 'trust' ? Object.fromEntries(Object.entries(d).map(([k, x]) => [camel[k] ?? k, x])) : d;
      return json(res, 200, { data: { [LOOKUPS[kind].graphqlField]: out } });
    }
    const kind = req.url.split('/').pop() as 'lrn' | 'cnam' | 'trust';
    const d = { ...restData[kind] };
    if (!body.include_enhanced_lrn) delete d.enhanced_lrn_data;
    if (!body.messaging_lookup) delete d.messaging;
    if (kind === 'cnam' && !body.include_spam) delete d.spam_type;
    json(res, 200, kind === 'lrn' ? d : kind === 'cnam' ? { data: d, errors: [] } : { success: true, data: d });
  };

  it('sends the built query and variables for every lookup and option combination, and maps results to the REST ones', async () => {
    const { server, t: rest } = await setup(script);
    const gql = createTransport({ baseUrl: server.url, apiKey: KEY, transport: 'graphql' });
    cleanup.push(() => gql.close());
    expect(gql.name).toBe('graphql');
    for (const d of Object.values(LOOKUPS)) {
      for (const opts of combinations(d)) {
        const viaRest = await rest.send(d, '12015550123', opts);
        const viaGraphql = await gql.send(d, '12015550123', opts);
        const sent = server.seen.at(-1)!;
        expect(sent.url).toBe('/graphql');
        expect(sent.headers.authorization).toBe(`Bearer ${KEY}`);
        expect(JSON.parse(sent.body)).toEqual(graphqlRequest(d, '12015550123', opts).body);
        expect(viaRest.kind).toBe('ok');
        expect(JSON.stringify(viaGraphql)).toBe(JSON.stringify(viaRest));
      }
    }
  });

  it('classifies HTTP statuses exactly as REST', async () => {
    const { t } = await setup((_req, res) => json(res, 402, { errors: [{ message: 'Quota used up', extensions: { code: 'PAYMENT_REQUIRED' } }] }), { transport: 'graphql' });
    const a = await t.send(CNAM, '12015550123', { spam: true });
    expect(a).toMatchObject({ kind: 'fatal', error: { code: 'payment_required', status: 402 } });
  });
});
