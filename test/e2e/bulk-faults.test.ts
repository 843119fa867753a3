// Transient faults end to end: 5xx, connection resets and hanging requests are retried until every
// row is answered (or, with retries exhausted, the row says why); a service that keeps failing
// trips the circuit breaker, which stops the run resumably.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox, type SandboxOptions } from '../../src/sandbox/index.js';
import { ERROR_STYLES } from '../../src/sandbox/options.js';
import { jsonl, readSummary, runCliInProcess } from '../support/cli.js';
import { sandboxEnv } from '../support/sandbox.js';
import { tempDir, writeList } from '../support/tmp.js';
import { normalised, mixedNumbers } from '../support/numbers.js';

// Every suite runs against both error styles: our description's bodies and the real service's.
// Each test has its own sandboxes and input file, and they mostly wait (on faults, timeouts and
// Retry-After hints): they run side by side.
describe.concurrent.each(ERROR_STYLES)('%s error bodies', (errorStyle) => {
  const dir = tempDir(`numintel-faults-e2e-${errorStyle}-`);

  async function withSandbox<T>(opts: Partial<SandboxOptions>, fn: (sb: Sandbox) => Promise<T>): Promise<T> {
    const sb = await startSandbox({ port: 0, errorStyle, ...opts });
    try {
      return await fn(sb);
    } finally {
      await sb.close();
    }
  }

  describe('transient faults', () => {
    it('failRate 0.3 and resetRate 0.2: every row ok in order, each fault retried once and counted', async () => {
      const input = mixedNumbers(40, 600);
      const path = writeList(dir, 'faults.txt', input);
      const run = (opts: Partial<SandboxOptions>) =>
        withSandbox({ ...opts, seed: 7 }, async (sb) => {
          const r = await runCliInProcess(['cnam', '-i', path, '--retries', '12', '--concurrency', '8'], { env: sandboxEnv(sb), timeoutMs: 50_000 });
          return { r, stats: sb.stats() };
        });
      const results = await Promise.all([run({ failRate: 0.3 }), run({ resetRate: 0.2 })]);
      for (const [i, { r, stats }] of results.entries()) {
        expect(r.code, r.stderr).toBe(0);
        const recs = jsonl(r.stdout);
        expect(recs.map((x) => x.input)).toEqual(input);
        expect(recs.every((x) => x.ok === true)).toBe(true);
        const faults = i === 0 ? stats.faults.error : stats.faults.reset;
        expect(faults).toBeGreaterThan(0);
        const summary = readSummary(r.stderr);
        expect(summary.retries).toBe(faults);
        expect(summary.failed).toBe(0);
        expect(stats.requests.cnam).toBe(40 + faults);
        expect(stats.billed).toBe(40);
      }
    }, 60_000);

    it('429s are waited out and retried even with --retries 0, which bounds 5xx, resets and timeouts only', async () => {
      const input = mixedNumbers(30, 900);
      const path = writeList(dir, 'spurious-429.txt', input);
      // Over HTTPS, as the real service is reached (an in-process run trusts the certificate through NUMINTEL_CA_FILE).
      const { r, stats } = await withSandbox({ rate429: 0.3, seed: 4, tls: true }, async (sb) => ({
        r: await runCliInProcess(['cnam', '-i', path, '--retries', '0'], { env: sandboxEnv(sb, { NUMINTEL_CA_FILE: sb.caFile }), timeoutMs: 40_000 }),
        stats: sb.stats(),
      }));
      expect(r.code, r.stderr).toBe(0);
      const recs = jsonl(r.stdout);
      expect(recs.map((x) => x.input)).toEqual(input);
      expect(recs.every((x) => x.ok === true)).toBe(true);
      expect(stats.faults.rate429).toBeGreaterThan(0);
      expect(readSummary(r.stderr)).toMatchObject({ retries: stats.faults.rate429, rateLimited: stats.rateLimited, failed: 0 });
    }, 60_000);

    it('hanging requests with --timeout 1 are abandoned and retried; with no retries left the row says timeout', async () => {
      const input = mixedNumbers(30, 700);
      const path = writeList(dir, 'hang.txt', input);
      const [retried, exhausted] = await Promise.all([
        withSandbox({ hangRate: 0.15, seed: 3 }, async (sb) => ({
          r: await runCliInProcess(['trust', '-i', path, '--timeout', '1', '--retries', '8'], { env: sandboxEnv(sb), timeoutMs: 40_000 }),
          stats: sb.stats(),
        })),
        withSandbox({ hangRate: 0.3, seed: 5 }, async (sb) => ({
          r: await runCliInProcess(['trust', '-i', path, '--timeout', '1', '--retries', '0', '--max-failures', '0'], { env: sandboxEnv(sb), timeoutMs: 40_000 }),
          stats: sb.stats(),
        })),
      ]);

      expect(retried.r.code, retried.r.stderr).toBe(0);
      const ok = jsonl(retried.r.stdout);
      expect(ok.map((x) => x.input)).toEqual(input);
      expect(ok.every((x) => x.ok === true)).toBe(true);
      expect(retried.stats.faults.hang).toBeGreaterThan(0);
      // Every hung request was abandoned and retried. On a loaded machine an answer that is only
      // slow can pass the 1 s deadline too and is retried the same way (CI once: 9 retries for 4
      // hangs), so the hangs are a floor, not the count.
      expect(readSummary(retried.r.stderr).retries).toBeGreaterThanOrEqual(retried.stats.faults.hang);

      expect(exhausted.r.code).toBe(4);
      const recs = jsonl(exhausted.r.stdout);
      expect(recs.map((x) => x.input)).toEqual(input);
      const timedOut = recs.filter((x) => !x.ok);
      // Each hang is a row that timed out (a slow answer on a loaded machine may be one more).
      expect(timedOut.length).toBeGreaterThanOrEqual(exhausted.stats.faults.hang);
      expect(exhausted.stats.faults.hang).toBeGreaterThan(0);
      for (const x of timedOut) expect(x.error).toMatchObject({ code: 'timeout' });
      expect(readSummary(exhausted.r.stderr)).toMatchObject({ failed: timedOut.length, retries: 0 });
    }, 60_000);
  });

  describe('circuit breaker', () => {
    it('a service that always fails stops the run early (exit 5, resume hint); --resume then completes the file', async () => {
      const input = mixedNumbers(50, 800);
      const path = writeList(dir, 'breaker.txt', input);
      const out = join(dir, 'breaker.jsonl');
      const broken = await withSandbox({ failRate: 1, latencyMs: 5 }, async (sb) => ({
        r: await runCliInProcess(['lrn', '-i', path, '-o', out, '--retries', '0', '--max-failures', '5', '--concurrency', '4'], { env: sandboxEnv(sb) }),
        stats: sb.stats(),
      }));
      expect(broken.r.code).toBe(5);
      expect(broken.r.stderr).toMatch(/kept failing/);
      expect(broken.r.stderr).toMatch(/--resume/);
      expect(broken.stats.requests.lrn).toBeLessThan(50);
      const prefix = jsonl(readFileSync(out, 'utf8'));
      expect(prefix.length).toBeGreaterThanOrEqual(5);
      expect(prefix.length).toBeLessThan(50);
      expect(prefix.map((x) => x.input)).toEqual(input.slice(0, prefix.length));
      for (const x of prefix) expect(x.error).toMatchObject({ code: 'server_error' });
      // The style really is in effect: the service's own words differ.
      expect(JSON.stringify(prefix)).toMatch(errorStyle === 'vri' ? /upstream provider unavailable|internal error \(|bad gateway \(/ : /Server error: /);

      const healed = await withSandbox({}, async (sb) => ({
        r: await runCliInProcess(['lrn', '-i', path, '-o', out, '--retries', '0', '--max-failures', '5', '--concurrency', '4', '--resume'], { env: sandboxEnv(sb) }),
        stats: sb.stats(),
      }));
      // The file holds the failed rows of the first run: the exit code covers the whole file.
      expect(healed.r.code, healed.r.stderr).toBe(4);
      const all = jsonl(readFileSync(out, 'utf8'));
      expect(all.map((x) => x.input)).toEqual(input);
      expect(all.slice(prefix.length).every((x) => x.ok === true)).toBe(true);
      // Rows already written are not looked up again.
      expect(healed.stats.billed).toBe(50 - prefix.length);
      expect(Object.keys(healed.stats.byNumber)).not.toContain(`lrn:${normalised(input[0] as string)}`);
    });
  });
});
