// Profiles inherit what they leave unset from `default`: through `config get/list/profiles` and
// through a lookup run (the README's `--profile bulk` example), in-process.
import { writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RunRequest } from '../../src/cli/run-request.js';
import { resolveSettings } from '../../src/settings/resolve.js';
import { runInProcess, testWorld } from '../support/world.js';

function configDir(profiles: Record<string, Record<string, unknown>>): string {
  const { world } = testWorld();
  const dir = world.env.NUMINTEL_CONFIG_DIR!;
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'config.json'), JSON.stringify({ profiles }), { mode: 0o600 });
  return dir;
}

const PROFILES = {
  default: { 'base-url': 'https://api.example.com', 'api-key': 'sk_live_0123456789abcdef', concurrency: 8, rate: 3 },
  bulk: { concurrency: 32 },
  empty: {},
};

describe('profile inheritance', () => {
  it('config list --profile bulk shows its own and the inherited settings, and says which are inherited', async () => {
    const dir = configDir(PROFILES);
    const r = await runInProcess(['config', 'list', '--profile', 'bulk'], { env: { NUMINTEL_CONFIG_DIR: dir } });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('api-key=sk_l…(24 chars)\nbase-url=https://api.example.com\nconcurrency=32\nrate=3\n');
    expect(r.stderr).toBe('numintel: api-key, base-url, rate come from profile default (not set in bulk)\n');
  });

  it('config get: an inherited value, with a note; an own value, without', async () => {
    const dir = configDir(PROFILES);
    const rate = await runInProcess(['config', 'get', 'rate', '--profile', 'bulk'], { env: { NUMINTEL_CONFIG_DIR: dir } });
    expect([rate.code, rate.stdout, rate.stderr]).toEqual([0, '3\n', 'numintel: rate comes from profile default (not set in bulk)\n']);
    const own = await runInProcess(['config', 'get', 'concurrency', '--profile', 'bulk'], { env: { NUMINTEL_CONFIG_DIR: dir } });
    expect([own.code, own.stdout, own.stderr]).toEqual([0, '32\n', '']);
  });

  it('config profiles lists default first, then the others', async () => {
    const dir = configDir({ bulk: {}, default: {}, staging: {} });
    const r = await runInProcess(['config', 'profiles'], { env: { NUMINTEL_CONFIG_DIR: dir } });
    expect(r.stdout).toBe('default\nbulk\nstaging\n');
    const none = await runInProcess(['config', 'profiles'], {});
    expect(none.stdout).toBe('default\n');
  });

  it('the hint for an unknown --profile lists the profiles in the order config profiles prints them', async () => {
    const dir = configDir({ bulk: {}, default: {}, staging: {} });
    const r = await runInProcess(['config', 'get', 'rate', '--profile', 'stagin'], { env: { NUMINTEL_CONFIG_DIR: dir } });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('known profiles: default, bulk, staging; ');
  });

  it('a run with --profile bulk gets the base URL and key from default, its concurrency from bulk', async () => {
    const dir = configDir(PROFILES);
    const settings = await resolveSettings({ flags: {}, env: { NUMINTEL_CONFIG_DIR: dir }, home: dir, profile: 'bulk', readApiKeyFile: async () => '' });
    expect(settings).toMatchObject({ baseUrl: 'https://api.example.com', apiKey: 'sk_live_0123456789abcdef', concurrency: 32, rate: 3, profile: 'bulk' });
    expect(settings.source).toMatchObject({ baseUrl: 'config', concurrency: 'config' });
    // The request the command makes carries the profile to the run.
    let req: RunRequest | undefined;
    await runInProcess(['lrn', '12015550123', '--profile', 'bulk'], { env: { NUMINTEL_CONFIG_DIR: dir } }, { runLookups: async (r) => ((req = r), 0) });
    expect(req?.profile).toBe('bulk');
  });

  it('a run warns of a setting its profile (or default) holds that is no setting, a typo it would otherwise ignore in silence', async () => {
    const dir = configDir({ default: { ...PROFILES.default, base_url: 'https://typo.example.com' }, bulk: { concurency: 4 } });
    const warnings: string[] = [];
    const settings = await resolveSettings({ flags: {}, env: { NUMINTEL_CONFIG_DIR: dir }, home: dir, profile: 'bulk', readApiKeyFile: async () => '', warn: (l) => warnings.push(l) });
    expect(settings.baseUrl).toBe('https://api.example.com');
    expect(warnings).toEqual([
      'profile default holds unknown setting "base_url"; it is ignored (remove it with `numintel config unset base_url`)',
      'profile bulk holds unknown setting "concurency"; it is ignored (remove it with `numintel config unset concurency --profile bulk`)',
    ]);
    const list = await runInProcess(['config', 'list', '--profile', 'bulk'], { env: { NUMINTEL_CONFIG_DIR: dir } });
    expect(list.stderr).toContain('numintel: profile bulk holds unknown setting "concurency"');
  });

  it('a bad inherited value names the profile it is in', async () => {
    const dir = configDir({ default: { rate: 'fast' }, bulk: {} });
    const err = await resolveSettings({ flags: {}, env: { NUMINTEL_CONFIG_DIR: dir }, home: dir, profile: 'bulk', readApiKeyFile: async () => '' }).catch((e: unknown) => e);
    expect(String((err as Error).message)).toContain(`profile default of ${join(dir, 'config.json')}`);
  });
});
