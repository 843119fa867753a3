// A standard error that cannot be written (a full device, a pipe whose reader left) never ends a
// run: the messages are dropped, every row is written and the exit code is what it would be. The
// real CLI, as a shell runs it, against the built-in sandbox and a loopback one.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { jsonl, requireBuiltCli, runShell } from '../support/cli.js';
import { sandbox, sandboxEnv, sandboxStats } from '../support/sandbox.js';
import { numbers } from '../support/numbers.js';
import { tempDir } from '../support/tmp.js';

requireBuiltCli();

function list(count: number) {
  const dir = tempDir();
  const input = join(dir, 'numbers.txt');
  const all = numbers(count);
  writeFileSync(input, `${all.join('\n')}\n`);
  return { dir, input, all };
}

describe.skipIf(!existsSync('/dev/full'))('stderr on /dev/full', () => {
  // 400 rows: a trace line failing for every request, for about two seconds at the built-in
  // sandbox's LRN limit (200/s), and more records than a pipe holds (64 KiB) on standard output.
  it('400 rows against --sandbox, traced with -v: every row written to stdout, exit 0', async () => {
    const { input, all } = list(400);
    const run = await runShell(`numintel lrn --sandbox -v -i '${input}' 2>/dev/full; echo "numintel-exit=$?" >&2`, { timeoutMs: 60_000 });
    expect(run.stderr).toBe('numintel-exit=0\n');
    const records = jsonl(run.stdout);
    expect(records.map((r) => r.input)).toEqual(all);
    expect(records.every((r) => r.ok === true)).toBe(true);
  }, 90_000);

  it('a failing run keeps its own exit code and nothing is written to stdout', async () => {
    const run = await runShell(`numintel lrn --sandbox --fields carier 2015550123 2>/dev/full; echo "numintel-exit=$?" >&2`);
    expect(run.stderr).toBe('numintel-exit=2\n');
    expect(run.stdout).toBe('');
  });
});

describe('stderr into a pipe that closes', () => {
  it('`-v 2>&1 | head -2` with -o: two trace lines read, all 1,500 rows in the file, each billed once, exit 0', async () => {
    // Unpaced (no limit, --rate 0): 1,500 rows trace some 240 KB, far more than the pipe holds
    // once head has gone.
    const sb = await sandbox({ limits: { lrn: 0 } });
    const { dir, input, all } = list(1500);
    const out = join(dir, 'out.jsonl');
    const run = await runShell(`{ numintel lrn -v --rate 0 -i '${input}' -o '${out}' 2>&1; echo "numintel-exit=$?" > '${dir}/exit'; } | head -2`, {
      env: sandboxEnv(sb),
      timeoutMs: 60_000,
    });
    expect(run.stdout.split('\n').filter(Boolean)).toHaveLength(2);
    expect(readFileSync(join(dir, 'exit'), 'utf8')).toBe('numintel-exit=0\n');
    const records = jsonl(readFileSync(out, 'utf8'));
    expect(records.map((r) => r.input)).toEqual(all);
    expect(records.every((r) => r.ok === true)).toBe(true);
    const stats = await sandboxStats(sb);
    expect(stats.billed).toBe(1500);
  }, 90_000);
});
