// config.json where users' machines get odd: a symlinked file (dotfiles), one others may read,
// a directory numintel cannot create (under /proc, under a file), a damaged file through the CLI.
import { chmod, lstat, mkdir, readFile, readlink, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { NumintelError } from '../../src/core/errors.js';
import { loadConfig, saveConfig, withValue } from '../../src/settings/config-file.js';
import { makeDirs } from '../../src/fs/make-dirs.js';
import { runInProcess } from '../support/world.js';
import { useTempDirs } from '../support/tmp.js';

const tempDir = useTempDirs();

describe('config file hardening', () => {
  it('a symlinked config.json stays a symlink; the file it points to gets the new value', async () => {
    const dir = await tempDir();
    const real = join(dir, 'dotfiles', 'numintel.json');
    await mkdir(join(dir, 'dotfiles'));
    await writeFile(real, '{"profiles":{"default":{"rate":3}}}');
    const link = join(dir, 'config', 'config.json');
    await mkdir(join(dir, 'config'));
    await symlink(real, link);
    await saveConfig(link, withValue(await loadConfig(link), 'default', 'concurrency', 8));
    expect((await lstat(link)).isSymbolicLink()).toBe(true);
    expect(await readlink(link)).toBe(real);
    expect(JSON.parse(await readFile(real, 'utf8')).profiles.default).toEqual({ rate: 3, concurrency: 8 });
    expect((await lstat(real)).mode & 0o777).toBe(0o600);
  });

  it('warns, once and without the key, when others may read a file that holds a key', async () => {
    const path = join(await tempDir(), 'config.json');
    await writeFile(path, '{"profiles":{"default":{"api-key":"sk_live_SECRET123456"}}}');
    await chmod(path, 0o644);
    const warnings: string[] = [];
    await loadConfig(path, (l) => warnings.push(l));
    expect(warnings).toEqual([`config file ${path} holds an API key and others may read it (mode 0644): run \`chmod 600 ${path}\``]);
    await chmod(path, 0o600);
    await loadConfig(path, (l) => warnings.push(l));
    expect(warnings).toHaveLength(1);
  });

  it('no warning for a readable file without a key', async () => {
    const path = join(await tempDir(), 'config.json');
    await writeFile(path, '{"profiles":{"default":{"rate":3}}}');
    await chmod(path, 0o644);
    const warnings: string[] = [];
    await loadConfig(path, (l) => warnings.push(l));
    expect(warnings).toEqual([]);
  });

  it.each([
    { name: 'under /proc (mkdir says ENOENT for a parent that exists)', dir: async () => '/proc/self/numintel-test' },
    { name: 'under a regular file', dir: async () => {
      const file = join(await tempDir(), 'file');
      await writeFile(file, '');
      return join(file, 'numintel');
    } },
  ])('a directory that cannot be made, $name: a usage error naming the file, at once', async ({ dir }) => {
    const path = join(await dir(), 'config.json');
    const err = await saveConfig(path, { profiles: { default: { rate: 1 } } }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NumintelError);
    expect((err as NumintelError).kind).toBe('usage');
    expect((err as NumintelError).message).toMatch(new RegExp(`cannot write config file ${path} \\((ENOENT|ENOTDIR)\\)`));
  });

  it('makeDirs makes every missing level with the mode, and accepts one that exists', async () => {
    const base = await tempDir();
    const deep = join(base, 'a', 'b', 'c');
    await makeDirs(deep);
    await makeDirs(deep);
    for (const d of ['a', 'a/b', 'a/b/c']) expect((await lstat(join(base, d))).mode & 0o777).toBe(0o700);
  });

  it('through the CLI: config set into /proc exits 2 with one line; a damaged file exits 2 naming where', async () => {
    const r = await runInProcess(['config', 'set', 'base-url', 'https://api.example.com'], { env: { NUMINTEL_CONFIG_DIR: '/proc/self/numintel-test' } });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^numintel: cannot write config file \/proc\/self\/numintel-test\/config\.json \(ENOENT\)\n/);
    const dir = await tempDir();
    await writeFile(join(dir, 'config.json'), '{"profiles": {');
    const bad = await runInProcess(['lrn', '12015550123', '--sandbox'], { env: { NUMINTEL_CONFIG_DIR: dir } });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain(`numintel: config file ${join(dir, 'config.json')} is not valid JSON`);
  });
});
