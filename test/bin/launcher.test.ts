// The launcher (bin/numintel.js) compiles the bundle through V8's code cache, kept in the user's
// cache directory: one file per bundle, beginning with the line of modules its writers' runs
// required. Every path it takes — no cache, a cache it accepts, one a run outgrows, a corrupt one,
// no writable directory, each choice of directory — must still run the program, and none may write
// into the install directory.
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import * as nodeModule from 'node:module';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CLI, requireBuiltCli, ROOT, runCli } from '../support/cli.js';
import { tempDir } from '../support/tmp.js';
import { sandbox, sandboxEnv } from '../support/sandbox.js';

requireBuiltCli();
const bundleDir = join(ROOT, 'dist', 'bundle');

async function version(env: Record<string, string | undefined>) {
  const r = await runCli(['--version'], { env });
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  expect(r.stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
}

const cacheFiles = (dir: string) => (existsSync(dir) ? readdirSync(dir).filter((f) => /^main-.*\.cache$/.test(f)) : []);

/** The one cache file in dir, its modules line and its V8 data. */
function theCache(dir: string) {
  const files = cacheFiles(dir);
  expect(files).toHaveLength(1);
  const path = join(dir, files[0]!);
  const bytes = readFileSync(path);
  const end = bytes.indexOf(10);
  const modules = JSON.parse(bytes.toString('utf8', 0, end)) as string[];
  return { path, bytes, modules, data: bytes.subarray(end + 1), mtime: statSync(path).mtimeMs };
}

describe('launcher code cache', () => {
  it('writes one cache file (0600 in a 0700 directory) on the first run, reuses it untouched after', async () => {
    const dir = join(tempDir(), 'code');
    await version({ NUMINTEL_CODE_CACHE_DIR: dir });
    const first = theCache(dir);
    expect(first.path).toMatch(/[\\/]main-\d+-\d+-v8-.+\.cache$/);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(statSync(first.path).mode & 0o777).toBe(0o600);
    expect(first.modules).toContain('node:fs');
    expect(first.data.length).toBeGreaterThan(10_000);
    await version({ NUMINTEL_CODE_CACHE_DIR: dir });
    await version({ NUMINTEL_CODE_CACHE_DIR: dir });
    const again = theCache(dir);
    expect(again.mtime).toBe(first.mtime);
    expect(again.bytes.equals(first.bytes)).toBe(true);
  });

  it('a run that requires a module no writer of the cache required writes it again, holding both; then it stays', async () => {
    const sb = await sandbox();
    const dir = join(tempDir(), 'code');
    const env = sandboxEnv(sb, { NUMINTEL_CACHE_DIR: join(tempDir(), 'lookups'), NUMINTEL_CODE_CACHE_DIR: dir });
    const lrn = async (args: string[], stdin?: string) => {
      const r = await runCli(['lrn', ...args], { env, ...(stdin === undefined ? {} : { stdin }) });
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      return r.stdout;
    };
    await version(env);
    const small = theCache(dir);
    // A lookup sends a request and opens the lookup cache: modules --version never required.
    expect(JSON.parse(await lrn(['12015550123', '-f', 'jsonl']))).toMatchObject({ number: '12015550123', ok: true });
    const grown = theCache(dir);
    expect(grown.modules).toEqual(expect.arrayContaining(small.modules));
    expect(grown.modules.length).toBeGreaterThan(small.modules.length);
    expect(grown.data.length).toBeGreaterThan(small.data.length);
    // The same path again, a cache hit of it, and --version: nothing new required, nothing written.
    await lrn(['12015550124', '-f', 'jsonl']);
    await lrn(['12015550123', '-f', 'jsonl']);
    await version(env);
    expect(theCache(dir).mtime).toBe(grown.mtime);
    // A table (a terminal's default; -f table here) takes the terminal probe: once more, then kept.
    expect(await lrn(['12015550125', '-f', 'table'])).toContain('12015550125');
    const table = theCache(dir);
    expect(table.modules).toEqual(expect.arrayContaining(grown.modules));
    expect(table.data.length).toBeGreaterThan(grown.data.length);
    await lrn(['12015550126', '-f', 'table']);
    await lrn(['12015550127', '-f', 'jsonl']);
    expect(theCache(dir).bytes.equals(table.bytes)).toBe(true);
  });

  it.each([
    { name: 'bytes of no cache at all', corrupt: () => Buffer.alloc(4096, 0x5a) },
    { name: 'a modules line V8 data does not follow', corrupt: () => Buffer.from('["node:fs"]\n' + 'x'.repeat(4096)) },
    { name: 'half the file', corrupt: (good: Buffer) => good.subarray(0, good.length >> 1) },
    { name: 'a line that is not a list', corrupt: (good: Buffer) => Buffer.concat([Buffer.from('{"a":1}'), good.subarray(good.indexOf(10))]) },
    { name: 'an empty file', corrupt: () => Buffer.alloc(0) },
  ])('a corrupt cache ($name) is ignored: the run works, and writes a good one in its place', async ({ corrupt }) => {
    const dir = join(tempDir(), 'code');
    await version({ NUMINTEL_CODE_CACHE_DIR: dir });
    const good = theCache(dir);
    const bad = corrupt(good.bytes);
    writeFileSync(good.path, bad);
    const r = await runCli(['lrn', '12015550123', '--sandbox', '-f', 'jsonl'], { env: { NUMINTEL_CODE_CACHE_DIR: dir } });
    expect(r.stderr).toBe('');
    expect(JSON.parse(r.stdout)).toMatchObject({ number: '12015550123', ok: true });
    const replaced = theCache(dir);
    expect(replaced.bytes.equals(bad)).toBe(false);
    expect(replaced.data.length).toBeGreaterThan(10_000);
    // The replacement is accepted: the same run again writes nothing.
    await runCli(['lrn', '12015550123', '--sandbox', '-f', 'jsonl'], { env: { NUMINTEL_CODE_CACHE_DIR: dir } });
    expect(theCache(dir).mtime).toBe(replaced.mtime);
  });

  it('removes the caches of other builds when it writes its own', async () => {
    const dir = join(tempDir(), 'code');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'main-1-2-v8-old-x64.cache'), 'stale');
    writeFileSync(join(dir, 'unrelated.txt'), 'kept');
    await version({ NUMINTEL_CODE_CACHE_DIR: dir });
    expect(theCache(dir).path).not.toMatch(/main-1-2-v8-old/);
    expect(readFileSync(join(dir, 'unrelated.txt'), 'utf8')).toBe('kept');
  });

  it("a run that loads another of the program's bundles (the sandbox) has Node's compile cache keep it where Node has one, beside the code cache", async () => {
    const dir = join(tempDir(), 'code');
    const r = await runCli(['lrn', '12015550123', '--sandbox', '-f', 'jsonl'], { env: { NUMINTEL_CODE_CACHE_DIR: dir } });
    expect(r.code).toBe(0);
    expect(theCache(dir).modules).toContain('./sandbox.cjs');
    const hasCompileCache = typeof (nodeModule as { enableCompileCache?: unknown }).enableCompileCache === 'function';
    expect(existsSync(join(dir, 'node'))).toBe(hasCompileCache);
    // --version loads no other bundle, and leaves Node's compile cache off.
    const other = join(tempDir(), 'code');
    await version({ NUMINTEL_CODE_CACHE_DIR: other });
    expect(readdirSync(other).filter((f) => !/^main-.*\.cache$/.test(f))).toEqual([]);
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

  it('NUMINTEL_CODE_CACHE_DIR is where the cache goes, and nowhere else', async () => {
    const d = tempDir();
    mkdirSync(join(d, 'home'));
    const env = { NUMINTEL_CODE_CACHE_DIR: join(d, 'code'), NUMINTEL_CACHE_DIR: join(d, 'nc'), XDG_CACHE_HOME: join(d, 'xdg'), HOME: join(d, 'home') };
    await version(env);
    theCache(join(d, 'code'));
    expect(readdirSync(d).sort()).toEqual(['code', 'home']);
    expect(readdirSync(join(d, 'home'))).toEqual([]);
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
      expect((await runCli(['lrn', '12015550123', '--sandbox', '-f', 'jsonl'], { env: { NUMINTEL_CODE_CACHE_DIR: dir } })).code).toBe(0);
    } finally {
      chmodSync(bundleDir, mode);
    }
    expect(readdirSync(bundleDir).sort()).toEqual(before);
    expect(readdirSync(join(CLI, '..')).sort()).toEqual(['numintel.js', 'package.json']);
  });
});
