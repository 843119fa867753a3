import { chmod, mkdir, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { NumintelError } from '../../src/core/errors.js';
import { loadConfig, saveConfig, withValue } from '../../src/settings/config-file.js';
import { useTempDirs } from '../support/tmp.js';

const tempDir = useTempDirs();
const modeOf = async (path: string) => (await stat(path)).mode & 0o777;

describe('loadConfig', () => {
  it('reads a missing file as an empty config', async () => {
    const dir = await tempDir();
    expect(await loadConfig(join(dir, 'nope', 'config.json'))).toEqual({ profiles: {} });
  });

  it('reads profiles and keeps other top-level members', async () => {
    const path = join(await tempDir(), 'config.json');
    await writeFile(path, JSON.stringify({ future: [1], profiles: { default: { rate: 3 } } }));
    const data = await loadConfig(path);
    expect(data.profiles).toEqual({ default: { rate: 3 } });
    expect(data.other).toEqual({ future: [1] });
  });

  it('turns corrupt JSON into a usage error that names the file and says how to fix it, never quoting it', async () => {
    const path = join(await tempDir(), 'config.json');
    await writeFile(path, '{\n  "profiles": { "default": { "api-key": "sk_live_SECRET123456" ,, } }\n');
    const err = await loadConfig(path).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NumintelError);
    const { kind, message, hint } = err as NumintelError;
    expect(kind).toBe('usage');
    expect(message).toContain(path);
    expect(message).toContain('not valid JSON (line 2, column');
    expect(hint).toMatch(/fix it|move it away/);
    expect(`${message} ${hint}`).not.toContain('SECRET');
  });

  it.each([
    ['an array', '[]'],
    ['profiles that is a string', '{"profiles":"x"}'],
    ['a profile that is a number', '{"profiles":{"default":3}}'],
  ])('refuses %s with a usage error', async (_what, text) => {
    const path = join(await tempDir(), 'config.json');
    await writeFile(path, text);
    await expect(loadConfig(path)).rejects.toMatchObject({ kind: 'usage', message: expect.stringContaining(path) });
  });
});

describe('saveConfig', () => {
  it('creates the directory 0700 and the file 0600, and round-trips the data', async () => {
    const dir = join(await tempDir(), 'deep', 'numintel');
    const path = join(dir, 'config.json');
    const data = withValue({ profiles: {} }, 'default', 'concurrency', 8);
    await saveConfig(path, data);
    expect(await modeOf(dir)).toBe(0o700);
    expect(await modeOf(path)).toBe(0o600);
    expect(JSON.parse(await readFile(path, 'utf8'))).toEqual({ profiles: { default: { concurrency: 8 } } });
    expect(await loadConfig(path)).toMatchObject({ profiles: { default: { concurrency: 8 } } });
  });

  it('fixes the mode of an existing 0644 file to 0600', async () => {
    const dir = await tempDir();
    const path = join(dir, 'config.json');
    await writeFile(path, '{"profiles":{}}');
    await chmod(path, 0o644);
    await saveConfig(path, withValue(await loadConfig(path), 'default', 'retries', 2));
    expect(await modeOf(path)).toBe(0o600);
  });

  it('leaves no temporary files behind, and keeps unknown top-level members', async () => {
    const dir = await tempDir();
    const path = join(dir, 'config.json');
    await writeFile(path, '{"future":true,"profiles":{}}');
    for (let i = 0; i < 3; i++) await saveConfig(path, withValue(await loadConfig(path), 'p', 'retries', i));
    expect(await readdir(dir)).toEqual(['config.json']);
    expect(JSON.parse(await readFile(path, 'utf8'))).toEqual({ future: true, profiles: { p: { retries: 2 } } });
  });

  it('cleans up its temp file when the rename fails', async () => {
    const dir = await tempDir();
    const path = join(dir, 'config.json');
    await mkdir(path); // a directory where the file should go: rename must fail
    await expect(saveConfig(path, { profiles: {} })).rejects.toThrow();
    expect(await readdir(dir)).toEqual(['config.json']);
  });
});

describe('withValue', () => {
  it('sets and removes a key without touching the input or other profiles', () => {
    const before = { profiles: { a: { rate: 1 }, b: { rate: 2 } } };
    const after = withValue(before, 'a', 'retries', 3);
    expect(after.profiles).toEqual({ a: { rate: 1, retries: 3 }, b: { rate: 2 } });
    expect(before.profiles.a).toEqual({ rate: 1 });
    expect(withValue(after, 'a', 'rate', undefined).profiles.a).toEqual({ retries: 3 });
  });
});
