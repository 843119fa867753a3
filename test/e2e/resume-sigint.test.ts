// Ctrl-C mid-run and --resume, end to end, for CSV and JSON-lines output: exit 130 with a resume
// hint, a complete prefix on disk, and after --resume a file byte-identical to an uninterrupted
// run. Misused --resume is a usage error.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { runCli, timeless, startCli } from '../support/cli.js';
import { sandboxEnv } from '../support/sandbox.js';
import { tempDir, waitForLines } from '../support/tmp.js';
import { mixedNumbers } from '../support/numbers.js';

const dir = tempDir('numintel-sigint-e2e-');
let slow: Sandbox;
let fast: Sandbox;
beforeAll(async () => {
  [slow, fast] = await Promise.all([startSandbox({ port: 0, latencyMs: 40 }), startSandbox({ port: 0 })]);
});
afterAll(() => Promise.all([slow.close(), fast.close()]));

/** A CSV input of `rows` contacts (some invalid, some repeated), so rows carry columns too. */
function contacts(name: string, rows: number, from: number): string {
  const nums = mixedNumbers(rows, from);
  const lines = ['name,phone,city'];
  nums.forEach((n, i) => lines.push(`"Person ${i}, Jr",${i % 17 === 5 ? 'n/a' : i % 11 === 3 ? (nums[0] as string) : n},City ${i}`));
  const path = join(dir, name);
  writeFileSync(path, `${lines.join('\n')}\n`);
  return path;
}

describe.concurrent('Ctrl-C and --resume', () => {
  it.each(['csv', 'jsonl'] as const)('%s: exit 130, a complete prefix, then --resume gives the uninterrupted file', async (format) => {
    const input = contacts(`sigint-${format}.csv`, 150, format === 'csv' ? 3000 : 3200);
    const out = join(dir, `sigint.${format}`);
    const clean = join(dir, `sigint-clean.${format}`);
    const args = ['lrn', '--enhanced', '-i', input, '--concurrency', '4'];
    const reference = runCli([...args, '-o', clean], { env: sandboxEnv(fast) });

    const cli = startCli([...args, '-o', out], { env: sandboxEnv(slow) });
    await waitForLines(out, 15);
    cli.child.kill('SIGINT');
    const stopped = await cli.done;
    expect(stopped.code).toBe(130);
    expect(stopped.stderr).toMatch(/run the same command again with --resume to continue/);
    expect(stopped.stdout).toBe('');

    const full = readFileSync((await reference, clean), 'utf8');
    const prefix = readFileSync(out, 'utf8');
    expect(prefix.endsWith('\n')).toBe(true);
    expect(timeless(full).startsWith(timeless(prefix))).toBe(true);
    expect(prefix.length).toBeLessThan(full.length);

    const resumed = await runCli([...args, '-o', out, '--resume'], { env: sandboxEnv(fast) });
    expect(resumed.code, resumed.stderr).toBe(4); // the n/a rows
    expect(timeless(readFileSync(out, 'utf8'))).toBe(timeless(full));
  }, 30_000);

  it('--resume with other options, another command, or without -o: exit 2, file untouched, nothing sent', async () => {
    const input = contacts('mismatch.csv', 10, 3400);
    const csvOut = join(dir, 'mismatch.csv.out.csv');
    const jsonlOut = join(dir, 'mismatch.jsonl');
    const own = await startSandbox({ port: 0 });
    const env = sandboxEnv(own);
    await Promise.all([
      runCli(['lrn', '-i', input, '-o', csvOut, '-f', 'csv'], { env }),
      runCli(['lrn', '-i', input, '-o', jsonlOut, '-f', 'jsonl'], { env }),
    ]);
    // Pretend both runs were cut short after five rows.
    for (const path of [csvOut, jsonlOut]) {
      const lines = readFileSync(path, 'utf8').split('\n');
      writeFileSync(path, `${lines.slice(0, path.endsWith('.csv') ? 6 : 5).join('\n')}\n`);
    }
    const before = own.stats().requests.total;
    const saved = [readFileSync(csvOut, 'utf8'), readFileSync(jsonlOut, 'utf8')];
    const runs = await Promise.all([
      runCli(['lrn', '--enhanced', '-i', input, '-o', csvOut, '-f', 'csv', '--resume'], { env }),
      runCli(['cnam', '-i', input, '-o', csvOut, '-f', 'csv', '--resume'], { env }),
      runCli(['lrn', '--messaging', '-i', input, '-o', jsonlOut, '-f', 'jsonl', '--resume'], { env }),
      runCli(['trust', '-i', input, '-o', jsonlOut, '-f', 'jsonl', '--resume'], { env }),
      runCli(['lrn', '-i', input, '--resume'], { env }),
    ]);
    for (const r of runs) {
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toMatch(/resume/);
    }
    expect([readFileSync(csvOut, 'utf8'), readFileSync(jsonlOut, 'utf8')]).toEqual(saved);
    expect(own.stats().requests.total).toBe(before);
    await own.close();
  });
});
