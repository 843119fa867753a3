// The spend cap over enrich, counted by the service: a row's lookups are paid for whole or not
// at all, so a capped run stops between rows, every request it sent belongs to a row it wrote, and
// the resume (without the cap) pays each lookup of the file exactly once in all.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseCsv, readSummary, requireBuiltCli, runCliInProcess, timeless } from '../support/cli.js';
import { sandbox, sandboxEnv } from '../support/sandbox.js';
import { tempDir } from '../support/tmp.js';

requireBuiltCli();

const NUMBERS = Array.from({ length: 30 }, (_, i) => `201555${String(100 + i).padStart(4, '0')}`);
const KINDS = ['lrn', 'cnam', 'trust'] as const;

function setup() {
  const dir = tempDir('numintel-enrich-cap-');
  const input = join(dir, 'numbers.csv');
  writeFileSync(input, `phone\n${NUMBERS.join('\n')}\n`);
  return { dir, input, out: join(dir, 'out.csv') };
}

/** The normalised numbers of the rows in a CSV output. */
function writtenNumbers(csv: string): Set<string> {
  const [header, ...rows] = parseCsv(csv);
  const at = (header ?? []).indexOf('number');
  return new Set(rows.map((r) => r[at] ?? ''));
}

describe('enrich under a spend cap', () => {
  it.each([
    { cap: ['--max-lookups', '10'], rows: 3 },
    // 0.06 a row: the second row would make 0.12.
    { cap: ['--max-spend', '0.1', '--price', 'lrn=0.01,cnam=0.02,trust=0.03'], rows: 1 },
  ])('$cap.0: stops between whole rows, sends only what it writes, and the resume pays nothing twice', async ({ cap, rows }) => {
    const sb = await sandbox();
    const env = sandboxEnv(sb);
    const { input, out } = setup();
    const args = ['enrich', '-i', input, '--lookups', KINDS.join(','), '--no-cache', '-o', out];

    const capped = await runCliInProcess([...args, ...cap], { env });
    expect(capped.code, capped.stderr).toBe(5);
    expect(capped.stderr).toContain('stopped: the spend cap is reached');
    const sent = sb.stats();
    expect(sent.requests.total).toBe(3 * rows);
    const written = writtenNumbers(readFileSync(out, 'utf8'));
    expect(written.size).toBe(rows);
    // Every request the service saw is for a number whose row is in the file.
    for (const id of Object.keys(sent.byNumber)) expect(written, id).toContain(id.split(':')[1]);

    const resumed = await runCliInProcess([...args, '--resume'], { env });
    expect(resumed.code, resumed.stderr).toBe(0);
    const all = sb.stats();
    expect(all.requests.total).toBe(KINDS.length * NUMBERS.length);
    for (const [id, count] of Object.entries(all.byNumber)) expect(count, id).toBe(1);
    const reference = await runCliInProcess(['enrich', '-i', input, '--lookups', KINDS.join(','), '--no-cache', '-f', 'csv'], { env });
    expect(timeless(readFileSync(out, 'utf8'))).toBe(timeless(reference.stdout));
  });

  it('retries count against the cap too: no more requests than the cap leave, and the resume completes the file', async () => {
    const sb = await sandbox({ failRate: 0.3, seed: 3 });
    const env = sandboxEnv(sb);
    const { input, out } = setup();
    const args = ['enrich', '-i', input, '--lookups', KINDS.join(','), '--no-cache', '-o', out];
    const capped = await runCliInProcess([...args, '--max-lookups', '20'], { env });
    expect(capped.code, capped.stderr).toBe(5);
    const sent = sb.stats().requests.total;
    expect(sent).toBeLessThanOrEqual(20);
    expect(readSummary(capped.stderr).retries).toBeGreaterThan(0);
    // Enough retries that no lookup of the ~80 left fails six times running (0.3^6 a lookup made
    // one fail in ~20 runs); the cap's counting is what this test is about.
    const resumed = await runCliInProcess([...args, '--resume', '--retries', '12'], { env });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(writtenNumbers(readFileSync(out, 'utf8')).size).toBe(NUMBERS.length);
  });

  it('a cached lookup needs no room under the cap: only the lookups that will be sent are reserved', async () => {
    const sb = await sandbox();
    const { dir, input, out } = setup();
    const env = sandboxEnv(sb, { NUMINTEL_CACHE_DIR: join(dir, 'cache') });
    // Every number's lrn is in the cache: each row then sends two lookups.
    const warm = await runCliInProcess(['lrn', '-i', input, '-f', 'csv'], { env });
    expect(warm.code, warm.stderr).toBe(0);
    const capped = await runCliInProcess(['enrich', '-i', input, '--lookups', KINDS.join(','), '-o', out, '--max-lookups', '9'], { env });
    expect(capped.code, capped.stderr).toBe(5);
    expect(sb.stats().requests.total).toBe(NUMBERS.length + 8);
    expect(writtenNumbers(readFileSync(out, 'utf8')).size).toBe(4);
  });
});
