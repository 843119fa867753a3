// Ctrl-C while standard output's reader has stopped reading (`numintel … | less` left on its
// first page, `| (sleep 30; cat)`): the pipe is full and every record waits for a reader that does
// not come. The first Ctrl-C is still acknowledged at once, and the second still ends the run at
// once, exit 130, with the summary and the resume hint, not when the reader finally reads.
// The CLI writes into a real pipe (made by sh) whose reader only sleeps.
import { spawn } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { CLI, cleanEnv, requireBuiltCli } from '../support/cli.js';
import { sandboxEnv, sandboxStats } from '../support/sandbox.js';
import { sleep, tempDir, writeList } from '../support/tmp.js';
import { numbers } from '../support/numbers.js';
import { until } from '../support/until.js';

const opened: Sandbox[] = [];
afterAll(() => Promise.all(opened.splice(0).map((sb) => sb.close())));

/**
 * `numintel <args> | sleep 60`, its stderr ours. The CLI's shell prints its own pid (which exec
 * makes the CLI's) first, and the CLI's exit status after it ends; the group is killed at the end.
 */
function intoStalledPipe(args: string[], env: Record<string, string | undefined>) {
  const script = `( sh -c 'echo "pid $$" >&2; exec "$@"' numintel "$NUMINTEL_NODE" "$NUMINTEL_CLI" "$@"; echo "exit $?" >&2 ) | sleep 60`;
  const child = spawn('sh', ['-c', script, 'sh', ...args], {
    env: cleanEnv({ ...env, NUMINTEL_NODE: process.execPath, NUMINTEL_CLI: CLI }),
    stdio: ['ignore', 'ignore', 'pipe'],
    detached: true,
  });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  return {
    stderr: () => stderr,
    pid: () => Number(/^pid (\d+)$/m.exec(stderr)?.[1] ?? NaN),
    exitCode: () => {
      const m = /^exit (\d+)$/m.exec(stderr);
      return m ? Number(m[1]) : undefined;
    },
    kill: () => {
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        // already gone
      }
    },
  };
}

const STOPPING = /^numintel: stopping: finishing \d+ requests? in flight \(Ctrl-C again to quit now\)$/m;

describe('Ctrl-C with standard output stalled (a pipe nobody reads)', () => {
  it.each(['jsonl', 'csv'])('%s: the first is acknowledged at once, the second exits 130 at once with the resume hint', async (format) => {
    requireBuiltCli();
    // Paced by the service, so that the run is still going long after the pipe is full.
    const sb = await startSandbox({ port: 0, limits: { lrn: 1000, cnam: 1000, trust: 1000 } });
    opened.push(sb);
    const input = writeList(tempDir('numintel-stalled-'), 'many.txt', numbers(8000));
    const cli = intoStalledPipe(['lrn', '-i', input, '-f', format, '--no-cache'], sandboxEnv(sb));
    try {
      await until('the CLI to start', () => !Number.isNaN(cli.pid()));
      // The pipe is full once the run stops sending: every row waits for the reader.
      let last = -1;
      await until(
        'the run to stall on the full pipe',
        async () => {
          const now = (await sandboxStats(sb)).requests.total;
          const still = now > 0 && now === last;
          last = now;
          await sleep(300);
          return still;
        },
        20_000,
      );
      expect(last).toBeLessThan(8000);
      expect(cli.exitCode()).toBeUndefined();

      process.kill(cli.pid(), 'SIGINT');
      const firstAt = performance.now();
      await until('the stopping line', () => STOPPING.test(cli.stderr()), 3000);
      expect(performance.now() - firstAt).toBeLessThan(3000);
      expect(cli.exitCode()).toBeUndefined();

      process.kill(cli.pid(), 'SIGINT');
      const secondAt = performance.now();
      await until('the CLI to exit', () => cli.exitCode() !== undefined, 5000);
      expect(performance.now() - secondAt).toBeLessThan(3000);
      const stderr = cli.stderr();
      expect(cli.exitCode(), stderr).toBe(130);
      // It ended by itself, having said what it did and how to go on (not cut off by a timer).
      expect(stderr).toMatch(/^rows: \d+/m);
      expect(stderr).toMatch(/^numintel: interrupted$/m);
      expect(stderr).toMatch(/^run it again \(writing to a file with -o <file>, in csv, tsv or jsonl, makes a run resumable\)$/m);
    } finally {
      cli.kill();
    }
  }, 40_000);
});
