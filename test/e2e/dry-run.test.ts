// --dry-run end to end: the real CLI against a real sandbox, which must see no request at all;
// the figures of a file whose answer is known, with a cache seeded for that sandbox's origin.
import { copyFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { systemClock } from '../../src/core/clock.js';
import { LmdbAnswerStore } from '../../src/store/lmdb-store.js';
import { fileSandbox, sandboxStats } from '../support/sandbox.js';
import { runCli } from '../support/cli.js';
import { tempDir } from '../support/tmp.js';

// Over HTTPS, as the real service is reached: the cache is keyed by the https origin.
const ctx = fileSandbox({ tls: true });

describe('--dry-run', () => {
  it('reads the whole CSV, sends nothing, and reports its figures with the cache’s fresh hits', async () => {
    const dir = tempDir('numintel-dry-run-e2e-');
    const input = join(dir, 'tricky.csv');
    copyFileSync(join(import.meta.dirname, '..', 'fixtures', 'dry-run', 'tricky.csv'), input);
    const cacheDir = join(dir, 'cache');
    const store = await LmdbAnswerStore.open({ dir: cacheDir, service: new URL(ctx.sb.url).origin, clock: systemClock, warn: () => {} });
    store.slot('cnam', { spam: true }).put('12015550101', { number: '12015550101', cnam: 'ADA', spam_type: null }, Date.now());
    await store.close();

    const env = { ...ctx.env, NUMINTEL_CACHE_DIR: cacheDir };
    const r = await runCli(['enrich', input, '--lookups', 'lrn,cnam', '--spam', '--dry-run', '-f', 'json', '--price', 'lrn=0.0005,cnam=0.006'], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    const report = JSON.parse(r.stdout);
    expect(report).toMatchObject({
      rows: 16,
      valid: 8,
      invalid: 8,
      duplicates: 3,
      cache: 'on',
      billable: 9,
      invalid_by_reason: { empty: 2, too_short: 1, letters: 1, not_us: 1, bad_area_code: 1, bad_exchange: 1, too_long: 1 },
    });
    expect(report.lookups.lrn).toMatchObject({ needed: 8, duplicates: 3, cache_hits: 0, billable: 5 });
    expect(report.lookups.cnam).toMatchObject({ cache_hits: 1, billable: 4, rate_per_second: 50 });
    expect(report.cost).toBeCloseTo(5 * 0.0005 + 4 * 0.006, 10);

    // Plain text when piped; nothing was sent either time, and the dry run created no file.
    const text = await runCli(['lrn', '-i', input, '--dry-run', '-o', join(dir, 'out.csv')], { env });
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toMatch(/^Dry run: nothing was sent\n {2}rows {12}16\n/);
    expect(existsSync(join(dir, 'out.csv'))).toBe(false);
    expect((await sandboxStats(ctx.sb)).requests.total).toBe(0);
  });
});

describe('--dry-run and report', () => {
  it('name the reasons a number is invalid with the same codes in JSON and the same words in text', async () => {
    const dir = tempDir('numintel-dry-run-reasons-');
    const input = join(dir, 'tricky.csv');
    copyFileSync(join(import.meta.dirname, '..', 'fixtures', 'dry-run', 'tricky.csv'), input);
    const out = join(dir, 'out.csv');
    const env = { ...ctx.env, NUMINTEL_CACHE_DIR: join(dir, 'cache') };
    const dryJson = JSON.parse((await runCli(['lrn', '-i', input, '--dry-run', '-f', 'json'], { env })).stdout);
    const run = await runCli(['lrn', '-i', input, '-o', out, '-q', '--sandbox'], { env });
    expect(run.code, run.stderr).toBe(4);
    const reportJson = JSON.parse((await runCli(['report', out, '-f', 'json'], { env })).stdout);
    expect(reportJson.input.invalid_by_reason).toEqual(dryJson.invalid_by_reason);

    const dryText = (await runCli(['lrn', '-i', input, '--dry-run'], { env })).stdout;
    const reportText = (await runCli(['report', out], { env })).stdout;
    for (const words of ['not a U.S. number', 'invalid area code', 'invalid exchange', 'too short']) {
      expect(dryText).toContain(`${words} 1`);
      expect(reportText).toMatch(new RegExp(`\\n {4}${words.replace(/\./g, '\\.')} +1 `));
    }
  });
});

describe('--dry-run with --fields', () => {
  it('refuses an unknown field, or one whose option is missing, as the run would (exit 2), and sends nothing', async () => {
    const dir = tempDir('numintel-dry-run-fields-');
    const input = join(dir, 'leads.csv');
    writeFileSync(input, 'name,phone\nAda,2015550123\nBob,2015550124\n');
    const env = { ...ctx.env, NUMINTEL_CACHE_DIR: join(dir, 'cache') };
    const typo = await runCli(['lrn', '-i', input, '--enhanced', '--dry-run', '--fields', 'carier'], { env });
    expect(typo.code).toBe(2);
    expect(typo.stdout).toBe('');
    expect(typo.stderr).toContain('unknown field "carier" in --fields (did you mean "carrier"?)');
    const option = await runCli(['enrich', input, '--lookups', 'lrn,cnam', '--dry-run', '--fields', 'cnam_spam_type'], { env });
    expect(option.code).toBe(2);
    expect(option.stderr).toContain('field "cnam_spam_type" in --fields comes only with --spam');
    // A good selection changes nothing in the figures.
    const good = await runCli(['lrn', '-i', input, '--enhanced', '--dry-run', '--fields', 'carrier', '-f', 'json'], { env });
    expect(good.code, good.stderr).toBe(0);
    expect(JSON.parse(good.stdout)).toMatchObject({ rows: 2, valid: 2 });
    // One that leaves a lookup of enrich no field is said, and the lookup still counted as billable.
    const unused = await runCli(['enrich', input, '--lookups', 'lrn,cnam', '--spam', '--dry-run', '--fields', 'spam_type', '-f', 'json'], { env });
    expect(unused.code, unused.stderr).toBe(0);
    expect(unused.stderr).toContain('warning: --fields names no field of lrn: it is still looked up (and billed) for every number');
    expect(JSON.parse(unused.stdout)).toMatchObject({ billable: 4 });
    expect((await sandboxStats(ctx.sb)).requests.total).toBe(0);
  });
});

describe('--dry-run with -o and --report', () => {
  it('refuses the output files the run would refuse (exit 2), writes none of them, and sends nothing', async () => {
    const dir = tempDir('numintel-dry-run-output-');
    const input = join(dir, 'leads.csv');
    const original = 'name,phone\nAda,2015550123\nBob,2015550124\n';
    writeFileSync(input, original);
    const env = { ...ctx.env, NUMINTEL_CACHE_DIR: join(dir, 'cache') };
    const refused = async (args: string[], words: string) => {
      const r = await runCli(['lrn', '-i', input, '--dry-run', ...args], { env });
      expect(r.code, r.stderr).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).toContain(words);
    };
    await refused(['-o', input], '-i and -o name the same file');
    await refused(['-o', join(dir, 'out.xls')], 'cannot tell the output format of out.xls');
    await refused(['-o', join(dir, 'no', 'such', 'out.csv')], 'no such directory');
    await refused(['-o', dir], 'it is a directory');
    await refused(['--report', input], 'the same file');
    expect(readFileSync(input, 'utf8')).toBe(original);
    expect(existsSync(join(dir, 'out.xls'))).toBe(false);
    // A file the run could write passes, and the dry run leaves it unwritten.
    const ok = await runCli(['lrn', '-i', input, '--dry-run', '-o', join(dir, 'out.csv'), '-f', 'json'], { env });
    expect(ok.code, ok.stderr).toBe(0);
    expect(JSON.parse(ok.stdout)).toMatchObject({ rows: 2, valid: 2 });
    expect(existsSync(join(dir, 'out.csv'))).toBe(false);
    expect((await sandboxStats(ctx.sb)).requests.total).toBe(0);
  });
});
