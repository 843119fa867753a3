import { describe, expect, it } from 'vitest';
import { cnam, gql, lrn, trust } from './helpers.js';
import { numbersIn } from '../support/numbers.js';
import { sandbox } from '../support/sandbox.js';
import { steppedClock } from '../support/clock.js';

describe('authentication', () => {
  it('refuses missing, malformed, unknown and revoked keys with 401 and WWW-Authenticate', async () => {
    const sb = await sandbox({ apiKeys: ['first-key-000001', 'second-key-00002'] });
    const body = { phone_number: '12125550123' };
    const cases = [
      await lrn(sb, body, { key: null }),
      await lrn(sb, body, { key: null, headers: { authorization: 'Basic abc' } }),
      await lrn(sb, body, { key: null, headers: { authorization: 'Bearer' } }),
      await cnam(sb, body, { key: 'not-a-known-key-0' }),
      await trust(sb, body, { key: 'first-key-000001 extra' }),
    ];
    for (const r of cases) {
      expect(r.status).toBe(401);
      expect(r.json.error).toBe('unauthorized');
      expect(typeof r.json.message).toBe('string');
      expect(r.headers.get('www-authenticate')).toMatch(/^Bearer/);
    }
    expect((await lrn(sb, body, { key: 'second-key-00002' })).status).toBe(200);
    expect((await lrn(sb, body, { key: null, headers: { authorization: 'bearer second-key-00002' } })).status).toBe(200);
    sb.revokeKey('second-key-00002');
    expect((await lrn(sb, body, { key: 'second-key-00002' })).status).toBe(401);
    expect((await lrn(sb, body, { key: 'first-key-000001' })).status).toBe(200);
  });

  it('never echoes the key in a body', async () => {
    const sb = await sandbox({ apiKeys: ['super-secret-key-123'] });
    const r = await lrn(sb, { phone_number: 'x' });
    expect(r.text).not.toContain('super-secret-key-123');
    const r2 = await lrn(sb, { phone_number: 'x' }, { key: 'super-secret-key-124' });
    expect(r2.text).not.toContain('super-secret-key-124');
  });

  it('GraphQL answers 401 UNAUTHENTICATED', async () => {
    const sb = await sandbox();
    const r = await gql(sb, '{ lookupLrn(phoneNumber: "12125550123") { lrn } }', undefined, { key: 'wrong-key-000000' });
    expect(r.status).toBe(401);
    expect(r.json.data).toBeNull();
    expect(r.json.errors[0].extensions.code).toBe('UNAUTHENTICATED');
    expect(r.headers.get('www-authenticate')).toMatch(/^Bearer/);
  });
});

