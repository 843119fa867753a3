// The launcher (bin/numintel.js) compiles the bundle through V8's code cache, kept in the user's
// cache directory: every path it takes — no cache, a cache it accepts, a cache V8 rejects, no
// writable directory, each choice of directory — must still run the program, and none may write
// into the install directory.
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CLI, requireBuiltCli, ROOT, runCli } from '../support/cli.js';
import { tempDir } from '../support/tmp.js';
import { sandbox, sandboxEnv, sandboxStats } from '../support/sandbox.js';

requireBuiltCli();
const bundleDir = join(ROOT, 'dist', 'bundle');

async function version(env: Record<string, string | undefined>) {
  const r = await runCli(['--version'], { env });
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  expect(r.stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
}

const cacheFiles = (dir: string) => (existsSync(dir) ? readdirSync(dir).filter((f) => /^main-.*\.cache$/.test(f)) : []);

describe('launcher code cache', () => {
  it('writes one cache file (0600 in a 0700 directory) on the first run, reuses it untouched after', async () => {
    const dir = join(tempDir(), 'code');
    await version({ NUMINTEL_CODE_CACHE_DIR: dir });
    const [file] = cacheFiles(dir);
    expect(file).toMatch(/^main-\d+-\d+-v8-.+\.cache$/);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    const path = join(dir, file!);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    const before = readFileSync(path);
    const mtime = statSync(path).mtimeMs;
    await version({ NUMINTEL_CODE_CACHE_DIR: dir });
    // Accepted: not written again (a rejected cache is rewritten at exit).
    expect(statSync(path).mtimeMs).toBe(mtime);
    expect(readFileSync(path).equals(before)).toBe(true);
  });

  it('a cache V8 rejects (garbage) still runs, and is replaced by a good one', async () => {
    const dir = join(tempDir(), 'code');
    await version({ NUMINTEL_CODE_CACHE_DIR: dir });
    const path = join(dir, cacheFiles(dir)[0]!);
    writeFileSync(path, Buffer.alloc(4096, 0x5a));
    await version({ NUMINTEL_CODE_CACHE_DIR: dir });
    expect(readFileSync(path).equals(Buffer.alloc(4096, 0x5a))).toBe(false);
    expect(statSync(path).size).toBeGreaterThan(10_000);
  });

  it('removes the caches of other builds when it writes its own', async () => {
    const dir = join(tempDir(), 'code');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'main-1-2-v8-old-x64.cache'), 'stale');
    await version({ NUMINTEL_CODE_CACHE_DIR: dir });
    expect(cacheFiles(dir)).toHaveLength(1);
    expect(existsSync(join(dir, 'main-1-2-v8-old-x64.cache'))).toBe(false);
  });

  it('keeps one cache per kind of run (lookups with and without the lookup cache, the rest), all of one build', async () => {
    const dir = join(tempDir(), 'code');
    const env = { NUMINTEL_CODE_CACHE_DIR: dir };
    await version(env);
    const lookup = await runCli(['lrn', '12015550123', '--sandbox', '-f', 'jsonl'], { env });
    expect(lookup.code).toBe(0);
    expect(JSON.parse(lookup.stdout)).toMatchObject({ number: '12015550123', ok: true });
    const files = cacheFiles(dir).sort();
    expect(files).toHaveLength(2);
    // The lookup of a number given as an argument sent its request (to the built-in sandbox): its
    // cache holds the HTTP client too.
    expect(files[0]).toMatch(/-lookup-nostore-args-sent\.cache$/);
    expect(files[1]).toMatch(/-other\.cache$/);
    // Both belong to the same build: writing the second left the first alone.
    expect(files[0]!.replace(/-lookup-nostore-args-sent\.cache$/, '')).toBe(files[1]!.replace(/-other\.cache$/, ''));
    const mtime = statSync(join(dir, files[0]!)).mtimeMs;
    expect((await runCli(['cnam', '12015550123', '--sandbox', '-f', 'jsonl'], { env })).code).toBe(0);
    expect(statSync(join(dir, files[0]!)).mtimeMs).toBe(mtime);
    expect(cacheFiles(dir)).toHaveLength(2);
  });

  it('a lookup cache written by a run that sent nothing is replaced once by the first run that sends, then kept', async () => {
    const sb = await sandbox();
    const dir = join(tempDir(), 'code');
    const lookups = join(tempDir(), 'lookups');
    const lrn = async (number: string, codeDir = dir, how: 'argument' | 'stdin' = 'argument') => {
      const env = sandboxEnv(sb, { NUMINTEL_CACHE_DIR: lookups, NUMINTEL_CODE_CACHE_DIR: codeDir });
      const r = how === 'argument' ? await runCli(['lrn', number, '-f', 'jsonl'], { env }) : await runCli(['lrn', '-f', 'jsonl'], { env, stdin: `${number}\n` });
      expect(r.stderr).toBe('');
      expect(JSON.parse(r.stdout)).toMatchObject({ number, ok: true });
    };
    const lrnRequests = async () => (await sandboxStats(sb)).requests.lrn;
    // The lookup cache learns the number through another code cache; this one's first run is a hit.
    await lrn('12015550123', join(tempDir(), 'elsewhere'));
    const sent = await lrnRequests();
    await lrn('12015550123');
    expect(await lrnRequests()).toBe(sent);
    // Every run with the lookup cache opens LMDB: a part of each of its code caches.
    const [plain] = cacheFiles(dir);
    expect(plain).toMatch(/-lookup-args-lmdb\.cache$/);
    const plainSize = statSync(join(dir, plain!)).size;
    // A new number is sent: its run compiled the HTTP client too, and its cache takes the place.
    await lrn('12015550124');
    expect(await lrnRequests()).toBe(sent + 1);
    const [full, ...more] = cacheFiles(dir);
    expect(more).toEqual([]);
    expect(full).toBe(plain!.replace(/-lookup-args-lmdb\.cache$/, '-lookup-args-sent-lmdb.cache'));
    const path = join(dir, full!);
    const fullSize = statSync(path).size;
    expect(fullSize).toBeGreaterThan(plainSize);
    // Kept from now on, by hits and by runs that send alike.
    const mtime = statSync(path).mtimeMs;
    await lrn('12015550123');
    await lrn('12015550125');
    expect(statSync(path).mtimeMs).toBe(mtime);
    expect(cacheFiles(dir)).toEqual([full]);
    // A run of numbers on stdin is a kind of its own (the streaming readers): a cache of its own,
    // the arguments' one left as it is.
    await lrn('12015550126', dir, 'stdin');
    const streamed = full!.replace(/-lookup-args-sent-lmdb\.cache$/, '-lookup-stream-lmdb.cache');
    expect(cacheFiles(dir).sort()).toEqual([full, streamed].sort());
    expect(statSync(path).mtimeMs).toBe(mtime);
    const streamTime = statSync(join(dir, streamed)).mtimeMs;
    await lrn('12015550126');
    await lrn('12015550127');
    await lrn('12015550128', dir, 'stdin');
    expect(statSync(path).mtimeMs).toBe(mtime);
    expect(statSync(join(dir, streamed)).mtimeMs).toBe(streamTime);
    expect(cacheFiles(dir).sort()).toEqual([full, streamed].sort());
  });

  it('runs of numbers on stdin and of numbers given as arguments keep caches of their own; the first table adds its part to its kind', async () => {
    const sb = await sandbox();
    const dir = join(tempDir(), 'code');
    const env = sandboxEnv(sb, { NUMINTEL_CACHE_DIR: join(tempDir(), 'lookups'), NUMINTEL_CODE_CACHE_DIR: dir });
    const ok = async (args: string[], stdin?: string) => {
      const r = await runCli(['lrn', ...args], { env, ...(stdin === undefined ? {} : { stdin }) });
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
    };
    const file = (name: string) => ({ name, size: statSync(join(dir, name)).size, mtime: statSync(join(dir, name)).mtimeMs });
    // A script's first run: numbers on stdin.
    await ok(['-f', 'jsonl'], '12015550123\n');
    const [first, ...none] = cacheFiles(dir);
    expect(none).toEqual([]);
    expect(first).toMatch(/-lookup-stream-lmdb\.cache$/);
    const streamed = file(first!);
    // A number given as an argument runs other code (Node's client): its own
    // cache, beside the stream's, which stays as it was.
    await ok(['12015550124', '-f', 'jsonl']);
    const sent = file(streamed.name.replace(/-lookup-stream-lmdb\.cache$/, '-lookup-args-sent-lmdb.cache'));
    expect(cacheFiles(dir).sort()).toEqual([streamed.name, sent.name].sort());
    expect(file(streamed.name)).toEqual(streamed);
    await ok(['12015550125', '-f', 'jsonl']);
    expect(file(sent.name)).toEqual(sent);
    // An analyst's table (a terminal's default; -f table here): once more, then kept.
    await ok(['12015550126', '-f', 'table']);
    const table = file(sent.name.replace(/-lookup-args-sent-lmdb\.cache$/, '-lookup-args-sent-table-lmdb.cache'));
    expect(table.size).toBeGreaterThan(sent.size);
    expect(cacheFiles(dir).sort()).toEqual([streamed.name, table.name].sort());
    await ok(['12015550127', '-f', 'table']);
    await ok(['-f', 'jsonl'], '12015550128\n');
    expect(file(table.name)).toEqual(table);
    expect(file(streamed.name)).toEqual(streamed);
  });

  it('runs without a writable cache directory (its parent is a file), writing nothing', async () => {
    const file = join(tempDir(), 'not-a-dir');
    writeFileSync(file, '');
    await version({ NUMINTEL_CODE_CACHE_DIR: join(file, 'code') });
    expect(readFileSync(file, 'utf8')).toBe('');
  });

  it('does not hang at exit where mkdir says ENOENT for a parent that exists (/proc)', async () => {
    await version({ NUMINTEL_CODE_CACHE_DIR: '/proc/self/numintel-code' });
  });

  it.each([
    { name: 'NUMINTEL_CACHE_DIR', env: (d: string) => ({ NUMINTEL_CACHE_DIR: join(d, 'nc') }), where: (d: string) => join(d, 'nc', 'code') },
    { name: 'XDG_CACHE_HOME', env: (d: string) => ({ XDG_CACHE_HOME: join(d, 'xdg') }), where: (d: string) => join(d, 'xdg', 'numintel', 'code') },
    { name: 'HOME', env: (d: string) => ({ HOME: join(d, 'home') }), where: (d: string) => join(d, 'home', '.cache', 'numintel', 'code') },
  ])('without NUMINTEL_CODE_CACHE_DIR, the cache goes under $name', async ({ env, where }) => {
    const d = tempDir();
    mkdirSync(join(d, 'home'));
    await version({ NUMINTEL_CODE_CACHE_DIR: undefined, ...env(d) });
    expect(cacheFiles(where(d))).toHaveLength(1);
  });

  it('writes nothing into the install directory, even when it is read-only', async () => {
    const before = readdirSync(bundleDir).sort();
    const dir = join(tempDir(), 'code');
    const mode = statSync(bundleDir).mode & 0o777;
    chmodSync(bundleDir, 0o555);
    try {
      await version({ NUMINTEL_CODE_CACHE_DIR: dir });
    } finally {
      chmodSync(bundleDir, mode);
    }
    expect(readdirSync(bundleDir).sort()).toEqual(before);
    expect(readdirSync(join(CLI, '..')).sort()).toEqual(['numintel.js', 'package.json']);
  });
});
