import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { NumintelError } from '../../src/core/errors.js';
import { saveConfig } from '../../src/settings/config-file.js';
import { requireApiKey, requireBaseUrl, resolveSettings, type ResolveInput } from '../../src/settings/resolve.js';
import { apiKeyFileReader } from '../../src/settings/secret-input.js';
import { useTempDirs } from '../support/tmp.js';

const tempDir = useTempDirs();

type Input = Omit<ResolveInput, 'readApiKeyFile'> & Partial<Pick<ResolveInput, 'readApiKeyFile'>>;

/** resolveSettings with the CLI's key-file reader (paths from `home`, an empty stdin) unless given one. */
const resolve = (input: Input) => resolveSettings({ readApiKeyFile: apiKeyFileReader(() => Readable.from([]), input.home), ...input });

/** A config dir holding `profiles`, and the env pointing at it. */
async function configured(profiles: Record<string, Record<string, unknown>>) {
  const dir = await tempDir();
  if (Object.keys(profiles).length) await saveConfig(join(dir, 'config.json'), { profiles });
  return { dir, env: { NUMINTEL_CONFIG_DIR: dir } as Record<string, string | undefined> };
}

/**
 * One row per setting: a distinct value at each level and the contract's default. `flag`/`env`
 * are absent where the setting has no such source.
 */
const LEVELS = [
  { name: 'base-url', prop: 'baseUrl', flag: ['https://flag.example', 'https://flag.example'], env: ['NUMINTEL_BASE_URL', 'https://env.example/', 'https://env.example'], config: ['https://conf.example', 'https://conf.example'], def: undefined },
  { name: 'transport', prop: 'transport', flag: ['graphql', 'graphql'], env: ['NUMINTEL_TRANSPORT', 'rest', 'rest'], config: ['graphql', 'graphql'], def: 'rest' },
  { name: 'format', prop: 'format', flag: ['csv', 'csv'], config: ['json', 'json'], def: undefined },
  { name: 'concurrency', prop: 'concurrency', flag: ['3', 3], config: [7, 7], def: 16 },
  { name: 'rate', prop: 'rate', flag: [0, 0], config: ['2.5', 2.5], def: undefined },
  { name: 'retries', prop: 'retries', flag: ['0', 0], config: [9, 9], def: 5 },
  { name: 'timeout', prop: 'timeout', flag: ['1.5', 1.5], config: [30, 30], def: 15 },
  { name: 'ca-file', prop: 'caFile', flag: ['flag-ca.pem', 'flag-ca.pem'], env: ['NUMINTEL_CA_FILE', ' /etc/env-ca.pem ', '/etc/env-ca.pem'], config: ['/etc/conf-ca.pem', '/etc/conf-ca.pem'], def: undefined },
] as const;

describe('resolveSettings precedence: flag > env > config > default', () => {
  it.each(LEVELS)('$name', async (row) => {
    const { dir, env } = await configured({ default: { [row.name]: row.config[0] } });
    const full: Input = {
      flags: { [row.name]: row.flag[0] },
      env: 'env' in row ? { ...env, [row.env[0]]: row.env[1] } : env,
      home: dir,
    };
    const pick = async (input: Input) => {
      const s = await resolve(input);
      return [s[row.prop], s.source[row.prop]];
    };
    expect(await pick(full)).toEqual([row.flag[1], 'flag']);
    const noFlag = { ...full, flags: {} };
    if ('env' in row) {
      expect(await pick(noFlag)).toEqual([row.env[2], 'env']);
    }
    expect(await pick({ ...noFlag, env })).toEqual([row.config[1], 'config']);
    const empty = await configured({});
    expect(await pick({ flags: {}, env: empty.env, home: dir })).toEqual([row.def, 'default']);
  });

  it('ignores NUMINTEL_FORMAT (format has no environment variable)', async () => {
    const { dir, env } = await configured({});
    const s = await resolve({ flags: {}, env: { ...env, NUMINTEL_FORMAT: 'csv' }, home: dir });
    expect(s.format).toBeUndefined();
  });

  it('says where a bad value came from', async () => {
    const { dir, env } = await configured({ default: { retries: 'many' } });
    await expect(resolve({ flags: {}, env, home: dir })).rejects.toMatchObject({
      kind: 'usage',
      message: expect.stringMatching(/"many" from profile default of .*config\.json/),
    });
    await expect(resolve({ flags: {}, env: { ...env, NUMINTEL_TRANSPORT: 'soap' }, home: dir })).rejects.toMatchObject({
      message: expect.stringContaining('"soap" from NUMINTEL_TRANSPORT'),
    });
    await expect(resolve({ flags: { concurrency: '0' }, env, home: dir })).rejects.toMatchObject({
      message: expect.stringContaining('"0" from --concurrency'),
    });
  });
});

