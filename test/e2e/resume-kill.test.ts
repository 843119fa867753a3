// kill -9 mid-run, then --resume: the torn tail (if any) is dropped, the file ends byte-identical
// to an uninterrupted run, and only lookups whose answers had not reached the file at the kill are paid for twice.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startSandbox } from '../../src/sandbox/index.js';
import { runCli, timeless, startCli } from '../support/cli.js';
import { sandboxEnv } from '../support/sandbox.js';
import { tempDir, waitForLines, writeList } from '../support/tmp.js';
import { mixedNumbers } from '../support/numbers.js';

const dir = tempDir('numintel-kill-e2e-');
const CONCURRENCY = 4;

describe.concurrent('kill -9 and --resume', () => {
  it.each(['csv', 'jsonl'] as const)('%s: byte-identical after resume, at most the lookups unwritten at the kill repeated', async (format) => {
    const [slow, fast, reference] = await Promise.all([
      startSandbox({ port: 0, latencyMs: 30, jitterMs: 20 }),
      startSandbox({ port: 0 }),
      startSandbox({ port: 0 }),
    ]);
    try {
      const input = writeList(dir, `kill-${format}.txt`, mixedNumbers(150, format === 'csv' ? 4000 : 4200));
      const out = join(dir, `kill.${format}`);
      const clean = join(dir, `kill-clean.${format}`);
      const args = ['cnam', '--spam', '-i', input, '-f', format, '--concurrency', String(CONCURRENCY), '--rate', '0'];
      const full = runCli([...args, '-o', clean], { env: sandboxEnv(reference) });

      const cli = startCli([...args, '-o', out], { env: sandboxEnv(slow) });
      await waitForLines(out, 20);
      cli.child.kill('SIGKILL');
      const killed = await cli.done;
      expect(killed.signal).toBe('SIGKILL');
      const cut = readFileSync(out, 'utf8');
      const expected = readFileSync((await full, clean), 'utf8');
      expect(cut.length).toBeLessThan(expected.length);

      const resumed = await runCli([...args, '-o', out, '--resume'], { env: sandboxEnv(fast) });
      expect(resumed.code, resumed.stderr).toBe(0);
      expect(timeless(readFileSync(out, 'utf8'))).toBe(timeless(expected));

      const paid = slow.stats().billed + fast.stats().billed;
      expect(paid).toBeGreaterThanOrEqual(150);
      // Paid twice: what the slow service answered that the file did not hold at the kill. That is
      // the requests in flight (at most CONCURRENCY), plus answers that had arrived but not yet
      // reached the file (waiting behind a slower earlier row, or for the writer's turn): a few at
      // most with this latency spread; the cache does not help here (another service origin).
      expect(paid - 150).toBeLessThanOrEqual(2 * CONCURRENCY);
      // What the resumed run looked up is exactly what the file did not hold yet.
      const kept = expected.slice(0, cut.length).split('\n').length - 1 - (format === 'csv' ? 1 : 0);
      expect(fast.stats().billed).toBeLessThanOrEqual(150 - kept + 1);
    } finally {
      await Promise.all([slow.close(), fast.close(), reference.close()]);
    }
  }, 30_000);

  it('--transport bulk: byte-identical after resume; only the batch in flight at the kill is sent again, answers that landed come from the cache', async () => {
    const BATCH = 20;
    const [sb, reference] = await Promise.all([startSandbox({ port: 0, latencyMs: 60, bulkLimits: { lrn: 0, cnam: 0 } }), startSandbox({ port: 0 })]);
    try {
      const input = writeList(dir, 'kill-bulk.txt', mixedNumbers(200, 4400));
      const out = join(dir, 'kill-bulk.csv');
      const clean = join(dir, 'kill-bulk-clean.csv');
      const args = ['lrn', '-i', input, '-f', 'csv', '--transport', 'bulk', '--batch-size', String(BATCH), '--concurrency', '1'];
      const cache = { NUMINTEL_CACHE_DIR: tempDir('numintel-kill-bulk-cache-') };
      const full = runCli([...args, '--no-cache', '-o', clean], { env: sandboxEnv(reference) });
      const cli = startCli([...args, '-o', out], { env: sandboxEnv(sb, cache) });
      await waitForLines(out, 50);
      cli.child.kill('SIGKILL');
      expect((await cli.done).signal).toBe('SIGKILL');
      const expected = readFileSync((await full, clean), 'utf8');
      expect(readFileSync(out, 'utf8').length).toBeLessThan(expected.length);
      const resumed = await runCli([...args, '-o', out, '--resume'], { env: sandboxEnv(sb, cache) });
      expect(resumed.code, resumed.stderr).toBe(0);
      expect(readFileSync(out, 'utf8')).toBe(expected);
      // One request in flight at a time: at the kill, at most one batch was sent and never received.
      expect(sb.stats().billed - 200).toBeLessThanOrEqual(BATCH);
    } finally {
      await Promise.all([sb.close(), reference.close()]);
    }
  }, 30_000);
});
