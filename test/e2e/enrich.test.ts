// `numintel enrich` end to end: three lookups per CSV row in one pass, one output row per input
// row, unambiguous columns, each kind paced under its own limit, records per the contract.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_LIMITS, startSandbox } from '../../src/sandbox/index.js';
import { jsonl, parseCsv, readSummary, runCli, csvRows } from '../support/cli.js';
import { sandboxEnv } from '../support/sandbox.js';
import { tempDir } from '../support/tmp.js';
import { normalised, mixedNumbers } from '../support/numbers.js';

const dir = tempDir('numintel-enrich-e2e-');

describe('enrich', () => {
  it('--lookups lrn,cnam,trust --enhanced --messaging --spam on a CSV (csv and jsonl)', async () => {
    const nums = mixedNumbers(24, 5000);
    const lines = ['name,phone,error,number'];
    nums.forEach((n, i) => lines.push(`P${i},${i === 7 ? 'call me' : i === 9 ? (nums[2] as string) : n},e${i},n${i}`));
    const input = join(dir, 'enrich.csv');
    writeFileSync(input, `${lines.join('\n')}\n`);
    // Two sandboxes: the two runs must not share a key's rate windows.
    // Over HTTPS (trusted through NODE_EXTRA_CA_CERTS, see sandboxEnv).
    const opts = { port: 0, tls: true, limits: { ...DEFAULT_LIMITS, cnam: 10, trust: 20 }, latencyMs: 5 };
    const [sb, sb2] = await Promise.all([startSandbox(opts), startSandbox(opts)]);
    try {
      const args = ['enrich', input, '--lookups', 'lrn,cnam,trust', '--enhanced', '--messaging', '--spam', '--column', 'phone'];
      const [csv, records] = await Promise.all([runCli([...args, '-f', 'csv'], { env: sandboxEnv(sb) }), runCli([...args, '-f', 'jsonl'], { env: sandboxEnv(sb2) })]);
      for (const r of [csv, records]) {
        expect(r.code, r.stderr).toBe(4); // "call me"
        expect(readSummary(r.stderr)).toMatchObject({ rows: 24, invalid: 1, failed: 0, duplicates: 3 });
      }

      const out = parseCsv(csv.stdout);
      const header = out[0] ?? [];
      expect(header.slice(0, 4)).toEqual(['name', 'phone', 'error', 'number']);
      expect(new Set(header).size).toBe(header.length);
      const added = header.slice(4);
      expect(added[0]).toBe('numintel_number');
      for (const name of added.slice(1)) expect(name).toMatch(/^(lrn|cnam|trust)_/);
      expect(added).toEqual(expect.arrayContaining(['lrn_carrier', 'lrn_messaging_provider', 'cnam_cnam', 'cnam_spam_type', 'trust_reputation_score']));
      for (const kind of ['lrn', 'cnam', 'trust']) expect(added.filter((h) => h === `${kind}_error`)).toHaveLength(1);
      const col = (name: string) => out.slice(1).map((row) => row[header.indexOf(name)]);
      expect(out.slice(1).map((row) => row.slice(0, 4))).toEqual(csvRows(readFileSync(input, 'utf8')).slice(1));
      expect(col('lrn_error')[7]).toMatch(/^invalid_number/);
      expect(col('cnam_error')[7]).toMatch(/^invalid_number/);
      expect(col('trust_error')[7]).toMatch(/^invalid_number/);
      expect(col('lrn_error').filter((e) => e !== '')).toHaveLength(1);

      const recs = jsonl(records.stdout);
      expect(recs).toHaveLength(24);
      expect(recs.map((x) => (x.row as Record<string, string>).name)).toEqual(nums.map((_, i) => `P${i}`));
      for (const [i, x] of recs.entries()) {
        expect(Object.keys(x.results as object)).toEqual(['lrn', 'cnam', 'trust']);
        expect(Object.keys(x.errors as object)).toEqual(['lrn', 'cnam', 'trust']);
        expect('result' in x || 'lookup' in x).toBe(false);
        if (i === 7) {
          expect(x).toMatchObject({ ok: false, number: null, errors: { lrn: { code: 'invalid_number' }, cnam: { code: 'invalid_number' }, trust: { code: 'invalid_number' } } });
          continue;
        }
        const results = x.results as Record<string, Record<string, unknown>>;
        expect(x.ok).toBe(true);
        expect(x.number).toBe(normalised(i === 9 ? (nums[2] as string) : (nums[i] as string)));
        expect(results.lrn).toHaveProperty('enhanced_lrn_data');
        expect(results.lrn).toHaveProperty('messaging');
        expect(results.cnam).toHaveProperty('spam_type');
        expect(results.trust).toHaveProperty('reputation_score');
      }

      // Each kind was paced under its own limit: CNAM at 10/s did not slow LRN into 429s or
      // vice versa, and each distinct number was billed once per kind per run.
      for (const stats of [sb.stats(), sb2.stats()]) {
        expect(stats.rateLimited).toBeLessThanOrEqual(1);
        expect(stats.lookups).toEqual({ lrn: 22, cnam: 22, trust: 22 });
      }
    } finally {
      await Promise.all([sb.close(), sb2.close()]);
    }
  }, 30_000);

  it('numbers given as arguments, as the lookup commands take them, over HTTPS', async () => {
    const sb = await startSandbox({ port: 0, tls: true });
    try {
      const r = await runCli(['enrich', '+1 (201) 555-0123', '212.555.0147', '--lookups', 'lrn,trust', '-f', 'jsonl'], { env: sandboxEnv(sb) });
      expect(r.code, r.stderr).toBe(0);
      const recs = jsonl(r.stdout);
      expect(recs.map((x) => [x.input, x.number])).toEqual([
        ['+1 (201) 555-0123', '12015550123'],
        ['212.555.0147', '12125550147'],
      ]);
      for (const x of recs) expect(Object.keys(x.results as object)).toEqual(['lrn', 'trust']);
      expect(sb.stats().lookups).toMatchObject({ lrn: 2, trust: 2 });
    } finally {
      await sb.close();
    }
  });
});