describe('rate limits', () => {
  it('LRN: limit per second, Reset in seconds, 429 with retry_after', async () => {
    const sb = await sandbox({ limits: { lrn: 5, cnam: 0, trust: 0 } });
    const replies = await Promise.all(numbersIn('212', 12).map((n) => lrn(sb, { phone_number: n })));
    const limited = replies.filter((r) => r.status === 429);
    const ok = replies.filter((r) => r.status === 200);
    // Bursts may straddle a second boundary, so up to two windows' worth can pass.
    expect(ok.length).toBeGreaterThanOrEqual(5);
    expect(ok.length).toBeLessThanOrEqual(10);
    expect(limited.length).toBe(12 - ok.length);
    for (const r of replies) {
      expect(r.headers.get('x-ratelimit-limit')).toBe('5');
      const reset = Number(r.headers.get('x-ratelimit-reset'));
      expect(reset).toBeGreaterThanOrEqual(1);
      expect(reset).toBeLessThanOrEqual(2);
      expect(Number(r.headers.get('x-ratelimit-remaining'))).toBeLessThanOrEqual(4);
    }
    const r = limited[0]!;
    expect(Object.keys(r.json).sort()).toEqual(['error', 'message', 'retry_after']);
    expect(Number.isInteger(r.json.retry_after)).toBe(true);
    expect(r.json.retry_after).toBeGreaterThanOrEqual(1);
    expect(r.headers.get('retry-after')).toBe(String(r.json.retry_after));
    expect(r.headers.get('x-ratelimit-remaining')).toBe('0');
    expect(sb.stats().rateLimited).toBe(limited.length);
    expect(sb.stats().billed).toBe(ok.length);
  });

  it('CNAM and trust: Reset is a Unix timestamp and 429 bodies keep their dialect', async () => {
    const sb = await sandbox({ limits: { lrn: 0, cnam: 3, trust: 3 } });
    const now = Math.floor(Date.now() / 1000);
    const c = await Promise.all(numbersIn('415', 8).map((n) => cnam(sb, { phone_number: n })));
    const t = await Promise.all(numbersIn('415', 8).map((n) => trust(sb, { phone_number: n })));
    for (const r of [...c, ...t]) {
      const reset = Number(r.headers.get('x-ratelimit-reset'));
      expect(reset).toBeGreaterThan(1e9);
      expect(reset).toBeGreaterThanOrEqual(now + 1);
      expect(reset).toBeLessThanOrEqual(now + 5);
    }
    const c429 = c.find((r) => r.status === 429)!;
    expect(c429.json.data).toBeNull();
    expect(c429.json.errors.length).toBe(1);
    expect(Number(c429.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    const t429 = t.find((r) => r.status === 429)!;
    expect(t429.json.success).toBe(false);
    expect(typeof t429.json.error).toBe('string');
    expect(t429.headers.get('retry-after')).not.toBeNull();
  });

  it('counts per key and per endpoint', async () => {
    const sb = await sandbox({ apiKeys: ['key-a-0000000000', 'key-b-0000000000'], limits: { lrn: 3, cnam: 3, trust: 3 } });
    const body = { phone_number: '12125550123' };
    const a = await Promise.all(Array.from({ length: 3 }, () => lrn(sb, body, { key: 'key-a-0000000000' })));
    const b = await Promise.all(Array.from({ length: 3 }, () => lrn(sb, body, { key: 'key-b-0000000000' })));
    const c = await Promise.all(Array.from({ length: 3 }, () => cnam(sb, body, { key: 'key-a-0000000000' })));
    for (const r of [...a, ...b, ...c]) expect(r.status).toBe(200);
  });

  it('0 means unlimited and then sends no rate headers', async () => {
    const sb = await sandbox({ limits: { lrn: 0, cnam: 0, trust: 0 } });
    const replies = await Promise.all(numbersIn('212', 30).map((n) => lrn(sb, { phone_number: n })));
    for (const r of replies) {
      expect(r.status).toBe(200);
      expect(r.headers.get('x-ratelimit-limit')).toBeNull();
    }
  });

  it('sends rate headers on every lookup response, errors included', async () => {
    const sb = await sandbox();
    for (const r of [await lrn(sb, { phone_number: 'bad' }), await lrn(sb, {}, { key: null }), await cnam(sb, { phone_number: '12125550123' })]) {
      expect(r.headers.get('x-ratelimit-limit')).not.toBeNull();
      expect(r.headers.get('x-ratelimit-remaining')).not.toBeNull();
      expect(r.headers.get('x-ratelimit-reset')).not.toBeNull();
    }
  });
});

describe('rate headers of answers no window counts', () => {
  it('a wrong method or an injected server error reports the room the key has left, not a fresh window', async () => {
    // Time stands still: all of it happens in one window.
    const sb = await sandbox({ limits: { lrn: 5 } }, steppedClock(1_700_000_000_000));
    for (let i = 0; i < 3; i++) expect((await lrn(sb, { phone_number: '12125550123' })).status).toBe(200);
    const get = await lrn(sb, {}, { method: 'GET' });
    expect(get.status).toBe(405);
    expect(get.headers.get('x-ratelimit-remaining')).toBe('2');
    sb.configure({ failRate: 1 });
    const failed = await lrn(sb, { phone_number: '12125550123' });
    expect(failed.status).toBeGreaterThanOrEqual(500);
    expect(failed.headers.get('x-ratelimit-remaining')).toBe('2');
    // Without an accepted key there is no window of its own to report.
    expect((await lrn(sb, {}, { key: null })).headers.get('x-ratelimit-remaining')).toBe('5');
  });
});

describe('quota', () => {
  it('402 past the quota; invalid numbers are not billed', async () => {
    const sb = await sandbox({ quota: 2 });
    expect((await lrn(sb, { phone_number: '12125550001' })).status).toBe(200);
    expect((await cnam(sb, { phone_number: 'nope' })).status).toBe(400);
    expect((await trust(sb, { phone_number: '12125550002' })).status).toBe(200);
    const r = await cnam(sb, { phone_number: '12125550003' });
    expect(r.status).toBe(402);
    expect(r.json).toEqual({ error: 'payment_required', message: expect.any(String) });
    const g = await gql(sb, '{ lookupLrn(phoneNumber: "12125550004") { lrn } }');
    expect(g.status).toBe(402);
    expect(g.json.errors[0].extensions.code).toBe('PAYMENT_REQUIRED');
    const s = sb.stats();
    expect(s.billed).toBe(2);
    expect(s.paymentRequired).toBe(2);
    expect(s.invalid).toBe(1);
    sb.configure({ quota: undefined });
    expect((await cnam(sb, { phone_number: '12125550003' })).status).toBe(200);
  });

  it('quota is per key', async () => {
    const sb = await sandbox({ apiKeys: ['key-a-0000000000', 'key-b-0000000000'], quota: 1 });
    expect((await lrn(sb, { phone_number: '12125550001' }, { key: 'key-a-0000000000' })).status).toBe(200);
    expect((await lrn(sb, { phone_number: '12125550001' }, { key: 'key-a-0000000000' })).status).toBe(402);
    expect((await lrn(sb, { phone_number: '12125550001' }, { key: 'key-b-0000000000' })).status).toBe(200);
  });
});
