// --max-wait end to end: a server (a proxy, a gateway) asking for a day's wait stops the run at
// once, resumably, exit 5, with the hint named; a hint within the cap is obeyed. Loopback servers
// written here, the real CLI.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json, serve, type ScriptedServer } from '../api/server.js';
import { jsonl, requireBuiltCli, runCliInProcess } from '../support/cli.js';
import { tempDir } from '../support/tmp.js';

const KEY = 'sk_test_MAXWAIT_secret_0123456789';
const env = (url: string) => ({ NUMINTEL_BASE_URL: url, NUMINTEL_API_KEY: KEY });
const lrn = (n: string) => ({ lrn: n, phone_number: n, status: 'success' });

let server: ScriptedServer;
let served = 0;
/** The third request answers 429 with Retry-After: 86400; every other one answers. */
beforeAll(async () => {
  requireBuiltCli();
  server = await serve((req, res) => {
    served += 1;
    const n = (JSON.parse(req.body) as { phone_number: string }).phone_number;
    if (n === '12015550103') return json(res, 429, { error: 'rate_limited', retry_after: 86400 }, { 'retry-after': '86400' });
    json(res, 200, lrn(n));
  });
});
afterAll(() => server.close());

describe('--max-wait', () => {
  it('a 429 asking for a day stops at once with exit 5, names the wait, writes the rows before it; --resume continues', async () => {
    const dir = tempDir();
    const input = join(dir, 'n.txt');
    const out = join(dir, 'out.jsonl');
    writeFileSync(input, ['12015550101', '12015550102', '12015550103', '12015550104'].join('\n'));
    const started = performance.now();
    const r = await runCliInProcess(['lrn', '-i', input, '-o', out, '--concurrency', '1'], { env: env(server.url), timeoutMs: 20_000 });
    expect(performance.now() - started).toBeLessThan(15_000);
    expect(r.code, r.stderr).toBe(5);
    expect(r.stderr).toContain('numintel: stopped: the service asked to wait 24 h, longer than --max-wait allows (rate limited (HTTP 429');
    expect(r.stderr).toContain(`run the same command again with --resume to continue ${out}; or raise --max-wait <seconds>`);
    expect(r.stderr).not.toMatch(/TimeoutOverflowWarning/);
    expect(r.stderr).not.toContain(KEY);
    expect(jsonl(readFileSync(out, 'utf8')).map((x) => x.input)).toEqual(['12015550101', '12015550102']);
  });

  it('the same with a 200 whose window is spent for three days: the answer is written, then exit 5', async () => {
    const far = await serve((req, res) => {
      const n = (JSON.parse(req.body) as { phone_number: string }).phone_number;
      json(res, 200, lrn(n), { 'x-ratelimit-limit': '10', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(Math.floor(Date.now() / 1000) + 3 * 86_400) });
    });
    try {
      const r = await runCliInProcess(['lrn', '12015550101', '12015550102', '-f', 'jsonl', '--concurrency', '1'], { env: env(far.url), timeoutMs: 20_000 });
      expect(r.code, r.stderr).toBe(5);
      expect(r.stderr).toMatch(/asked to wait 3 days/);
      expect(jsonl(r.stdout).map((x) => x.input)).toEqual(['12015550101']);
    } finally {
      await far.close();
    }
  });

  it.each([
    ['X-RateLimit-Reset five years ahead', { 'x-ratelimit-limit': '10', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(Math.floor(Date.now() / 1000) + 5 * 365 * 86_400) }],
    ['Retry-After of 10^14 seconds', { 'retry-after': '99999999999999' }],
  ])('a 429 with %s: exit 5 at once, no timer overflow', async (_what, headers) => {
    const absurd = await serve((_req, res) => json(res, 429, { error: 'rate_limited' }, headers as Record<string, string>));
    try {
      const started = performance.now();
      const r = await runCliInProcess(['lrn', '12015550101'], { env: env(absurd.url), timeoutMs: 20_000 });
      expect(performance.now() - started).toBeLessThan(10_000);
      expect(r.code, r.stderr).toBe(5);
      expect(r.stderr).toMatch(/asked to wait \d+ (years|days)/);
      expect(r.stderr).not.toMatch(/TimeoutOverflowWarning/);
    } finally {
      await absurd.close();
    }
  });

  it('--max-wait 0 refuses any hint; bad values are usage errors; a config setting works too', async () => {
    const r = await runCliInProcess(['lrn', '12015550103', '--max-wait', '0'], { env: env(server.url) });
    expect(r.code).toBe(5);
    const bad = await runCliInProcess(['lrn', '12015550101', '--max-wait', '-1'], { env: env(server.url) });
    expect(bad.code).toBe(2);
    const big = await runCliInProcess(['lrn', '12015550101', '--max-wait', '99999999'], { env: env(server.url) });
    expect(big.code).toBe(2);
    expect(big.stderr).toMatch(/max-wait/);
  });
});

describe('a long wait is said', () => {
  it('--verbose names a wait of 3 s for the rate limit, then the run completes', async () => {
    let first = true;
    const slow = await serve((req, res) => {
      const n = (JSON.parse(req.body) as { phone_number: string }).phone_number;
      if (first) {
        first = false;
        return json(res, 429, { error: 'RATE_LIMIT_EXCEEDED' }, { 'retry-after': '3' });
      }
      json(res, 200, lrn(n));
    });
    try {
      const r = await runCliInProcess(['lrn', '12015550101', '-f', 'jsonl', '--verbose'], { env: env(slow.url), timeoutMs: 20_000 });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toMatch(/waiting 3 s for the rate limit: retry 1 of lrn 12015550101/);
    } finally {
      await slow.close();
    }
  });
});

describe('timer-bound flags', () => {
  it.each([
    [['--timeout', '0.0001'], /timeout/],
    [['--timeout', '2200000'], /timeout/],
    [['--rate', '1e-9'], /rate/],
  ])('%o is a usage error, nothing sent', async (flags, pattern) => {
    const before = served;
    const r = await runCliInProcess(['lrn', '12015550101', ...flags], { env: env(server.url) });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toMatch(pattern);
    expect(served).toBe(before);
  });
});
