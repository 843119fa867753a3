import { readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { beforeEach, describe, expect, it } from 'vitest';
import { configCommand } from '../../src/cli/config-command.js';
import type { World } from '../../src/cli/world.js';
import { systemClock } from '../../src/core/clock.js';
import { NumintelError } from '../../src/core/errors.js';
import { resolveSettings } from '../../src/settings/resolve.js';
import { useTempDirs } from '../support/tmp.js';
import { runInProcess } from '../support/world.js';
import { makeCertificate } from '../../src/sandbox/certificate.js';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';

const KEY = 'sk_live_9f8e7d6c5b4a3210';

const newDir = useTempDirs('numintel-config-cmd-');
let dir: string;
beforeEach(async () => {
  dir = await newDir();
});

interface Run {
  stdout: string;
  stderr: string;
  error?: NumintelError;
}

/** Runs `numintel config <args>` against fake streams; `stdin` is piped text, or typed at a terminal when `tty`. */
async function config(args: string[], opts: { stdin?: string; tty?: boolean; env?: Record<string, string> } = {}): Promise<Run> {
  const stdin = Object.assign(new PassThrough(), { isTTY: opts.tty ?? false });
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const out = { stdout: '', stderr: '' };
  stdout.on('data', (c: Buffer) => (out.stdout += c.toString()));
  stderr.on('data', (c: Buffer) => (out.stderr += c.toString()));
  const world: World = {
    env: { NUMINTEL_CONFIG_DIR: dir, ...opts.env },
    stdin,
    stdout,
    stderr,
    cwd: dir,
    home: join(dir, 'home'),
    clock: systemClock,
    interrupt: new AbortController().signal,
  };
  if (opts.tty) {
    // A person types once the prompt is up.
    stderr.once('data', () => stdin.write(`${opts.stdin ?? ''}\n`));
  } else {
    stdin.end(opts.stdin ?? '');
  }
  const cmd = configCommand(world).exitOverride();
  for (const sub of cmd.commands) sub.exitOverride();
  try {
    await cmd.parseAsync(args, { from: 'user' });
    return out;
  } catch (err) {
    if (!(err instanceof NumintelError)) throw err;
    return { ...out, error: err };
  }
}

const configPath = () => join(dir, 'config.json');
const stored = async () => JSON.parse(await readFile(configPath(), 'utf8')) as { profiles: Record<string, Record<string, unknown>> };
const everything = (run: Run) => `${run.stdout}${run.stderr}${run.error?.message ?? ''}${run.error?.hint ?? ''}`;

describe('numintel config', () => {
  it('path prints where config.json lives', async () => {
    expect((await config(['path'])).stdout).toBe(`${configPath()}\n`);
  });

  it('set stores a typed value in a 0600 file; get and list print it', async () => {
    expect((await config(['set', 'base-url', 'https://api.example.com/'])).error).toBeUndefined();
    expect((await config(['set', 'concurrency', '32'])).stderr).toContain('concurrency set to 32 in profile default');
    expect(await stored()).toEqual({ profiles: { default: { 'base-url': 'https://api.example.com', concurrency: 32 } } });
    expect((await stat(configPath())).mode & 0o777).toBe(0o600);
    expect((await config(['get', 'base-url'])).stdout).toBe('https://api.example.com\n');
    expect((await config(['list'])).stdout).toBe('base-url=https://api.example.com\nconcurrency=32\n');
  });

  it('set max-age stores the duration as written, which get and list print and a run reads back', async () => {
    const set = await config(['set', 'max-age', ' 12h,cnam=30d ']);
    expect(set.error).toBeUndefined();
    expect(set.stderr).toContain('max-age set to 12h,cnam=30d in profile default');
    expect(await stored()).toEqual({ profiles: { default: { 'max-age': '12h,cnam=30d' } } });
    expect((await config(['get', 'max-age'])).stdout).toBe('12h,cnam=30d\n');
    expect((await config(['list'])).stdout).toBe('max-age=12h,cnam=30d\n');
    const settings = await resolveSettings({ flags: {}, env: { NUMINTEL_CONFIG_DIR: dir }, home: dir, readApiKeyFile: () => Promise.reject(new Error('no --api-key-file here')) });
    const HOUR = 3_600_000;
    expect([settings.maxAge, settings.source.maxAge]).toEqual([{ lrn: 12 * HOUR, cnam: 30 * 24 * HOUR, trust: 12 * HOUR }, 'config']);
  });

  it('refuses an unknown key, listing the known ones, and a bad value, quoting it', async () => {
    const unknown = await config(['set', 'colour', 'red']);
    expect(unknown.error).toMatchObject({ kind: 'usage', message: expect.stringContaining('"colour"') });
    expect(unknown.error?.hint).toContain('base-url');
    const bad = await config(['set', 'retries', 'lots']);
    expect(bad.error).toMatchObject({ kind: 'usage', message: expect.stringContaining('"lots"') });
    const missing = await config(['set', 'retries']);
    expect(missing.error).toMatchObject({ kind: 'usage', message: expect.stringContaining('needs a value') });
    await expect(stat(configPath())).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('refuses an api-key given on the command line, without repeating it or writing anything', async () => {
    const run = await config(['set', 'api-key', KEY]);
    expect(run.error).toMatchObject({ kind: 'usage', message: expect.stringContaining('never taken from the command line') });
    expect(everything(run)).not.toContain(KEY);
    await expect(stat(configPath())).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('reads the api-key from piped stdin, stores it, and only ever shows it masked', async () => {
    const set = await config(['set', 'api-key'], { stdin: `${KEY}\n` });
    expect(set.error).toBeUndefined();
    expect((await stored()).profiles.default?.['api-key']).toBe(KEY);
    const get = await config(['get', 'api-key']);
    const list = await config(['list']);
    expect(get.stdout).toBe('sk_l…(24 chars)\n');
    expect(list.stdout).toBe('api-key=sk_l…(24 chars)\n');
    for (const run of [set, get, list]) expect(everything(run)).not.toContain(KEY);
    // What was stored is what a lookup command will use.
    const settings = await resolveSettings({ flags: {}, env: { NUMINTEL_CONFIG_DIR: dir }, home: dir, readApiKeyFile: () => Promise.reject(new Error('no --api-key-file here')) });
    expect([settings.apiKey, settings.source.apiKey]).toEqual([KEY, 'config']);
  });

  it('reads the api-key from a hidden prompt at a terminal, without echoing it', async () => {
    const run = await config(['set', 'api-key'], { stdin: KEY, tty: true });
    expect(run.error).toBeUndefined();
    expect(run.stderr).toMatch(/^API key \(input hidden\): \n/);
    expect(everything(run)).not.toContain(KEY);
    expect((await stored()).profiles.default?.['api-key']).toBe(KEY);
  });

  it('refuses an empty api-key on stdin, and one with spaces without quoting it', async () => {
    expect((await config(['set', 'api-key'], { stdin: '' })).error).toMatchObject({ kind: 'usage' });
    const spaced = await config(['set', 'api-key'], { stdin: 'two words\n' });
    expect(spaced.error).toMatchObject({ kind: 'usage' });
    expect(everything(spaced)).not.toContain('two words');
    expect(spaced.error?.message).toBe('invalid api-key from standard input (not shown: it is a secret)');
  });

  it('Enter alone at the key prompt says no key was typed, and stores nothing', async () => {
    const run = await config(['set', 'api-key'], { stdin: '', tty: true });
    expect(run.error).toMatchObject({ kind: 'usage', code: 'NUMINTEL_NO_API_KEY', message: 'no API key typed at the prompt' });
    await expect(stored()).rejects.toThrow();
  });

  it('keeps profiles apart: --profile and NUMINTEL_PROFILE select, an unknown one is refused', async () => {
    await config(['set', 'rate', '5']);
    await config(['set', '--profile', 'work', 'rate', '50']);
    expect((await config(['get', 'rate', '--profile', 'work'])).stdout).toBe('50\n');
    expect((await config(['get', 'rate'], { env: { NUMINTEL_PROFILE: 'work' } })).stdout).toBe('50\n');
    expect((await config(['get', 'rate'])).stdout).toBe('5\n');
    expect((await config(['list', '--profile', 'work'])).stdout).toBe('rate=50\n');
    const unknown = await config(['list', '--profile', 'nope']);
    expect(unknown.error).toMatchObject({ kind: 'usage', message: expect.stringContaining('unknown profile "nope"') });
  });

  it('get of an unset key is a usage error that mentions the default', async () => {
    const run = await config(['get', 'retries']);
    expect(run.error).toMatchObject({ kind: 'usage', message: 'retries is not set in profile default (the default is 5)' });
  });

  it('unset removes a key, tolerates one that is not set, and can remove an unknown key found in the file', async () => {
    await writeFile(configPath(), JSON.stringify({ profiles: { default: { timeout: 3, typo: 1 } } }));
    expect((await config(['list'])).stderr).toContain('unknown setting "typo"');
    await config(['unset', 'timeout']);
    expect((await config(['unset', 'timeout'])).stderr).toContain('timeout was not set');
    await config(['unset', 'typo']);
    expect(await stored()).toEqual({ profiles: { default: {} } });
    expect((await config(['unset', 'nonsense'])).error).toMatchObject({ kind: 'usage' });
    expect((await stat(configPath())).mode & 0o777).toBe(0o600);
  });

  it('reports a corrupt config file as a usage error naming it', async () => {
    await writeFile(configPath(), '{"profiles": ');
    const run = await config(['list']);
    expect(run.error).toMatchObject({ kind: 'usage', message: expect.stringContaining(configPath()) });
  });
});

describe('config set ca-file', () => {
  it('refuses a base URL every run would refuse (the key over plain http:// off loopback), storing nothing', async () => {
    const cwd = await newDir();
    const set = (value: string) => runInProcess(['config', 'set', 'base-url', value], { cwd, env: { NUMINTEL_CONFIG_DIR: join(cwd, 'config') } });
    const remote = await set('http://api.example.com');
    expect(remote.code).toBe(2);
    expect(remote.stderr).toContain('refusing to send the API key over plain http:// to api.example.com');
    expect(existsSync(join(cwd, 'config', 'config.json'))).toBe(false);
    for (const good of ['https://api.example.com', 'http://127.0.0.1:8080']) expect((await set(good)).code).toBe(0);
  });

  it('checks the file now: one that cannot be read or holds no PEM certificate is refused with one line (exit 2) and not stored', async () => {
    const cwd = await newDir();
    writeFileSync(join(cwd, 'not.pem'), 'hello\n');
    writeFileSync(join(cwd, 'ca.pem'), (await makeCertificate('127.0.0.1')).cert);
    const set = (value: string) => runInProcess(['config', 'set', 'ca-file', value], { cwd, env: { NUMINTEL_CONFIG_DIR: join(cwd, 'config') } });
    const missing = await set('/nope.pem');
    expect(missing).toMatchObject({ code: 2, stdout: '', stderr: 'numintel: ca-file not set: cannot read the CA file /nope.pem (ca-file): no such file (ENOENT)\n' });
    const notPem = await set('not.pem');
    expect(notPem).toMatchObject({ code: 2, stderr: 'numintel: ca-file not set: the CA file not.pem (ca-file) holds no PEM certificate (-----BEGIN CERTIFICATE-----)\n' });
    expect(existsSync(join(cwd, 'config', 'config.json'))).toBe(false);
    const ok = await set('ca.pem');
    expect(ok.code, ok.stderr).toBe(0);
    // Stored as the file checked, so a run from another directory reads the same one.
    expect(JSON.parse(readFileSync(join(cwd, 'config', 'config.json'), 'utf8')).profiles.default['ca-file']).toBe(join(cwd, 'ca.pem'));
  });
});
