// Ctrl-C while the input is silent: an idle stdin pipe, a FIFO with no writer (as input or as
// --api-key-file). Each ends at once with exit 130, not when the input finally speaks.
import { spawn } from 'node:child_process';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeFile } from 'node:fs/promises';
import { CLI, cleanEnv, jsonl, requireBuiltCli, runCli } from '../support/cli.js';
import { tempDir } from '../support/tmp.js';

function interruptAfter(args: string[], ms: number, env: Record<string, string> = cleanEnv()): Promise<{ code: number | null; stderr: string; tookMs: number }> {
  requireBuiltCli();
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, ...args], { env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    let sentAt = 0;
    const timer = setTimeout(() => {
      sentAt = Date.now();
      child.kill('SIGINT');
    }, ms);
    // Kept open and silent: the input never speaks.
    const guard = setTimeout(() => child.kill('SIGKILL'), 15_000);
    child.on('exit', (code) => {
      clearTimeout(timer);
      clearTimeout(guard);
      resolve({ code, stderr, tookMs: Date.now() - sentAt });
    });
  });
}

describe('Ctrl-C while the input is silent', () => {
  it('an idle stdin pipe: exit 130 at once', async () => {
    const r = await interruptAfter(['lrn', '--sandbox'], 700);
    expect(r.code, r.stderr).toBe(130);
    expect(r.tookMs).toBeLessThan(3000);
    expect(r.stderr).toContain('numintel: interrupted');
  });

  it('a FIFO with no writer as the input, or as --api-key-file: exit 130 at once', async () => {
    const dir = tempDir();
    const fifo = join(dir, 'fifo');
    execFileSync('mkfifo', [fifo]);
    const asInput = await interruptAfter(['lrn', '--sandbox', '-i', fifo], 700);
    expect(asInput.code, asInput.stderr).toBe(130);
    expect(asInput.tookMs).toBeLessThan(3000);
    const env = cleanEnv({ NUMINTEL_BASE_URL: 'http://127.0.0.1:9' });
    const asKey = await interruptAfter(['lrn', '12015550123', '--api-key-file', fifo], 700, env);
    expect(asKey.code, asKey.stderr).toBe(130);
    expect(asKey.tookMs).toBeLessThan(3000);
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
