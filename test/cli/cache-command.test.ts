// `numintel cache stats|prune|clear|path` in-process, on a cache seeded through the store.
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fixedClock } from '../support/clock.js';
import { LmdbAnswerStore } from '../../src/store/lmdb-store.js';
import { useTempDirs } from '../support/tmp.js';
import { runInProcess } from '../support/world.js';
import { runCli } from '../support/cli.js';

const tempDir = useTempDirs();
const T0 = Date.UTC(2026, 0, 10);
const DAY = 86_400_000;
const clock = fixedClock(T0);

/** 4 fresh LRN, 2 LRN two days old, 3 CNAM two days old (fresh for 7 days), 1 trust. */
async function seeded(): Promise<string> {
  const dir = await tempDir();
  const store = await LmdbAnswerStore.open({ dir, service: 'https://api.example.com', clock, warn: () => {} });
  for (let i = 0; i < 6; i++) store.slot('lrn', {}).put(String(12015550000 + i), { lrn: '12015550000' }, i < 4 ? T0 : T0 - 2 * DAY);
  for (let i = 0; i < 3; i++) store.slot('cnam', { spam: true }).put(String(12015550000 + i), { cnam: 'X', spam_type: null }, T0 - 2 * DAY);
  store.slot('trust', {}).put('12015550000', { is_spam: false }, T0 - 60_000);
  await store.close();
  return dir;
}

const run = (args: string[], dir: string, opts: { tty?: boolean } = {}) =>
  runInProcess(['cache', ...args], { env: { NUMINTEL_CACHE_DIR: dir }, clock, stdoutTTY: opts.tty ?? false });

