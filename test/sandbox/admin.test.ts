import { describe, expect, it } from 'vitest';
import { maskSecret } from '../../src/core/secret.js';
import { DEFAULT_API_KEY, startSandbox } from '../../src/sandbox/index.js';
import { gql, lrn, post } from './helpers.js';
import { sandbox } from '../support/sandbox.js';

const admin = async (url: string, path: string, body?: unknown, method = 'POST') => {
  const res = await fetch(`${url}${path}`, {
    method,
    headers: { 'content-type': 'application/json' },
    body: method === 'GET' ? undefined : JSON.stringify(body ?? {}),
  });
  return { status: res.status, json: (await res.json()) as any }; // oxlint-disable-line typescript/no-explicit-any
};

describe('stats and admin endpoints', () => {
  it('GET /__sandbox/stats needs no key and matches stats()', async () => {
    const sb = await sandbox({ apiKeys: ['first-key-000001', 'first-key-000002'] });
    await lrn(sb, { phone_number: '12125550123' }, { key: 'first-key-000001' });
    await lrn(sb, { phone_number: '12125550123' }, { key: 'first-key-000002' });
    await lrn(sb, { phone_number: 'bad' }, { key: 'first-key-000001' });
    await post(sb, '/api/v1/cnam', { phone_number: '12125550123' }, { key: 'wrong-key-000000' });
    await gql(sb, '{ lookupCnam(phoneNumber: "12125550123") { cnam } }', undefined, { key: 'first-key-000001' });
    await post(sb, '/nowhere', {});
    const s = await admin(sb.url, '/__sandbox/stats', undefined, 'GET');
    expect(s.status).toBe(200);
    expect(s.json).toEqual(sb.stats());
    expect(s.json.requests).toEqual({ lrn: 3, cnam: 1, trust: 0, graphql: 1, total: 6 });
    expect(s.json.byNumber).toEqual({ 'lrn:12125550123': 2, 'cnam:12125550123': 1 });
    expect(s.json.billed).toBe(3);
    expect(s.json.invalid).toBe(1);
    expect(s.json.unauthorized).toBe(1);
    // Two keys that mask alike are still told apart, and neither appears in clear.
    const labels = Object.keys(s.json.byKey);
    expect(labels).toHaveLength(2);
    expect(labels[0]).toBe(maskSecret('first-key-000001'));
    expect(s.json.byKey[labels[0]!]).toBe(3);
    expect(JSON.stringify(s.json)).not.toContain('first-key-00000');
  });

  it('POST /__sandbox/reset clears stats and usage', async () => {
    const sb = await sandbox({ quota: 1 });
    await lrn(sb, { phone_number: '12125550123' });
    expect((await lrn(sb, { phone_number: '12125550123' })).status).toBe(402);
    expect((await admin(sb.url, '/__sandbox/reset')).json).toEqual({ ok: true });
    expect(sb.stats().billed).toBe(0);
    expect(sb.stats().requests.total).toBe(0);
    expect((await lrn(sb, { phone_number: '12125550123' })).status).toBe(200);
  });

  it('POST /__sandbox/config changes limits, quota and faults mid-run, and refuses bad values', async () => {
    const sb = await sandbox();
    const ok = await admin(sb.url, '/__sandbox/config', { failRate: 1, limits: { lrn: 7 }, quota: 10 });
    expect(ok.status).toBe(200);
    expect(ok.json).toMatchObject({ failRate: 1, limits: { lrn: 7, cnam: 50, trust: 100 }, quota: 10 });
    expect((await lrn(sb, { phone_number: '12125550123' })).status).toBeGreaterThanOrEqual(500);
    await admin(sb.url, '/__sandbox/config', { failRate: 0, quota: null });
    const r = await lrn(sb, { phone_number: '12125550123' });
    expect(r.status).toBe(200);
    expect(r.headers.get('x-ratelimit-limit')).toBe('7');
    for (const bad of [{ failRate: 2 }, { limits: { lrn: -1 } }, { apiKeys: ['another-key-0000'] }, { nope: 1 }, { latencyMs: 'slow' }]) {
      const b = await admin(sb.url, '/__sandbox/config', bad);
      expect(b.status, JSON.stringify(bad)).toBe(400);
      expect(b.json.error).toBe('invalid_config');
    }
    expect((await fetch(`${sb.url}/__sandbox/config`, { method: 'POST', body: 'x' })).status).toBe(400);
    expect((await fetch(`${sb.url}/__sandbox/stats`, { method: 'POST' })).status).toBe(405);
  });

  it('POST /__sandbox/config answers every setting it changes, the window ones included', async () => {
    const sb = await sandbox();
    const patch = { windowMs: 60_000, sharedLimit: 10, burst: 2, hideLimit: true, rateHeaders: 'both' };
    const ok = await admin(sb.url, '/__sandbox/config', patch);
    expect(ok.json).toMatchObject(patch);
    expect((await admin(sb.url, '/__sandbox/config', { burst: null })).json).toMatchObject({ ...patch, burst: null });
  });

  it('POST /__sandbox/revoke revokes a key', async () => {
    const sb = await sandbox();
    const r = await admin(sb.url, '/__sandbox/revoke', { key: sb.apiKey });
    expect(r.json).toEqual({ ok: true, known: true });
    expect((await lrn(sb, { phone_number: '12125550123' })).status).toBe(401);
    expect((await admin(sb.url, '/__sandbox/revoke', { nokey: 1 })).status).toBe(400);
  });

  it('configure() checks its patch', async () => {
    const sb = await sandbox();
    expect(() => sb.configure({ failRate: -1 })).toThrow(/failRate/);
    expect(() => sb.configure({ port: 1234 })).toThrow(/cannot change/);
    expect(() => sb.configure({ tls: true })).toThrow(/cannot change/);
    sb.configure({ apiKeys: ['replacement-key-01'] });
    expect((await lrn(sb, { phone_number: '12125550123' })).status).toBe(401);
    expect((await lrn(sb, { phone_number: '12125550123' }, { key: 'replacement-key-01' })).status).toBe(200);
  });

  it('startSandbox refuses bad options', async () => {
    await expect(startSandbox({ apiKeys: ['short'] })).rejects.toThrow(/apiKeys/);
    await expect(startSandbox({ limits: { lrn: 1.5, cnam: 1, trust: 1 } })).rejects.toThrow(/limits.lrn/);
    await expect(startSandbox({ tls: { cert: 'x', key: 'y' } })).rejects.toThrow(/tls must be/);
  });

  it('verbose logs one line per request with the key masked', async () => {
    const lines: string[] = [];
    const sb = await sandbox({ verbose: true, log: (l) => lines.push(l) });
    await lrn(sb, { phone_number: '12125550123' });
    await lrn(sb, { phone_number: '1' });
    for (let i = 0; i < 100 && lines.length < 2; i++) await new Promise((r) => setImmediate(r));
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^POST \/api\/v1\/lrn 200 \d+\.\dms key=sand…\(16 chars\)$/);
    expect(lines[1]).toMatch(/ 400 /);
    expect(lines.join('\n')).not.toContain(sb.apiKey);
  });
});

