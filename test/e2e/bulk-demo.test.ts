// `npm run demo`: green with no key, no base URL and no config (the built-in sandbox), and the
// enriched copy of samples/contacts.csv has one row per contact, in order, cells unchanged.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, cleanEnv, parseCsv, csvRows } from '../support/cli.js';

function npmRunDemo(): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    // No NUMINTEL_* settings and a private config dir: nothing but the built-in sandbox to talk to.
    const child = spawn('npm', ['run', '--silent', 'demo'], { cwd: ROOT, env: cleanEnv({ NO_COLOR: '1' }), stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), 40_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

describe('npm run demo', () => {
  it('exits 0 with no key and writes demo-output/contacts.enriched.csv, one row per contact', async () => {
    const r = await npmRunDemo();
    expect(r.code, r.stderr).toBe(0);
    const contacts = csvRows(readFileSync(join(ROOT, 'samples', 'contacts.csv'), 'utf8'));
    const enriched = parseCsv(readFileSync(join(ROOT, 'demo-output', 'contacts.enriched.csv'), 'utf8'));
    expect(enriched).toHaveLength(contacts.length);
    const width = (contacts[0] ?? []).length;
    expect(enriched.map((row) => row.slice(0, width))).toEqual(contacts.map((row) => Array.from({ length: width }, (_, i) => row[i] ?? '')));
    expect(enriched[0]).toEqual(expect.arrayContaining(['lrn_error', 'cnam_error', 'trust_error']));
  }, 45_000);
});