describe('numintel cache', () => {
  it('path prints the cache file under NUMINTEL_CACHE_DIR, else XDG_CACHE_HOME, else ~/.cache', async () => {
    expect((await run(['path'], '/var/cache/x')).stdout).toBe('/var/cache/x/answers.mdb\n');
    const xdg = await runInProcess(['cache', 'path'], { env: { XDG_CACHE_HOME: '/xdg' } });
    expect(xdg.stdout).toBe('/xdg/numintel/answers.mdb\n');
    const home = await runInProcess(['cache', 'path']);
    expect(home.stdout).toBe(join(home.world.home, '.cache', 'numintel', 'answers.mdb\n'));
  });

  it('stats: entries per lookup, fresh and expired, size and path; as text when piped', async () => {
    const dir = await seeded();
    const { code, stdout, stderr } = await run(['stats'], dir);
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
    expect(stdout).toContain(`path         ${join(dir, 'answers.mdb')}`);
    expect(stdout).toMatch(/entries\s+10\n/);
    expect(stdout).toMatch(/size\s+\d+\.\d KB \(\d+ bytes an entry\)/);
    expect(stdout).toMatch(/ {2}lrn\s+6\s+4\s+2\s+1d\n/);
    expect(stdout).toMatch(/ {2}cnam\s+3\s+3\s+0\s+7d\n/);
    expect(stdout).toMatch(/ {2}trust\s+1\s+1\s+0\s+1d\n/);
  });

  it('stats -f json, and --max-age judges freshness', async () => {
    const dir = await seeded();
    const { stdout } = await run(['stats', '-f', 'json', '--max-age', 'cnam=1d,lrn=3d'], dir);
    const json = JSON.parse(stdout);
    expect(json.entries).toBe(10);
    expect(json.bytes).toBeGreaterThan(0);
    expect(json.lookups.lrn).toEqual({ entries: 6, fresh: 6, expired: 0, max_age_ms: 3 * DAY });
    expect(json.lookups.cnam).toEqual({ entries: 3, fresh: 0, expired: 3, max_age_ms: DAY });
    expect(json.pruned_at).toBe(new Date(T0).toISOString());
  });

  it('stats draws a table on a terminal', async () => {
    const { stdout } = await run(['stats'], await seeded(), { tty: true });
    expect(stdout).toMatch(/┌.*┐/);
    expect(stdout).toMatch(/│ lookup │ entries │ fresh │ expired │ max age │/);
  });

  it('stats of a cache that does not exist yet: zero entries, nothing created', async () => {
    const dir = join(await tempDir(), 'none');
    const { code, stdout } = await run(['stats', '-f', 'json'], dir);
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toMatchObject({ entries: 0, bytes: 0 });
    expect(existsSync(dir)).toBe(false);
  });

  it('clear, clear --lookup and prune of a cache that does not exist yet: nothing to do, nothing created', async () => {
    const dir = join(await tempDir(), 'none');
    const file = join(dir, 'answers.mdb');
    for (const [args, verb] of [[['clear', '--lookup', 'lrn'], 'clear'], [['clear'], 'clear'], [['prune'], 'prune']] as const) {
      const r = await run([...args], dir);
      expect(r).toMatchObject({ code: 0, stderr: '', stdout: `nothing to ${verb}: there is no cache at ${file} yet\n` });
      expect(existsSync(dir)).toBe(false);
    }
  });

  // A child process each: on this file LMDB read-only crashed the process (SIGSEGV), which would
  // take the test worker with it.
  it('an empty cache file (0 bytes) reads as an empty cache: stats and a dry run, no crash', async () => {
    const dir = await tempDir();
    writeFileSync(join(dir, 'answers.mdb'), '');
    const env = { NUMINTEL_CACHE_DIR: dir };
    const stats = await runCli(['cache', 'stats', '-f', 'json'], { env });
    expect({ code: stats.code, signal: stats.signal, stderr: stats.stderr }).toEqual({ code: 0, signal: null, stderr: '' });
    expect(JSON.parse(stats.stdout)).toMatchObject({ entries: 0, bytes: 0 });
    const dry = await runCli(['lrn', '2015550123', '--dry-run', '-f', 'json', '--base-url', 'https://api.example.com'], { env });
    expect({ code: dry.code, signal: dry.signal, stderr: dry.stderr }).toEqual({ code: 0, signal: null, stderr: '' });
    expect(JSON.parse(dry.stdout)).toMatchObject({ rows: 1, billable: 1 });
  });

  it('prune removes what is expired; the max-age setting of the profile applies', async () => {
    const dir = await seeded();
    expect((await run(['prune'], dir)).stdout).toBe('removed 2 expired entries; 8 left\n');
    expect((await run(['prune', '--max-age', '1d'], dir)).stdout).toBe('removed 3 expired entries; 5 left\n');
  });

  it('clear --lookup empties one lookup; clear empties all', async () => {
    const dir = await seeded();
    expect((await run(['clear', '--lookup', 'cnam'], dir)).stdout).toBe(`removed 3 cnam entries from ${join(dir, 'answers.mdb')}\n`);
    const after = JSON.parse((await run(['stats', '-f', 'json'], dir)).stdout);
    expect(after.lookups.cnam.entries).toBe(0);
    expect(after.entries).toBe(7);
    expect((await run(['clear'], dir)).stdout).toBe(`removed 7 entries from ${join(dir, 'answers.mdb')}\n`);
    // All: the file goes (LMDB never gives pages back to the disk).
    expect(existsSync(join(dir, 'answers.mdb'))).toBe(false);
    expect(JSON.parse((await run(['stats', '-f', 'json'], dir)).stdout).entries).toBe(0);
  });

  it('a damaged cache: stats, prune and clear --lookup fail with one line naming `numintel cache clear`; path prints; clear removes it whole', async () => {
    const dir = await tempDir();
    const file = join(dir, 'answers.mdb');
    writeFileSync(file, Buffer.alloc(50_000, 0x5a));
    const line = new RegExp(`^numintel: the lookup cache cannot be used \\(${file.replace(/[.]/g, '\\.')} is damaged: it is not an LMDB file[^\\n]*\\): \`numintel cache clear\` starts it afresh\\n$`);
    for (const args of [['stats'], ['stats', '-f', 'json'], ['prune'], ['clear', '--lookup', 'lrn']]) {
      const r = await run(args, dir);
      expect({ args, code: r.code, stdout: r.stdout }).toEqual({ args, code: 2, stdout: '' });
      expect(r.stderr).toMatch(line);
    }
    expect(await run(['path'], dir)).toMatchObject({ code: 0, stdout: `${file}\n`, stderr: '' });
    const clear = await run(['clear'], dir);
    expect(clear).toMatchObject({ code: 0, stdout: `removed the cache ${file}, which could not be used (${file} is damaged: it is not an LMDB file (no meta page))\n`, stderr: '' });
    expect(existsSync(file)).toBe(false);
    expect(JSON.parse((await run(['stats', '-f', 'json'], dir)).stdout).entries).toBe(0);
  });

  it('clear where NUMINTEL_CACHE_DIR names a file: one line, exit 2, not an unexpected failure', async () => {
    const file = join(await tempDir(), 'not-a-dir');
    writeFileSync(file, 'x');
    const clear = await run(['clear'], file);
    expect(clear).toMatchObject({ code: 2, stdout: '' });
    expect(clear.stderr).toBe(
      `numintel: cannot remove ${join(file, 'answers.mdb')}: a part of the path is not a directory\n` +
        'the cache is in NUMINTEL_CACHE_DIR, else $XDG_CACHE_HOME/numintel, else ~/.cache/numintel\n',
    );
  });

  it('refuses a bad --max-age and an unknown lookup with usage errors', async () => {
    const dir = await seeded();
    const bad = await run(['stats', '--max-age', 'lrn=forever'], dir);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/invalid max-age "lrn=forever"/);
    const kind = await run(['clear', '--lookup', 'sms'], dir);
    expect(kind.code).toBe(2);
    expect(kind.stderr).toMatch(/sms/);
  });
});
