// The closing summary against what the service saw: "lookups sent" and "retries" are requests
// that reached the sandbox (its own /__sandbox/stats), never rows read, duplicates, invalid numbers
// or rows that were never sent; the rate is those requests over the elapsed time. The library's
// run stats say the same.
import { afterAll, describe, expect, it } from 'vitest';
import { createClient, newRunStats, NumintelError, type RunStats } from '../../src/index.js';
import { startSandbox, type Sandbox, type SandboxOptions } from '../../src/sandbox/index.js';
import { readSummary, requireBuiltCli, runCliInProcess } from '../support/cli.js';
import { sandboxEnv, sandboxStats } from '../support/sandbox.js';
import { tempDir, writeList } from '../support/tmp.js';
import { mixedNumbers } from '../support/numbers.js';

const dir = tempDir('numintel-summary-e2e-');
const opened: Sandbox[] = [];
afterAll(async () => {
  await Promise.all(opened.splice(0).map((sb) => sb.close()));
});

async function sandbox(options: Partial<SandboxOptions> = {}): Promise<Sandbox> {
  requireBuiltCli();
  const sb = await startSandbox({ port: 0, ...options });
  opened.push(sb);
  return sb;
}

/** `count` distinct numbers, then 20 repeats and 5 invalid ones: `count` lookups at most. */
function input(name: string, from: number, count = 200): string {
  const distinct = mixedNumbers(count, from);
  return writeList(dir, name, [...distinct, ...distinct.slice(0, 20), 'n/a', '555', '12', 'call me', '0000000000']);
}

/** The summary's elapsed time and rate, as printed. */
function timing(stderr: string): { elapsedS: number; rate: number } {
  const m = /elapsed: ([\d.]+)s, rate: ([\d.]+) requests\/s/.exec(stderr);
  if (!m) throw new Error(`no elapsed/rate line (seconds, requests/s) in: ${stderr}`);
  return { elapsedS: Number(m[1]), rate: Number(m[2]) };
}

/** The rate is the requests sent over the elapsed time, within the rounding of the printed elapsed time. */
function expectRateOf(stderr: string, requests: number): void {
  const { elapsedS, rate } = timing(stderr);
  if (elapsedS >= 10) return; // whole seconds from there on: checked on the shorter runs
  expect(rate).toBeGreaterThanOrEqual(requests / (elapsedS + 0.05) - 0.1);
  if (elapsedS > 0.05) expect(rate).toBeLessThanOrEqual(requests / (elapsedS - 0.05) + 0.1);
}

