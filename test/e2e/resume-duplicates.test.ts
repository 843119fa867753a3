// --no-cache --resume of a JSON lines file, counted by the service: a number that recurs after the
// resume point takes the answer its earlier row already holds in the file, so across both runs
// each distinct number is looked up once, and the file is the one an uninterrupted run writes.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { jsonl, requireBuiltCli, runCliInProcess } from '../support/cli.js';
import { sandbox, sandboxEnv } from '../support/sandbox.js';
import { tempDir, writeList } from '../support/tmp.js';

requireBuiltCli();

const DISTINCT = Array.from({ length: 20 }, (_, i) => `201555${String(300 + i).padStart(4, '0')}`);
// Each number three times, the repeats spread through the file: 0..19, then a stride of 7, then reversed.
const NUMBERS = [...DISTINCT, ...DISTINCT.map((_, i) => DISTINCT[(i * 7) % 20] as string), ...[...DISTINCT].reverse()];

/** A record without its fetch times, which differ between two runs. */
const timeless = (r: Record<string, unknown>) => ({ ...r, fetched_at: null });

describe('--no-cache --resume of JSON lines', () => {
  it.each([
    { name: 'lrn', command: ['lrn', '--enhanced'], kinds: ['lrn'], cap: 8 },
    { name: 'enrich', command: ['enrich', '--lookups', 'lrn,trust'], kinds: ['lrn', 'trust'], cap: 16 },
  ])('$name: a number recurring after the resume point is not looked up again', async ({ command, kinds, cap }) => {
    const sb = await sandbox();
    const env = sandboxEnv(sb);
    const dir = tempDir('numintel-resume-dup-');
    const input = writeList(dir, 'numbers.txt', NUMBERS);
    const out = join(dir, 'out.jsonl');
    const args = [...command, '-i', input, '--no-cache', '-o', out];

    const capped = await runCliInProcess([...args, '--max-lookups', String(cap)], { env });
    expect(capped.code, capped.stderr).toBe(5);
    const before = jsonl(readFileSync(out, 'utf8')).length;
    expect(before).toBeGreaterThan(0);
    expect(before).toBeLessThan(DISTINCT.length);

    const resumed = await runCliInProcess([...args, '--resume'], { env });
    expect(resumed.code, resumed.stderr).toBe(0);
    const seen = sb.stats();
    expect(seen.billed).toBe(kinds.length * DISTINCT.length);
    for (const [id, count] of Object.entries(seen.byNumber)) expect(count, id).toBe(1);

    // The same records as one uninterrupted run, where a repeat takes its first row's answer, fetch time included.
    const written = jsonl(readFileSync(out, 'utf8'));
    const whole = await runCliInProcess([...command, '-i', input, '--no-cache', '-f', 'jsonl'], { env });
    expect(whole.code, whole.stderr).toBe(0);
    expect(written.map(timeless)).toEqual(jsonl(whole.stdout).map(timeless));
    const first = new Map<unknown, unknown>();
    for (const r of written) {
      if (!first.has(r.number)) first.set(r.number, r.fetched_at);
      expect(r.fetched_at, String(r.number)).toEqual(first.get(r.number));
    }
  });
});