describe('profiles', () => {
  const profiles = { default: { retries: 1 }, work: { retries: 2 }, home: { retries: 3 } };

  it('uses "default" unless one is named', async () => {
    const { dir, env } = await configured(profiles);
    const s = await resolve({ flags: {}, env, home: dir });
    expect([s.profile, s.retries]).toEqual(['default', 1]);
    expect(s.configPath).toBe(join(dir, 'config.json'));
  });

  it('selects by NUMINTEL_PROFILE, and --profile wins over it', async () => {
    const { dir, env } = await configured(profiles);
    const byEnv = await resolve({ flags: {}, env: { ...env, NUMINTEL_PROFILE: 'work' }, home: dir });
    expect([byEnv.profile, byEnv.retries]).toEqual(['work', 2]);
    const byFlag = await resolve({ flags: {}, env: { ...env, NUMINTEL_PROFILE: 'work' }, home: dir, profile: 'home' });
    expect([byFlag.profile, byFlag.retries]).toEqual(['home', 3]);
  });

  it('refuses an unknown profile named explicitly, listing the known ones', async () => {
    const { dir, env } = await configured(profiles);
    for (const input of [
      { flags: {}, env, home: dir, profile: 'wrok' },
      { flags: {}, env: { ...env, NUMINTEL_PROFILE: 'wrok' }, home: dir },
    ]) {
      await expect(resolve(input)).rejects.toMatchObject({
        kind: 'usage',
        message: expect.stringContaining('unknown profile "wrok"'),
        hint: expect.stringContaining('known profiles: default, work, home'),
      });
    }
  });

  it('accepts a missing file for the default profile, named or not', async () => {
    const { dir, env } = await configured({});
    const s = await resolve({ flags: {}, env, home: dir });
    expect([s.profile, s.concurrency]).toEqual(['default', 16]);
    const named = await resolve({ flags: {}, env: { ...env, NUMINTEL_PROFILE: 'default' }, home: dir });
    expect(named.profile).toBe('default');
  });

  it('refuses a profile name that could not be stored', async () => {
    const { dir, env } = await configured({});
    // The hint says what "__proto__" breaks: its first character.
    for (const profile of ['__proto__', '.hidden', 'a b', 'x'.repeat(65)]) {
      await expect(resolve({ flags: {}, env, home: dir, profile })).rejects.toMatchObject({
        kind: 'usage',
        message: expect.stringContaining('invalid profile name'),
        hint: 'a profile name is up to 64 letters, digits, ".", "_" and "-", starting with a letter or digit',
      });
    }
  });
});

