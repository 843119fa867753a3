// A refused key (401) or an exhausted quota (402) mid-run: the run stops (exit 3), nothing more is
// sent once the refusal is seen, the finished prefix is written in order, and --resume with a
// working key completes the file exactly as an uninterrupted run would have written it.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startSandbox } from '../../src/sandbox/index.js';
import { jsonl, runCliInProcess, startCli } from '../support/cli.js';
import { sandboxEnv, requestLog } from '../support/sandbox.js';
import { tempDir, writeList } from '../support/tmp.js';
import { mixedNumbers } from '../support/numbers.js';

const dir = tempDir('numintel-refused-e2e-');

describe('refusals mid-run', () => {
  it('a key revoked mid-run: exit 3, the finished prefix in order, nothing sent after the refusal', async () => {
    const { log, entries } = requestLog();
    const sb = await startSandbox({ port: 0, latencyMs: 25, verbose: true, log });
    try {
      const input = mixedNumbers(100, 2000);
      const path = writeList(dir, 'revoke.txt', input);
      const cli = startCli(['lrn', '-i', path, '--concurrency', '4'], { env: sandboxEnv(sb) });
      await cli.waitForStdout((out) => out.split('\n').length > 10);
      sb.revokeKey(sb.apiKey);
      const r = await cli.done;
      expect(r.code).toBe(3);
      expect(r.stderr).toMatch(/the run stopped/);
      expect(r.stderr).toMatch(/401|key/i);
      expect(r.stderr).toMatch(/--resume|-o <file>/);
      expect(r.stderr).not.toContain(sb.apiKey);
      const recs = jsonl(r.stdout);
      expect(recs.length).toBeGreaterThanOrEqual(10);
      expect(recs.length).toBeLessThan(100);
      expect(recs.map((x) => x.input)).toEqual(input.slice(0, recs.length));
      expect(recs.every((x) => x.ok === true)).toBe(true);

      const refused = entries.filter((e) => e.status === '401');
      expect(refused.length).toBeGreaterThan(0);
      // Nothing sent after the refusal: once the key is revoked every request is refused, and only
      // those already in flight when the first refusal came back (at most --concurrency) may
      // still arrive, however late a loaded machine delivers them. A client that went on sending
      // would meet more refusals than that.
      expect(refused.length).toBeLessThanOrEqual(4);
      expect(sb.stats().requests.total).toBeLessThanOrEqual(sb.stats().billed + 4);
    } finally {
      await sb.close();
    }
  });

  it('quota exhausted mid-run: exit 3 with the finished rows; --resume on a new key completes it byte for byte', async () => {
    const input = mixedNumbers(100, 2200);
    const path = writeList(dir, 'quota.txt', input);
    const out = join(dir, 'quota.csv');
    const clean = join(dir, 'quota-clean.csv');
    const [poor, rich, reference] = await Promise.all([
      startSandbox({ port: 0, quota: 20, latencyMs: 5 }),
      startSandbox({ port: 0, apiKeys: ['second-key-123456'] }),
      startSandbox({ port: 0 }),
    ]);
    try {
      const args = ['lrn', '-i', path, '--concurrency', '4', '-o'];
      const [stopped, full] = await Promise.all([runCliInProcess([...args, out], { env: sandboxEnv(poor) }), runCliInProcess([...args, clean], { env: sandboxEnv(reference) })]);
      expect(full.code, full.stderr).toBe(0);
      expect(stopped.code).toBe(3);
      expect(stopped.stderr).toMatch(/the run stopped/);
      expect(stopped.stderr).toMatch(/402|payment|fund/i);
      expect(stopped.stderr).toMatch(/--resume/);
      const prefix = readFileSync(out, 'utf8');
      const rows = prefix.trimEnd().split('\n').slice(1);
      expect(rows.length).toBeLessThanOrEqual(20);
      expect(rows.length).toBeGreaterThanOrEqual(20 - 4);
      expect(readFileSync(clean, 'utf8').startsWith(prefix)).toBe(true);
      expect(poor.stats().billed).toBe(20);
      expect(poor.stats().paymentRequired).toBeLessThanOrEqual(4);

      const resumed = await runCliInProcess([...args, out, '--resume'], { env: sandboxEnv(rich) });
      expect(resumed.code, resumed.stderr).toBe(0);
      expect(readFileSync(out, 'utf8')).toBe(readFileSync(clean, 'utf8'));
      expect(rich.stats().billed).toBe(100 - rows.length);
    } finally {
      await Promise.all([poor.close(), rich.close(), reference.close()]);
    }
  });
});
