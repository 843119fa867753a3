// --dry-run in-process: the figures of a tricky CSV whose answer is known, fresh cache hits from
// a seeded cache, time and cost, and the three output forms. Nothing is sent: no base URL is
// even reachable.
import { copyFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fixedClock } from '../support/clock.js';
import { LmdbAnswerStore } from '../../src/store/lmdb-store.js';
import { useTempDirs } from '../support/tmp.js';
import { runInProcess } from '../support/world.js';

const tempDir = useTempDirs();
const T0 = Date.UTC(2026, 0, 10);
const DAY = 86_400_000;
const clock = fixedClock(T0);
const FIXTURE = join(import.meta.dirname, '..', 'fixtures', 'dry-run', 'tricky.csv');
// Rows 1..16: valid 1, 2, 4, 5, 6(=1), 12(=2), 13(=4), 16 → 8 valid, 5 distinct, 3 duplicates.
const KNOWN = { rows: 16, valid: 8, invalid: 8, duplicates: 3 };
const BY_REASON = { empty: 2, too_short: 1, letters: 1, not_us: 1, bad_area_code: 1, bad_exchange: 1, too_long: 1 };

async function dryRun(args: string[], opts: { env?: Record<string, string>; tty?: boolean } = {}) {
  const cwd = await tempDir();
  copyFileSync(FIXTURE, join(cwd, 'tricky.csv'));
  return runInProcess(args, { cwd, clock, env: opts.env ?? {}, stdoutTTY: opts.tty ?? false });
}

