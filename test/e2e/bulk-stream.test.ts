// Bulk basics end to end: streaming from a slow producer, duplicates billed once, the summary on
// stderr (never stdout), --quiet, no progress bar when stderr is not a terminal.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { jsonl, readSummary, runCli, startCli } from '../support/cli.js';
import { sandboxEnv } from '../support/sandbox.js';
import { tempDir, writeList } from '../support/tmp.js';
import { normalised, mixedNumbers } from '../support/numbers.js';

let sb: Sandbox;
beforeAll(async () => {
  sb = await startSandbox({ port: 0, latencyMs: 10 });
});
afterAll(() => sb.close());
const dir = tempDir('numintel-bulk-e2e-');

describe('streaming', () => {
  it('writes the first row of a slow stdin producer before the producer ends', async () => {
    const input = mixedNumbers(20, 300);
    const cli = startCli(['lrn', '-f', 'jsonl'], { env: sandboxEnv(sb) });
    try {
      cli.child.stdin.write(`${input[0]}\n`);
      await cli.waitForStdout((out) => out.includes('\n'));
      // The producer has not ended: stdin is still open and the CLI is still running.
      expect(cli.child.stdin.writableEnded).toBe(false);
      expect(cli.child.exitCode).toBe(null);
      expect(jsonl(cli.stdout())).toHaveLength(1);
      cli.child.stdin.end(`${input.slice(1).join('\n')}\n`);
      const r = await cli.done;
      expect(r.code, r.stderr).toBe(0);
      const recs = jsonl(r.stdout);
      expect(recs.map((x) => x.input)).toEqual(input);
      expect(recs.map((x) => x.number)).toEqual(input.map(normalised));
    } finally {
      cli.child.kill('SIGKILL');
    }
  });
});

describe('duplicates', () => {
  it('are looked up once each, whatever their form, and the summary says how many were saved', async () => {
    const own = await startSandbox({ port: 0, latencyMs: 15 });
    try {
      const distinct = mixedNumbers(40, 400);
      // 200 rows: every number five times, in different forms, scattered through the file.
      const rows = Array.from({ length: 200 }, (_, i) => {
        const n = normalised(distinct[(i * 7) % 40] as string);
        return [n, n.slice(1), `+1 ${n.slice(1, 4)}-${n.slice(4, 7)}-${n.slice(7)}`, `(${n.slice(1, 4)}) ${n.slice(4, 7)}-${n.slice(7)}`][i % 4] as string;
      });
      const path = writeList(dir, 'dups.txt', rows);
      const r = await runCli(['lrn', '-i', path, '--concurrency', '8'], { env: sandboxEnv(own) });
      expect(r.code, r.stderr).toBe(0);
      const recs = jsonl(r.stdout);
      expect(recs.map((x) => x.input)).toEqual(rows);
      expect(recs.every((x) => x.ok === true)).toBe(true);
      // The same number always gets the same result.
      const byNumber = new Map<string, string>();
      for (const x of recs) {
        const result = JSON.stringify(x.result);
        expect(byNumber.get(x.number as string) ?? result).toBe(result);
        byNumber.set(x.number as string, result);
      }
      const stats = own.stats();
      expect(stats.billed).toBe(40);
      expect(Object.keys(stats.byNumber).sort()).toEqual(distinct.map((n) => `lrn:${normalised(n)}`).sort());
      expect(Object.values(stats.byNumber).every((n) => n === 1)).toBe(true);
      expect(readSummary(r.stderr)).toMatchObject({ rows: 200, lookups: 40, duplicates: 160 });
    } finally {
      await own.close();
    }
  });
});

describe('summary and progress', () => {
  it('the summary goes to stderr with every counter; stdout holds only records; no progress bar on a pipe', async () => {
    const input = [...mixedNumbers(30, 500), 'not a number', '', '2015550500'];
    const path = writeList(dir, 'summary.txt', input);
    const [plain, quiet] = await Promise.all([
      runCli(['trust', '-i', path], { env: sandboxEnv(sb) }),
      runCli(['trust', '-i', path, '--quiet'], { env: sandboxEnv(sb) }),
    ]);
    for (const r of [plain, quiet]) {
      expect(r.code).toBe(4); // one invalid number
      const recs = jsonl(r.stdout); // throws if anything but JSON lines is on stdout
      expect(recs).toHaveLength(32); // the blank line is not a row
      expect(r.stdout).not.toMatch(/rows:|elapsed|\r/);
      expect(r.stdout).not.toContain('\u001b');
    }
    expect(plain.stderr).toMatch(/rows: 32, lookups sent: 30, duplicates saved: 1/);
    expect(plain.stderr).toMatch(/invalid: 1, failed: 0, retries: 0, 429s: 0/);
    expect(plain.stderr).toMatch(/elapsed: \d+(\.\d)?s, rate: [\d.]+ requests\/s/);
    // No progress bar: no carriage returns, no ETA, nothing but the summary.
    expect(plain.stderr).not.toMatch(/\r|ETA/);
    expect(plain.stderr).not.toContain('\u001b');
    expect(plain.stderr.trim().split('\n')).toHaveLength(3);
    expect(quiet.stderr).toBe('');
  });
});