describe.concurrent('the summary counts what the service saw', () => {
  it.each(['rest', 'graphql'] as const)('a clean run (%s): lookups sent = requests the service saw; duplicates and invalid numbers apart', async (transport) => {
    const sb = await sandbox();
    const r = await runCliInProcess(['lrn', '-i', input(`clean-${transport}.txt`, 1000), '--transport', transport, '--rate', '0'], { env: sandboxEnv(sb) });
    expect(r.code, r.stderr).toBe(4); // the invalid numbers
    const seen = await sandboxStats(sb);
    const summary = readSummary(r.stderr);
    expect(seen.requests.total).toBe(200);
    expect(summary).toMatchObject({ rows: 225, lookups: 200, duplicates: 20, invalid: 5, retries: 0, rateLimited: 0 });
    expectRateOf(r.stderr, seen.requests.total);
  });

  it('after a 402: the requests the service saw, not the rows read', async () => {
    const sb = await sandbox({ quota: 11 });
    const r = await runCliInProcess(['lrn', '-i', input('quota.txt', 2000)], { env: sandboxEnv(sb) });
    expect(r.code, r.stderr).toBe(3);
    const seen = await sandboxStats(sb);
    expect(seen.paymentRequired).toBeGreaterThan(0);
    const summary = readSummary(r.stderr);
    expect(summary.lookups).toBe(seen.requests.total);
    expect(summary.retries).toBe(0);
    expect(summary.lookups).toBeLessThan(200);
    expectRateOf(r.stderr, seen.requests.total);
  });

  it('after a 401: the refused requests, and a rate from them', async () => {
    const sb = await sandbox();
    const r = await runCliInProcess(['cnam', '-i', input('refused.txt', 3000)], { env: { ...sandboxEnv(sb), NUMINTEL_API_KEY: 'sk_wrong_key_123456' } });
    expect(r.code, r.stderr).toBe(3);
    const seen = await sandboxStats(sb);
    expect(seen.unauthorized).toBe(seen.requests.total);
    const summary = readSummary(r.stderr);
    expect(summary.lookups).toBe(seen.requests.total);
    // At most one concurrency's worth went out before the first refusal came back.
    expect(summary.lookups).toBeLessThanOrEqual(16);
    expectRateOf(r.stderr, seen.requests.total);
  });

  it('with retries (5xx and 429s): first tries and retries apart, together what the service saw', async () => {
    const sb = await sandbox({ failRate: 0.25, rate429: 0.15, seed: 7 });
    // 40 numbers: the seeded faults give some 5xx and a few 429s; each 429 holds the lookup until
    // its window ends, so more numbers only wait longer.
    const r = await runCliInProcess(['trust', '-i', input('retries.txt', 4000, 40), '--retries', '20', '--rate', '0'], { env: sandboxEnv(sb), timeoutMs: 60_000 });
    expect(r.code, r.stderr).toBe(4); // the invalid numbers only
    const seen = await sandboxStats(sb);
    const summary = readSummary(r.stderr);
    expect(summary.retries).toBeGreaterThan(summary.rateLimited);
    expect(summary.rateLimited).toBeGreaterThan(0);
    expect(summary.lookups).toBe(40);
    expect(summary.lookups + summary.retries).toBe(seen.requests.total);
    expect(summary.rateLimited).toBe(sb.stats().rateLimited);
    expect(summary.failed).toBe(0);
    expectRateOf(r.stderr, seen.requests.total);
  }, 60_000);

  it('nothing reached a service that is not there: nothing sent, no retries', async () => {
    const gone = await startSandbox({ port: 0 });
    await gone.close();
    const r = await runCliInProcess(['lrn', '-i', input('unreachable.txt', 4400, 5), '--retries', '2'], { env: sandboxEnv(gone), timeoutMs: 30_000 });
    expect(r.code, r.stderr).toBe(4);
    // 5 numbers and their 5 repeats failed, none of them sent; 5 invalid.
    expect(readSummary(r.stderr)).toMatchObject({ rows: 15, lookups: 0, retries: 0, failed: 10, invalid: 5 });
    expect(r.stderr).toMatch(/rate: (0\.0|n\/a) requests\/s/);
  }, 30_000);
});

describe.concurrent("the library's run stats count what the service saw", () => {
  async function bulk(sb: Sandbox, apiKey: string, nums: string[], retries = 5): Promise<{ stats: RunStats; error: unknown }> {
    const client = createClient({ baseUrl: sb.url, apiKey, retries, rates: { lrn: 0 } });
    const stats = newRunStats(Date.now());
    let error: unknown;
    try {
      for await (const _ of client.bulk('lrn', nums, { stats })) void _;
    } catch (err) {
      error = err;
    } finally {
      await client.close();
    }
    return { stats, error };
  }

  const list = (from: number) => {
    const distinct = mixedNumbers(100, from);
    return [...distinct, ...distinct.slice(0, 10), 'n/a', '12'];
  };

  it('a clean run, with duplicates and invalid numbers', async () => {
    const sb = await sandbox();
    const { stats, error } = await bulk(sb, sb.apiKey, list(5000));
    expect(error).toBeUndefined();
    expect(stats).toMatchObject({ rows: 112, lookups: 100, requests: 100, retries: 0, duplicates: 10, invalid: 2 });
    expect((await sandboxStats(sb)).requests.total).toBe(100);
  });

  it('after a 402 and a 401', async () => {
    const [quota, plain] = await Promise.all([sandbox({ quota: 7 }), sandbox()]);
    const paid = await bulk(quota, quota.apiKey, list(5200));
    expect(paid.error).toBeInstanceOf(NumintelError);
    expect(paid.stats.requests).toBe((await sandboxStats(quota)).requests.total);
    expect(paid.stats.lookups).toBe(paid.stats.requests);
    const refused = await bulk(plain, 'sk_wrong_key_123456', list(5400));
    expect(refused.error).toBeInstanceOf(NumintelError);
    expect(refused.stats.lookups).toBe((await sandboxStats(plain)).unauthorized);
    expect(refused.stats.lookups).toBeLessThanOrEqual(16);
  });

  it('with retries', async () => {
    const sb = await sandbox({ failRate: 0.3, seed: 11 });
    const { stats, error } = await bulk(sb, sb.apiKey, mixedNumbers(100, 5600), 20);
    expect(error).toBeUndefined();
    expect(stats.retries).toBeGreaterThan(0);
    expect(stats.lookups).toBe(100);
    expect(stats.requests).toBe(stats.lookups + stats.retries);
    expect(stats.requests).toBe((await sandboxStats(sb)).requests.total);
  });
});
