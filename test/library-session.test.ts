// One client, many calls: parallel lookup() calls pace and dedup as bulk() does (one session per
// client), answers are kept across calls, and an unknown lookup kind is a clear error.
import { getEventListeners } from 'node:events';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, newRunStats, NumintelError, startSandbox, type Sandbox, type TypedLookupRecord } from '../src/index.js';
import { sandboxStats } from './support/sandbox.js';

let sb: Sandbox;
beforeAll(async () => {
  // A tight limit, so that any client that does not pace is answered 429.
  sb = await startSandbox({ port: 0, limits: { lrn: 20, cnam: 50, trust: 100 } });
});
afterAll(() => sb.close());

const NUMBERS = Array.from({ length: 30 }, (_, i) => `201555${String(200 + i).padStart(4, '0')}`);

describe('a client session', () => {
  it('200 parallel lookup() calls at a 20/s limit: no 429, each number sent once, every record ok', async () => {
    const client = createClient({ baseUrl: sb.url, apiKey: sb.apiKey, rates: { lrn: 20 } });
    const before = await sandboxStats(sb);
    const calls = Array.from({ length: 200 }, (_, i) => NUMBERS[i % NUMBERS.length]!);
    const records = await Promise.all(calls.map((n) => client.lookup('lrn', n)));
    await client.close();
    const after = await sandboxStats(sb);
    expect(records.every((r) => r.ok)).toBe(true);
    expect(records.map((r) => r.number)).toEqual(calls.map((n) => `1${n}`));
    expect(after.requests.lrn - before.requests.lrn).toBe(NUMBERS.length);
    expect(after.rateLimited - before.rateLimited).toBe(0);
    for (const n of NUMBERS) expect(after.byNumber[`lrn:1${n}`]).toBe(1);
  });

  it('one abort signal shared by many lookup() calls keeps no listener once they are answered', async () => {
    const client = createClient({ baseUrl: sb.url, apiKey: sb.apiKey, rates: { cnam: 0 } });
    const controller = new AbortController();
    const records = await Promise.all(NUMBERS.map((n) => client.lookup('cnam', n, { signal: controller.signal })));
    await client.close();
    expect(records.every((r) => r.ok)).toBe(true);
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
  });

  it('an abort signal: bulk() gives the records finished, in order, then throws InterruptedError; lookup() rejects with the reason', async () => {
    const client = createClient({ baseUrl: sb.url, apiKey: sb.apiKey, rates: { trust: 20 }, cache: 'off' });
    const numbers = Array.from({ length: 40 }, (_, i) => `201555${String(700 + i).padStart(4, '0')}`);
    const controller = new AbortController();
    const seen: string[] = [];
    let thrown: unknown;
    try {
      for await (const r of client.bulk('trust', numbers, { signal: controller.signal })) {
        seen.push(r.input);
        if (seen.length === 3) controller.abort();
      }
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toMatchObject({ name: 'InterruptedError', code: 'NUMINTEL_INTERRUPTED', kind: 'interrupted' });
    expect(seen.length).toBeGreaterThanOrEqual(3);
    expect(seen.length).toBeLessThan(numbers.length);
    expect(seen).toEqual(numbers.slice(0, seen.length));
    const reason = new Error('stop');
    const sent = (await sandboxStats(sb)).requests.trust;
    await expect(client.lookup('trust', '2015550123', { signal: AbortSignal.abort(reason) })).rejects.toBe(reason);
    await client.close();
    // Aborted before the call: nothing was sent for it.
    expect((await sandboxStats(sb)).requests.trust).toBe(sent);
  });

  it('close() rejects at once the lookup() calls not sent yet (UsageError), and lets those on the wire finish', async () => {
    const slow = await startSandbox({ port: 0, latencyMs: 300 });
    try {
      const client = createClient({ baseUrl: slow.url, apiKey: slow.apiKey, rates: { cnam: 0 }, concurrency: 2, cache: 'off' });
      const numbers = Array.from({ length: 12 }, (_, i) => `201555${String(800 + i).padStart(4, '0')}`);
      const events: string[] = [];
      const calls = numbers.map((n, i) =>
        client.lookup('cnam', n).then(
          (r) => events.push(`${i} ${r.ok ? 'ok' : r.error?.code}`),
          (e: unknown) => events.push(`${i} ${(e as NumintelError).name}: ${(e as Error).message}`),
        ),
      );
      // Two requests on the wire (the sandbox counts a request as it arrives, then waits 300 ms).
      for (let i = 0; i < 500 && slow.stats().requests.total < 2; i++) await new Promise((r) => setTimeout(r, 10));
      expect(slow.stats().requests.total).toBe(2);
      await client.close();
      events.push('closed');
      await Promise.all(calls);
      const closedBefore = 'UsageError: the client was closed before this lookup was sent';
      // The ten not sent are refused first, at close(); the two sent are answered before close() returns.
      expect(events.slice(0, 10)).toEqual(numbers.slice(2).map((_, i) => `${i + 2} ${closedBefore}`));
      expect(events.slice(10).sort()).toEqual(['0 ok', '1 ok', 'closed']);
      expect(slow.stats().requests.total).toBe(2);
    } finally {
      await slow.close();
    }
  });

  it('close() does not wait out a retry: a lookup() resting after a 429 rejects at once and is not sent again', async () => {
    const limited = await startSandbox({ port: 0, rate429: 1 });
    try {
      const client = createClient({ baseUrl: limited.url, apiKey: limited.apiKey, cache: 'off' });
      const call = client.lookup('trust', '2015550123');
      for (let i = 0; i < 500 && limited.stats().requests.total < 1; i++) await new Promise((r) => setTimeout(r, 10));
      let settled = false;
      const outcome = call.then(
        () => 'resolved',
        (e: unknown) => `${(e as Error).name}: ${(e as Error).message}`,
      ).finally(() => (settled = true));
      await client.close();
      expect(settled).toBe(true);
      expect(await outcome).toBe('UsageError: the client was closed before this lookup was sent');
      expect(limited.stats().requests.total).toBe(1);
    } finally {
      await limited.close();
    }
  });

  it('close() during a bulk() stops it sending: the records finished come out, then UsageError says it was cut short', async () => {
    const client = createClient({ baseUrl: sb.url, apiKey: sb.apiKey, rates: { cnam: 10 }, cache: 'off' });
    const numbers = Array.from({ length: 20 }, (_, i) => `201555${String(850 + i).padStart(4, '0')}`);
    const stats = newRunStats(Date.now());
    const seen: TypedLookupRecord<'cnam'>[] = [];
    let thrown: unknown;
    try {
      for await (const r of client.bulk('cnam', numbers, { stats })) {
        seen.push(r);
        if (seen.length === 2) void client.close();
      }
    } catch (err) {
      thrown = err;
    }
    // The bulk went on to its end, every number after close() a network error (CLIENT_CLOSED).
    expect(thrown).toMatchObject({ name: 'UsageError', code: 'NUMINTEL_USAGE', message: 'the client was closed during the run: the numbers after the last record were not looked up' });
    expect(seen.length).toBeLessThan(numbers.length);
    expect(seen.every((r) => r.ok)).toBe(true);
    expect(stats.failed).toBe(0);
  });

  it('bulk() and parallel lookup() calls at once share the limit: no 429 at 20/s', async () => {
    const client = createClient({ baseUrl: sb.url, apiKey: sb.apiKey, rates: { lrn: 20 } });
    const before = await sandboxStats(sb);
    const listed = Array.from({ length: 20 }, (_, i) => `201555${String(400 + i).padStart(4, '0')}`);
    const single = Array.from({ length: 20 }, (_, i) => `201555${String(500 + i).padStart(4, '0')}`);
    const bulk = (async () => {
      const out: unknown[] = [];
      for await (const r of client.bulk('lrn', listed)) out.push(r);
      return out;
    })();
    const [fromBulk, fromLookups] = await Promise.all([bulk, Promise.all(single.map((n) => client.lookup('lrn', n)))]);
    await client.close();
    const after = await sandboxStats(sb);
    expect(fromBulk).toHaveLength(20);
    expect(fromLookups.every((r) => r.ok)).toBe(true);
    expect(after.requests.lrn - before.requests.lrn).toBe(40);
    expect(after.rateLimited - before.rateLimited).toBe(0);
  });

  it('answers are kept across calls: a later bulk() of the same numbers sends nothing; cache "off" does', async () => {
    const client = createClient({ baseUrl: sb.url, apiKey: sb.apiKey });
    const first = await client.lookup('cnam', '2015550300', { spam: true });
    const before = (await sandboxStats(sb)).requests.cnam;
    const again: unknown[] = [];
    for await (const r of client.bulk('cnam', ['2015550300', '(201) 555-0300'], { spam: true })) again.push(r);
    expect((await sandboxStats(sb)).requests.cnam).toBe(before);
    expect(again).toEqual([
      { ...first, cached: true },
      { ...first, input: '(201) 555-0300', cached: true },
    ]);
    await client.close();
    const off = createClient({ baseUrl: sb.url, apiKey: sb.apiKey, cache: 'off' });
    await off.lookup('cnam', '2015550300', { spam: true });
    await off.lookup('cnam', '2015550300', { spam: true });
    await off.close();
    expect((await sandboxStats(sb)).requests.cnam).toBe(before + 2);
  });

  it('an unknown lookup kind is a clear error, not a TypeError', async () => {
    const client = createClient({ baseUrl: sb.url, apiKey: sb.apiKey });
    await expect(client.lookup('foo' as 'lrn', '2015550100')).rejects.toThrow(NumintelError);
    await expect(client.lookup('foo' as 'lrn', '2015550100')).rejects.toThrow('Expected a lookup (lrn, cnam, trust), got "foo"');
    await client.close();
  });

  it('a refused key rejects every waiting lookup with the refusal, and the next call tries again', async () => {
    const client = createClient({ baseUrl: sb.url, apiKey: 'sk_wrong_0123456789abcdef' });
    const results = await Promise.allSettled([client.lookup('trust', '2015550101'), client.lookup('trust', '2015550102')]);
    for (const r of results) {
      expect(r.status).toBe('rejected');
      expect((r as PromiseRejectedResult).reason).toBeInstanceOf(NumintelError);
      expect(((r as PromiseRejectedResult).reason as NumintelError).kind).toBe('refused');
    }
    await expect(client.lookup('trust', '2015550103')).rejects.toBeInstanceOf(NumintelError);
    await client.close();
  });
});
