// Ctrl-C while the input is silent: an idle stdin pipe, a FIFO with no writer (as input or as
// --api-key-file), for a run, a --dry-run and `report -`. Each ends at once with exit 130, not
// when the input finally speaks.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeFile } from 'node:fs/promises';
import { jsonl, requireBuiltCli, runCli, startCli, waitUntilIdle } from '../support/cli.js';
import { sleep, tempDir } from '../support/tmp.js';

/**
 * Starts the CLI with its stdin kept open and silent (after `written`, if given), sends SIGINT after
 * `ms`; how long it took to end after that. A signal not heard leaves it running to the 15 s timeout.
 */
async function interruptAfter(
  args: string[],
  ms: number,
  env?: Record<string, string>,
  written = '',
): Promise<{ code: number | null; stdout: string; stderr: string; tookMs: number }> {
  requireBuiltCli();
  const cli = startCli(args, { ...(env ? { env } : {}), timeoutMs: 15_000 });
  cli.child.stdin.write(written);
  await sleep(ms);
  // Started and waiting on its silent input, not still starting (see waitUntilIdle).
  expect(await waitUntilIdle(cli.child.pid)).toBe(true);
  const sentAt = performance.now();
  cli.child.kill('SIGINT');
  const r = await cli.done;
  return { code: r.code, stdout: r.stdout, stderr: r.stderr, tookMs: performance.now() - sentAt };
}

// Each test its own processes and files, mostly waiting on a silent input: side by side.
describe.concurrent('Ctrl-C while the input is silent', () => {
  it('an idle stdin pipe: exit 130 at once', async () => {
    const r = await interruptAfter(['lrn', '--sandbox'], 700);
    expect(r.code, r.stderr).toBe(130);
    expect(r.tookMs).toBeLessThan(3000);
    expect(r.stderr).toContain('numintel: interrupted');
  });

  it('a FIFO with no writer as the input, as --api-key-file, or as the output report reads: exit 130 at once', async () => {
    const dir = tempDir();
    const fifo = join(dir, 'fifo');
    execFileSync('mkfifo', [fifo]);
    const asInput = await interruptAfter(['lrn', '--sandbox', '-i', fifo], 700);
    expect(asInput.code, asInput.stderr).toBe(130);
    expect(asInput.tookMs).toBeLessThan(3000);
    const env = { NUMINTEL_BASE_URL: 'http://127.0.0.1:9' };
    const asKey = await interruptAfter(['lrn', '12015550123', '--api-key-file', fifo], 700, env);
    expect(asKey.code, asKey.stderr).toBe(130);
    expect(asKey.tookMs).toBeLessThan(3000);
    // report opened it in libuv's thread pool, where open() waits for a writer and the process cannot even exit.
    const reported = await interruptAfter(['report', fifo], 700);
    expect(reported.code, reported.stderr).toBe(130);
    expect(reported.tookMs).toBeLessThan(3000);
    expect(reported.stderr).toBe('numintel: interrupted while reading the input\n');
  });

  it.each([
    ['--dry-run, nothing read yet', ['lrn', '--dry-run'], ''],
    ['--dry-run, rows read and more awaited', ['enrich', '--dry-run', '-i', '-'], '12015550123\n12015550124\n'],
    ['report -, nothing read yet', ['report', '-'], ''],
    ['report -, records read and more awaited', ['report', '-', '-f', 'json'], '{"input":"1","number":null,"lookup":"lrn","ok":false,"result":null,"error":{"code":"invalid_number","message":"too short"}}\n'],
  ])('%s: the first Ctrl-C ends it, exit 130, nothing on stdout', async (_, args, written) => {
    const r = await interruptAfter(args, 700, undefined, written);
    expect(r.code, r.stderr).toBe(130);
    expect(r.tookMs).toBeLessThan(3000);
    expect(r.stderr).toMatch(/^numintel: interrupted while (waiting for|reading) the input\n$/);
    expect(r.stdout).toBe('');
  });

  it('config set api-key from a pipe that keeps silent: the first Ctrl-C ends it, exit 130, nothing stored', async () => {
    const config = tempDir();
    const r = await interruptAfter(['config', 'set', 'api-key'], 700, { NUMINTEL_CONFIG_DIR: config }, 'sk_live_half');
    expect(r.code, r.stderr).toBe(130);
    expect(r.tookMs).toBeLessThan(3000);
    expect(r.stderr).toBe('numintel: interrupted while reading the API key\n');
    expect(existsSync(join(config, 'config.json'))).toBe(false);
  });

  it('a FIFO whose writer comes later is read whole', async () => {
    const dir = tempDir();
    const fifo = join(dir, 'late');
    execFileSync('mkfifo', [fifo]);
    const run = runCli(['lrn', '--sandbox', '-i', fifo, '-f', 'jsonl'], { timeoutMs: 15_000 });
    await new Promise((r) => setTimeout(r, 500));
    await writeFile(fifo, '12015550123\n12015550124\n');
    const r = await run;
    expect(r.code, r.stderr).toBe(0);
    expect(jsonl(r.stdout).map((x) => x.input)).toEqual(['12015550123', '12015550124']);
  });
});
