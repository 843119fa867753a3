// Files numintel reads that are not regular files, with the built CLI: the cache's data and lock
// files (a link to /dev/zero crashed every run, a directory crashed `cache stats`, a FIFO hung past
// SIGTERM), config.json (a FIFO hung, /dev/zero filled the memory), the key file and the input of
// `report`; and a cache file numintel may not read, which is not damaged. The cache's are one
// warning and the run goes on without it; the others one line and exit 2.
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, chownSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CLI, jsonl, requireBuiltCli, runCli, runShell } from '../support/cli.js';
import { fileSandbox, sandboxEnv } from '../support/sandbox.js';
import { tempDir } from '../support/tmp.js';

requireBuiltCli();
const ctx = fileSandbox();
const NUMBER = '12015550123';
const mkfifo = (path: string) => execFileSync('mkfifo', [path]);
const toZero = (path: string) => symlinkSync('/dev/zero', path);
/** Each run must end by itself, well before the harness's own limit. */
const quick = { timeoutMs: 10_000 };

/** A cache directory holding a good cache, then `name` replaced by what `make` makes. */
async function cacheWith(name: string, make: (path: string) => void) {
  const dir = join(tempDir(), 'cache');
  const env = sandboxEnv(ctx.sb, { NUMINTEL_CACHE_DIR: dir });
  const first = await runCli(['lrn', NUMBER, '-f', 'jsonl'], { env });
  expect(first.code, first.stderr).toBe(0);
  execFileSync('rm', ['-rf', join(dir, name)]);
  make(join(dir, name));
  return env;
}

describe('cache files that are not files: one warning, the run goes on without the cache', () => {
  it.each([
    ['the lock file a link to /dev/zero', 'answers.mdb-lock', toZero, /answers\.mdb-lock: it is a character device, not a regular file/],
    ['the lock file a directory', 'answers.mdb-lock', (p: string) => mkdirSync(p), /answers\.mdb-lock: it is a directory, not a regular file/],
    ['the lock file a FIFO', 'answers.mdb-lock', mkfifo, /answers\.mdb-lock: it is a FIFO, not a regular file/],
    ['the data file a FIFO', 'answers.mdb', mkfifo, /answers\.mdb: it is a FIFO, not a regular file/],
  ])('%s', async (_, name, make, want) => {
    const env = await cacheWith(name, make);
    const run = await runCli(['lrn', NUMBER, '-f', 'jsonl'], { env, ...quick });
    expect(run.code, run.stderr).toBe(0);
    expect(jsonl(run.stdout)[0]).toMatchObject({ number: NUMBER, ok: true, cached: false });
    const lines = run.stderr.split('\n').filter(Boolean);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(want);
    expect(lines[0]).toMatch(/^numintel: warning: the lookup cache cannot be used .*going on without it \(something else is in its place/);
    // A cache command has nothing else to do: one line, exit 2.
    const stats = await runCli(['cache', 'stats'], { env, ...quick });
    expect({ code: stats.code, stdout: stats.stdout }).toEqual({ code: 2, stdout: '' });
    expect(stats.stderr).toMatch(want);
    expect(stats.stderr.trim().split('\n')).toHaveLength(1);
  });
});

describe('config.json, the key file and the input of report that are not files: one line, exit 2', () => {
  it.each([
    ['a FIFO', mkfifo, /it is a FIFO, not a regular file/],
    ['a link to /dev/zero', toZero, /it is a character device, not a regular file/],
    ['a directory', (p: string) => mkdirSync(p), /it is a directory, not a regular file/],
  ])('config.json %s', async (_, make, want) => {
    const config = tempDir();
    make(join(config, 'config.json'));
    const run = await runCli(['lrn', NUMBER], { env: sandboxEnv(ctx.sb, { NUMINTEL_CONFIG_DIR: config }), ...quick });
    expect({ code: run.code, stdout: run.stdout }).toEqual({ code: 2, stdout: '' });
    expect(run.stderr).toMatch(new RegExp(`^numintel: cannot read config file ${join(config, 'config.json')}: ${want.source}`));
  });

  it('config.json larger than any config: refused, not read to its end', async () => {
    const config = tempDir();
    writeFileSync(join(config, 'config.json'), `{"profiles":{},"x":"${'a'.repeat(2 * 1024 * 1024)}"}`);
    const run = await runCli(['lrn', NUMBER], { env: sandboxEnv(ctx.sb, { NUMINTEL_CONFIG_DIR: config }), ...quick });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/cannot read config file .*: it is larger than 1 MB/);
  });

  it.each([
    ['/dev/zero', '/dev/zero', /it is a character device, not a file or a pipe/],
    ['a directory', '.', /it is a directory, not a file or a pipe/],
  ])('--api-key-file %s', async (_, file, want) => {
    const { NUMINTEL_API_KEY: _key, ...env } = sandboxEnv(ctx.sb);
    const run = await runCli(['lrn', NUMBER, '--api-key-file', file], { env, ...quick });
    expect({ code: run.code, stdout: run.stdout }).toEqual({ code: 2, stdout: '' });
    expect(run.stderr).toMatch(want);
    expect(run.stderr).toMatch(/^numintel: cannot read the API key from /);
  });

  it.each([
    ['/dev/zero', '/dev/zero', /it is a character device, not a file or a pipe/],
    ['a directory', '.', /it is a directory, not a file or a pipe/],
  ])('report %s', async (_, file, want) => {
    const run = await runCli(['report', file], quick);
    expect({ code: run.code, stdout: run.stdout }).toEqual({ code: 2, stdout: '' });
    expect(run.stderr).toMatch(new RegExp(`^numintel: cannot read ${file.replace('.', '\\.')}: ${want.source}`));
  });
});

// As root every file is readable: the run goes as nobody, on a cache numintel (root) wrote 0600.
const asNobody = process.getuid?.() === 0 && spawnSync('setpriv', ['--version']).status === 0;
describe.skipIf(!asNobody)('a cache file numintel may not read', () => {
  it('is said to be unreadable, with what helps, not damaged: `cache clear` is not advised', async () => {
    const root = tempDir();
    chmodSync(root, 0o755);
    const cache = join(root, 'cache');
    const env = sandboxEnv(ctx.sb, { NUMINTEL_CACHE_DIR: cache });
    const first = await runCli(['lrn', NUMBER, '-f', 'jsonl'], { env });
    expect(first.code, first.stderr).toBe(0);
    // The directory is the user's; the file in it is not.
    chownSync(cache, 65534, 65534);
    for (const dir of ['home', 'config']) mkdirSync(join(root, dir), { mode: 0o777 });
    const nobody = { ...env, HOME: join(root, 'home'), NUMINTEL_CONFIG_DIR: join(root, 'config'), NUMINTEL_CODE_CACHE_DIR: join(root, 'home', 'code') };
    const vars = Object.entries(nobody).map(([k, v]) => `${k}='${v}'`).join(' ');
    const run = await runShell(`env -i ${vars} setpriv --reuid=65534 --regid=65534 --clear-groups ${process.execPath} ${CLI} lrn ${NUMBER} -f jsonl`, quick);
    expect(run.code, run.stderr).toBe(0);
    expect(jsonl(run.stdout)[0]).toMatchObject({ number: NUMBER, ok: true, cached: false });
    expect(run.stderr).toMatch(/^numintel: warning: the lookup cache cannot be used \(EACCES: permission denied, open '[^']*answers\.mdb'\); going on without it \(numintel may not read or write there/);
    expect(run.stderr).not.toMatch(/damaged|cache clear/);
  });
});
