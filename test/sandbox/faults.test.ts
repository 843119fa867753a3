import { describe, expect, it } from 'vitest';
import { cnam, gql, lrn, lrnBulk, trust } from './helpers.js';
import type { Sandbox } from '../../src/sandbox/index.js';
import { sandbox } from '../support/sandbox.js';
import { numbersIn } from '../support/numbers.js';

describe('fault injection', () => {
  it('failRate answers 500/502/503 with a short JSON body in the endpoint dialect', async () => {
    const sb = await sandbox({ failRate: 1 });
    const replies = [
      ...(await Promise.all(numbersIn('212', 12).map((n) => lrn(sb, { phone_number: n })))),
      await cnam(sb, { phone_number: '12125550123' }),
      await trust(sb, { phone_number: '12125550123' }),
      await gql(sb, '{ lookupLrn(phoneNumber: "12125550123") { lrn } }'),
    ];
    for (const r of replies) expect([500, 502, 503]).toContain(r.status);
    expect(replies[0]!.json.error).toBe('Server error');
    expect(replies[12]!.json.data).toBeNull();
    expect(replies[13]!.json.success).toBe(false);
    expect(replies[14]!.json.errors[0].extensions.code).toBe('INTERNAL_SERVER_ERROR');
    expect(sb.stats().faults.error).toBe(15);
    expect(sb.stats().billed).toBe(0);
  });

  it('resetRate destroys the connection', async () => {
    const sb = await sandbox({ resetRate: 1 });
    await expect(lrn(sb, { phone_number: '12125550123' })).rejects.toThrow();
    expect(sb.stats().faults.reset).toBe(1);
  });

  it.each([
    ['a single request', (sb: Sandbox) => lrn(sb, { phone_number: '12125550123' })],
    ['a bulk request', (sb: Sandbox) => lrnBulk(sb, { phone_numbers: ['12125550123'] })],
  ])('hangRate: %s never answers, and close() still ends it', async (_what, send) => {
    const sb = await sandbox({ hangRate: 1 });
    const pending = send(sb).then(
      () => 'answered',
      () => 'failed',
    );
    for (let i = 0; i < 200 && sb.stats().faults.hang === 0; i++) await new Promise((r) => setImmediate(r));
    expect(sb.stats().faults.hang).toBe(1);
    await sb.close();
    expect(await pending).toBe('failed');
  });

  it('rate429 answers spurious 429s with the endpoint hints', async () => {
    const sb = await sandbox({ rate429: 1 });
    const l = await lrn(sb, { phone_number: '12125550123' });
    expect(l.status).toBe(429);
    expect(l.json.retry_after).toBeGreaterThanOrEqual(1);
    // A gateway's 429: the window itself still has room, and the headers say so.
    expect(l.headers.get('x-ratelimit-remaining')).toBe('200');
    const c = await cnam(sb, { phone_number: '12125550123' });
    expect(c.status).toBe(429);
    expect(c.json.data).toBeNull();
    expect(Number(c.headers.get('x-ratelimit-reset'))).toBeGreaterThan(1e9);
    const t = await trust(sb, { phone_number: '12125550123' });
    expect(t.json.success).toBe(false);
    expect(t.headers.get('retry-after')).not.toBeNull();
    const g = await gql(sb, '{ trustLookup(phoneNumber: "12125550123") { trustLevel } }');
    expect(g.status).toBe(429);
    expect(g.json.errors[0].extensions.code).toBe('RATE_LIMITED');
    expect(sb.stats().faults.rate429).toBe(4);
    expect(sb.stats().rateLimited).toBe(4);
    expect(sb.stats().billed).toBe(0);
  });

  it('rate429Bare: the spurious 429s give no hint at all, in any endpoint dialect', async () => {
    const sb = await sandbox({ rate429: 1, rate429Bare: true });
    const l = await lrn(sb, { phone_number: '12125550123' });
    expect(l.status).toBe(429);
    expect(l.json.retry_after).toBeUndefined();
    expect(l.headers.get('retry-after')).toBeNull();
    expect(l.headers.get('x-ratelimit-remaining')).toBe('200');
    const t = await trust(sb, { phone_number: '12125550123' });
    expect(t.status).toBe(429);
    expect(t.headers.get('retry-after')).toBeNull();
    expect(JSON.stringify(t.json)).not.toMatch(/retry in/);
    const g = await gql(sb, '{ trustLookup(phoneNumber: "12125550123") { trustLevel } }');
    expect(g.json.errors[0].extensions.retryAfter).toBeUndefined();
    // Nothing was hinted, so nothing sent after these is early.
    await lrn(sb, { phone_number: '12125550123' });
    expect(sb.stats().early).toBe(0);
  });

  it("a request that reaches an endpoint while a hinted 429 still holds it is counted early; one after the hint, or to another endpoint, is not", async () => {
    let now = 1_700_000_000_000;
    const sb = await sandbox({ rate429: 1 }, { now: () => now });
    await lrn(sb, { phone_number: '12125550123' });
    now += 10;
    await lrn(sb, { phone_number: '12125550123' });
    // Within the grace: on its way before the 429 arrived.
    expect(sb.stats().early).toBe(0);
    now += 100;
    await lrn(sb, { phone_number: '12125550123' });
    await cnam(sb, { phone_number: '12125550123' });
    expect(sb.stats().early).toBe(1);
    now += 1000;
    sb.configure({ rate429: 0 });
    await lrn(sb, { phone_number: '12125550123' });
    now += 1000;
    await lrn(sb, { phone_number: '12125550123' });
    expect(sb.stats().early).toBe(1);
  });

  it('a probability between 0 and 1 hits some requests, not all', async () => {
    const sb = await sandbox({ failRate: 0.5, limits: { lrn: 0, cnam: 0, trust: 0 } });
    const replies = await Promise.all(Array.from({ length: 60 }, () => lrn(sb, { phone_number: '12125550123' })));
    const failed = replies.filter((r) => r.status >= 500).length;
    expect(failed).toBeGreaterThan(5);
    expect(failed).toBeLessThan(55);
    expect(sb.stats().faults.error).toBe(failed);
  });

  it('latency holds answers back and counts them, and leaves the answer intact', async () => {
    const sb = await sandbox({ latencyMs: 5, jitterMs: 5 });
    const r = await lrn(sb, { phone_number: '12125550123' });
    expect(r.status).toBe(200);
    expect(sb.stats().faults.delayed).toBe(1);
  });

  it('close() also ends requests still waiting out their latency', async () => {
    const sb = await sandbox({ latencyMs: 60_000 });
    const pending = lrn(sb, { phone_number: '12125550123' }).then(() => 'answered', () => 'failed');
    for (let i = 0; i < 200 && sb.stats().faults.delayed === 0; i++) await new Promise((r) => setImmediate(r));
    await sb.close();
    expect(await pending).toBe('failed');
  });
});
