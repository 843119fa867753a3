// A closed stdout (`numintel … | head -1`) over the lookup cache, the real CLI against the real
// sandbox: the run stops sending as the reader leaves, exits 0 quietly, and keeps every answer it
// received, so a re-run of the same input pays only for the numbers not yet answered — every
// number is paid for once over both runs. The sandbox has no rate limit here: no 429 makes a
// request that was paid differ from an answer that was received. Over HTTPS, as users reach the
// service (its certificate trusted through NODE_EXTRA_CA_CERTS).
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Sandbox } from '../../src/sandbox/index.js';
import { hasStackTrace, jsonl, requireBuiltCli, runCli, runShell, type CliResult } from '../support/cli.js';
import { sandboxEnv, sandboxStats, startTlsSandbox } from '../support/sandbox.js';
import { tempDir } from '../support/tmp.js';
import { numbersIn } from '../support/numbers.js';

requireBuiltCli();

async function withSandbox<T>(fn: (sb: Sandbox) => Promise<T>): Promise<T> {
  const sb = await startTlsSandbox({ limits: { lrn: 0 } });
  try {
    return await fn(sb);
  } finally {
    await sb.close();
  }
}

function setup(sb: Sandbox, count: number) {
  const dir = tempDir();
  const numbers = numbersIn('609', count);
  const list = join(dir, 'numbers.txt');
  writeFileSync(list, `${numbers.join('\n')}\n`);
  const env = sandboxEnv(sb, { NUMINTEL_CACHE_DIR: join(dir, 'cache') });
  return { dir, numbers, list, env };
}

/** `numintel <args>` piped into a reader that leaves after the first line; the CLI's own exit code on stderr. */
const cut = (args: string, env: Record<string, string | undefined>) => runShell(`{ numintel ${args}; echo "numintel-exit=$?" >&2; } | head -1`, { env });

/** One line out, exit 0 from the CLI itself, nothing else said, no stack trace. */
function expectQuietCut(run: CliResult): void {
  expect(run.code).toBe(0);
  expect(run.stdout.split('\n').filter(Boolean)).toHaveLength(1);
  expect(run.stderr).toBe('numintel-exit=0\n');
  expect(hasStackTrace(run.stderr)).toBe(false);
}

/** Lookups billed per number (`lrn:<number>` → count) so far. */
const billed = async (sb: Sandbox) => (await sandboxStats(sb)).byNumber;

describe('a closed stdout over the lookup cache', () => {
  it('a run cut by `| head -1` stops sending at once and keeps what it received: the re-run pays exactly for the rest', async () => {
    await withSandbox(async (sb) => {
      const { dir, numbers, list, env } = setup(sb, 500);
      // At 50 requests a second the whole input takes ten seconds.
      const first = await cut(`lrn -i ${list} --rate 50`, env);
      expectQuietCut(first);
      expect(jsonl(first.stdout)[0]).toMatchObject({ input: numbers[0], ok: true });
      const seen = await sandboxStats(sb);
      const paid = Object.keys(seen.byNumber);
      // Stopped as the reader left, a second or so of requests at most, not the 500.
      expect(seen.requests.lrn).toBeGreaterThan(0);
      expect(seen.requests.lrn).toBeLessThan(60);
      // Every request sent was answered and paid once: none abandoned, none failed.
      expect(seen.billed).toBe(seen.requests.lrn);
      expect(Object.values(seen.byNumber).every((n) => n === 1)).toBe(true);

      const out = join(dir, 'rest.jsonl');
      const again = await runCli(['lrn', '-i', list, '--rate', '0', '-q', '-o', out], { env });
      expect(again.code, again.stderr).toBe(0);
      const after = await sandboxStats(sb);
      // Exactly the rows the cut run did not receive, each once; what it received came from the cache.
      expect(after.requests.lrn - seen.requests.lrn).toBe(numbers.length - paid.length);
      expect(after.byNumber).toEqual(Object.fromEntries(numbers.map((n) => [`lrn:${n}`, 1])));
      const records = jsonl(readFileSync(out, 'utf8'));
      expect(records).toHaveLength(numbers.length);
      expect(records.filter((r) => r.cached === true).map((r) => `lrn:${String(r.input)}`).sort()).toEqual([...paid].sort());
    });
  });

  it('five runs on one cache cut at once, in five formats: each exits 0, and the re-run pays only for what none of them received', async () => {
    await withSandbox(async (sb) => {
      const { numbers, list, env } = setup(sb, 1000);
      // Bounded by runShell's timeout: a process that hangs on the cache (or holds the others up) fails here.
      const runs = await Promise.all(['jsonl', 'csv', 'json', 'table', 'tsv'].map((f) => cut(`lrn -i ${list} --rate 0 -f ${f}`, env)));
      for (const run of runs) expectQuietCut(run);
      const paid = new Set(Object.keys(await billed(sb)));
      expect(paid.size).toBeGreaterThan(0);
      expect(paid.size).toBeLessThan(numbers.length);

      const before = await billed(sb);
      const again = await runCli(['lrn', '-i', list, '--rate', '0', '-q', '-o', '/dev/null'], { env });
      expect(again.code, again.stderr).toBe(0);
      const after = await billed(sb);
      const paidAgain = numbers.filter((n) => (after[`lrn:${n}`] ?? 0) > (before[`lrn:${n}`] ?? 0));
      expect(paidAgain).toEqual(numbers.filter((n) => !paid.has(`lrn:${n}`)));
      for (const n of paidAgain) expect(after[`lrn:${n}`]).toBe(1);
    });
  });
});