describe('admin endpoints beyond loopback', () => {
  it('listening on 0.0.0.0, they need an accepted key; on loopback they stay open', async () => {
    const wide = await startSandbox({ host: '0.0.0.0', port: 0, apiKeys: ['own-key-5150'] });
    const local = await startSandbox({ port: 0 });
    try {
      expect(wide.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      const anon = await fetch(`${wide.url}/__sandbox/config`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"failRate":1}' });
      expect(anon.status).toBe(401);
      expect((await fetch(`${wide.url}/__sandbox/stats`)).status).toBe(401);
      const keyed = await fetch(`${wide.url}/__sandbox/stats`, { headers: { authorization: `Bearer ${wide.apiKey}` } });
      expect(keyed.status).toBe(200);
      expect((await fetch(`${local.url}/__sandbox/stats`)).status).toBe(200);
    } finally {
      await Promise.all([wide.close(), local.close()]);
    }
  });

  it('listening on 0.0.0.0, they refuse the published key (403, saying what to do), which still answers lookups; on loopback it is taken', async () => {
    const wide = await startSandbox({ host: '0.0.0.0', port: 0, apiKeys: [DEFAULT_API_KEY, 'own-key-5150'] });
    const local = await startSandbox({ port: 0 });
    try {
      const published = { authorization: `Bearer ${DEFAULT_API_KEY}` };
      const stats = await fetch(`${wide.url}/__sandbox/stats`, { headers: published });
      expect(stats.status).toBe(403);
      expect(((await stats.json()) as { message: string }).message).toMatch(/refuse the published key sandbox-key-0000; start it with --api-key/);
      const config = await fetch(`${wide.url}/__sandbox/config`, { method: 'POST', headers: { ...published, 'content-type': 'application/json' }, body: '{"failRate":1}' });
      expect(config.status).toBe(403);
      expect((await fetch(`${wide.url}/__sandbox/stats`, { headers: { authorization: 'Bearer own-key-5150' } })).status).toBe(200);
      const lookup = await fetch(`${wide.url}/api/v1/lrn`, { method: 'POST', headers: { ...published, 'content-type': 'application/json' }, body: '{"phone_number":"12015550123"}' });
      expect(lookup.status).toBe(200);
      expect((await fetch(`${local.url}/__sandbox/stats`, { headers: published })).status).toBe(200);
    } finally {
      await Promise.all([wide.close(), local.close()]);
    }
  });
});