describe('the API key', () => {
  const KEY = 'sk_live_0123456789abcdef';

  it('comes from --api-key-file before NUMINTEL_API_KEY before the profile', async () => {
    const { dir, env } = await configured({ default: { 'api-key': 'from-config-key' } });
    const file = join(dir, 'key.txt');
    await writeFile(file, `${KEY}\n`);
    const withFile = await resolve({ flags: {}, env: { ...env, NUMINTEL_API_KEY: 'from-env-key' }, home: dir, apiKeyFile: file });
    expect([withFile.apiKey, withFile.source.apiKey]).toEqual([KEY, 'flag']);
    const withEnv = await resolve({ flags: {}, env: { ...env, NUMINTEL_API_KEY: 'from-env-key' }, home: dir });
    expect([withEnv.apiKey, withEnv.source.apiKey]).toEqual(['from-env-key', 'env']);
    const fromProfile = await resolve({ flags: {}, env, home: dir });
    expect([fromProfile.apiKey, fromProfile.source.apiKey]).toEqual(['from-config-key', 'config']);
  });

  it("reads '-' through the injected reader (stdin) and trims one trailing newline", async () => {
    const { dir, env } = await configured({});
    const asked: string[] = [];
    const s = await resolve({
      flags: {},
      env,
      home: dir,
      apiKeyFile: '-',
      readApiKeyFile: async (p) => {
        asked.push(p);
        return `${KEY}\r\n`;
      },
    });
    expect(asked).toEqual(['-']);
    expect(s.apiKey).toBe(KEY);
  });

  it('refuses an empty key file, a missing one, and one with more than a line, without showing the content', async () => {
    const { dir, env } = await configured({});
    const empty = join(dir, 'empty');
    await writeFile(empty, '\n');
    await expect(resolve({ flags: {}, env, home: dir, apiKeyFile: empty })).rejects.toMatchObject({
      kind: 'usage',
      message: expect.stringContaining('is empty'),
    });
    await expect(resolve({ flags: {}, env, home: dir, apiKeyFile: join(dir, 'missing') })).rejects.toMatchObject({
      kind: 'usage',
      message: `cannot read the API key from ${join(dir, 'missing')}: no such file (ENOENT)`,
    });
    await expect(resolve({ flags: {}, env, home: dir, apiKeyFile: dir })).rejects.toMatchObject({
      kind: 'usage',
      message: `cannot read the API key from ${dir}: it is a directory, not a file or a pipe`,
    });
    // Nothing piped, or Enter alone at the prompt: said as such, not as a file named "standard input".
    await expect(resolve({ flags: {}, env, home: dir, apiKeyFile: '-', readApiKeyFile: async () => '\n' })).rejects.toMatchObject({
      kind: 'usage',
      message: 'no API key on standard input (--api-key-file -)',
    });
    const two = join(dir, 'two');
    await writeFile(two, `${KEY}\nsecond-line\n`);
    const err = await resolve({ flags: {}, env, home: dir, apiKeyFile: two }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NumintelError);
    expect(String((err as NumintelError).message)).not.toContain(KEY);
  });

  it('is not read at all with skipApiKey (the sandbox has its own)', async () => {
    const { dir, env } = await configured({});
    const s = await resolve({
      flags: {},
      env: { ...env, NUMINTEL_API_KEY: KEY },
      home: dir,
      apiKeyFile: '-',
      readApiKeyFile: () => Promise.reject(new Error('must not be read')),
      skipApiKey: true,
    });
    expect(s.apiKey).toBeUndefined();
  });
});

describe('requireBaseUrl / requireApiKey', () => {
  it('return what is configured', () => {
    expect(requireBaseUrl({ baseUrl: 'https://x.example' })).toBe('https://x.example');
    expect(requireApiKey({ apiKey: 'k' })).toBe('k');
  });

  it('say how to configure what is missing', () => {
    expect(() => requireBaseUrl({})).toThrow(expect.objectContaining({
      kind: 'usage',
      message: 'no base URL configured',
      hint: expect.stringMatching(/config set base-url.*NUMINTEL_BASE_URL.*--base-url.*--sandbox/),
    }));
    expect(() => requireApiKey({})).toThrow(expect.objectContaining({
      kind: 'usage',
      hint: expect.stringMatching(/NUMINTEL_API_KEY.*--api-key-file.*config set api-key/),
    }));
  });
});