describe('--dry-run', () => {
  it('counts rows, valid, invalid by reason, duplicates and billable lookups of a tricky CSV', async () => {
    const { code, stdout, stderr } = await dryRun(['lrn', '-i', 'tricky.csv', '--dry-run', '-f', 'json', '--sandbox']);
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
    const r = JSON.parse(stdout);
    expect(r).toMatchObject({ dry_run: true, ...KNOWN, invalid_by_reason: BY_REASON, cache: 'off', billable: 5, cost: null, unpriced: ['lrn'] });
    expect(r.lookups).toEqual({
      lrn: { needed: 8, duplicates: 3, cache_hits: 0, billable: 5, requests: 5, per_request: 1, rate_per_second: 200, seconds: 5 / 200, price: null, cost: null },
    });
  });

  it('-f jsonl prints the same object on one line', async () => {
    const json = JSON.parse((await dryRun(['lrn', '-i', 'tricky.csv', '--dry-run', '-f', 'json', '--sandbox'])).stdout);
    const { code, stdout } = await dryRun(['lrn', '-i', 'tricky.csv', '--dry-run', '-f', 'jsonl', '--sandbox']);
    expect(code).toBe(0);
    expect(stdout.split('\n')).toEqual([JSON.stringify(json), '']);
  });

  it('counts fresh cache answers of this service and these options as hits, and prices the rest', async () => {
    const cacheDir = await tempDir();
    const store = await LmdbAnswerStore.open({ dir: cacheDir, service: 'https://api.example.com', clock, warn: () => {} });
    store.slot('lrn', {}).put('12015550101', { lrn: 'x' }, T0 - 60_000); // fresh
    store.slot('lrn', {}).put('12015550102', { lrn: 'x' }, T0 - 2 * DAY); // expired at 24 h
    store.slot('lrn', { enhanced: true }).put('12015550104', { lrn: 'x' }, T0); // other options
    store.slot('cnam', {}).put('12015550104', { cnam: 'x' }, T0 - 2 * DAY); // fresh for 7 days
    store.slot('cnam', {}).put('12015550105', { cnam: 'x' }, T0);
    await store.close();
    const other = await LmdbAnswerStore.open({ dir: cacheDir, service: 'https://other.example.com', clock, warn: () => {} });
    other.slot('lrn', {}).put('12015550106', { lrn: 'x' }, T0); // another service
    await other.close();

    const env = { NUMINTEL_CACHE_DIR: cacheDir, NUMINTEL_BASE_URL: 'https://api.example.com/' };
    const { code, stdout, stderr } = await dryRun(['enrich', 'tricky.csv', '--lookups', 'lrn,cnam', '--dry-run', '-f', 'json', '--price', 'lrn=0.0005,cnam=0.006'], { env });
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
    const r = JSON.parse(stdout);
    expect(r.cache).toBe('on');
    expect(r.lookups.lrn).toMatchObject({ needed: 8, duplicates: 3, cache_hits: 1, billable: 4, cost: 4 * 0.0005 });
    expect(r.lookups.cnam).toMatchObject({ cache_hits: 2, billable: 3, rate_per_second: 50, seconds: 3 / 50, cost: 3 * 0.006 });
    expect(r.billable).toBe(7);
    expect(r.seconds).toBe(3 / 50);
    expect(r.cost).toBeCloseTo(0.002 + 0.018, 10);
    expect(r.unpriced).toEqual([]);

    // --max-age from the flag; --refresh and --no-cache read nothing.
    const longer = JSON.parse((await dryRun(['lrn', '-i', 'tricky.csv', '--dry-run', '-f', 'json', '--max-age', 'lrn=3d'], { env })).stdout);
    expect(longer.lookups.lrn.cache_hits).toBe(2);
    const refresh = JSON.parse((await dryRun(['lrn', '-i', 'tricky.csv', '--dry-run', '-f', 'json', '--refresh'], { env })).stdout);
    expect(refresh).toMatchObject({ cache: 'refresh', billable: 5 });
    const off = JSON.parse((await dryRun(['lrn', '-i', 'tricky.csv', '--dry-run', '-f', 'json', '--no-cache'], { env })).stdout);
    expect(off).toMatchObject({ cache: 'off', billable: 5 });
  });

  it('uses --rate and config prices; a rate of 0 has no time', async () => {
    const env = { NUMINTEL_CACHE_DIR: await tempDir() };
    const configDir = await tempDir();
    const { writeFileSync } = await import('node:fs');
    writeFileSync(join(configDir, 'config.json'), JSON.stringify({ profiles: { default: { 'price.trust': 0.01, rate: 10 } } }));
    const r = JSON.parse((await dryRun(['trust', '-i', 'tricky.csv', '--dry-run', '-f', 'json', '--sandbox'], { env: { ...env, NUMINTEL_CONFIG_DIR: configDir } })).stdout);
    expect(r.lookups.trust).toMatchObject({ billable: 5, rate_per_second: 10, seconds: 0.5, price: 0.01, cost: 0.05 });
    const unlimited = JSON.parse((await dryRun(['trust', '-i', 'tricky.csv', '--dry-run', '-f', 'json', '--sandbox', '--rate', '0'], { env })).stdout);
    expect(unlimited).toMatchObject({ seconds: null });
    expect(unlimited.lookups.trust.rate_per_second).toBeNull();
  });

  it('says on stderr that the -o and --report files were not written, unless -q', async () => {
    const both = await dryRun(['lrn', '-i', 'tricky.csv', '--dry-run', '--sandbox', '-o', 'x.csv', '--report', 'r.html']);
    expect(both.code).toBe(0);
    expect(both.stderr).toBe('numintel: dry run: nothing written to x.csv or r.html\n');
    expect(existsSync(join(both.world.cwd, 'x.csv')) || existsSync(join(both.world.cwd, 'r.html'))).toBe(false);
    expect((await dryRun(['lrn', '-i', 'tricky.csv', '--dry-run', '--sandbox', '--report', 'r.html'])).stderr).toBe('numintel: dry run: nothing written to r.html\n');
    expect((await dryRun(['lrn', '-i', 'tricky.csv', '--dry-run', '--sandbox', '-o', 'x.csv', '-q'])).stderr).toBe('');
    expect((await dryRun(['lrn', '-i', 'tricky.csv', '--dry-run', '--sandbox', '-o', '-'])).stderr).toBe('');
  });

  it('--transport bulk: the requests are batches, timed at the bulk limit', async () => {
    const { stdout } = await dryRun(['lrn', '-i', 'tricky.csv', '--dry-run', '--transport', 'bulk', '--batch-size', '2', '-f', 'json']);
    expect(JSON.parse(stdout).lookups.lrn).toMatchObject({ billable: 5, requests: 3, per_request: 2, rate_per_second: 5, seconds: 0.6 });
  });

  it('plain text when piped, a table on a terminal', async () => {
    const text = await dryRun(['lrn', '-i', 'tricky.csv', '--dry-run', '--sandbox', '--price', 'lrn=0.0005']);
    expect(text.stdout).toContain('Dry run: nothing was sent\n');
    expect(text.stdout).toMatch(/ {2}rows\s+16\n/);
    expect(text.stdout).toMatch(/ {2}invalid\s+8 \(empty 2, /);
    expect(text.stdout).toMatch(/ {2}duplicates\s+3\n/);
    expect(text.stdout).toMatch(/ {2}billable\s+5\n/);
    expect(text.stdout).toMatch(/ {2}cost\s+0\.0025\n/);
    expect(text.stdout).toMatch(/ {2}lrn\s+8\s+3\s+0\s+5\s+5\s+200\s+0\.0s\s+0\.0005\s+0\.0025\n/);
    expect(text.stdout).not.toMatch(/[┌│]/);
    const table = await dryRun(['lrn', '-i', 'tricky.csv', '--dry-run', '--sandbox'], { tty: true });
    expect(table.stdout).toMatch(/│ lookup │ needed │ duplicates │ cache hits │ billable │/);
  });

  it('numbers as arguments, --no-validate, and a bad --price', async () => {
    const args = JSON.parse((await dryRun(['cnam', '2015550101', '201-555-0101', 'nope', '--dry-run', '-f', 'json', '--sandbox'])).stdout);
    expect(args).toMatchObject({ rows: 3, valid: 2, invalid: 1, duplicates: 1, billable: 1, invalid_by_reason: { letters: 1 } });
    const raw = JSON.parse((await dryRun(['cnam', '555-0107', '5550107', '--no-validate', '--dry-run', '-f', 'json', '--sandbox'])).stdout);
    expect(raw).toMatchObject({ rows: 2, valid: 2, duplicates: 1, billable: 1 });
    const bad = await dryRun(['lrn', '1', '--dry-run', '--sandbox', '--price', 'lrn=cheap']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/invalid price "lrn=cheap"/);
  });

});
