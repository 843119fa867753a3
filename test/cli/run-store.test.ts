// The answer store a lookup command opens: the sandbox never touches the user's cache, --no-cache
// opens nothing, --refresh writes only, and a damaged cache warns once on stderr.
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openRunStore } from '../../src/cli/run-store.js';
import { NO_STORE } from '../../src/store/answer-store.js';
import { useTempDirs } from '../support/tmp.js';
import { testWorld } from '../support/world.js';

const tempDir = useTempDirs();
const settings = { baseUrl: 'https://api.example.com' };

describe('openRunStore', () => {
  it('--sandbox and --no-cache open nothing, whatever the base URL', async () => {
    const dir = join(await tempDir(), 'cache');
    const t = testWorld({ env: { NUMINTEL_CACHE_DIR: dir } });
    expect(await openRunStore({ sandbox: true, cache: 'on' }, settings, t.world)).toEqual({ store: NO_STORE, cache: 'off' });
    expect(await openRunStore({ sandbox: false, cache: 'off' }, settings, t.world)).toEqual({ store: NO_STORE, cache: 'off' });
    expect(existsSync(dir)).toBe(false);
    expect(t.stderr()).toBe('');
  });

  it('on: answers what it stored; refresh: stores but answers nothing', async () => {
    const dir = join(await tempDir(), 'cache');
    const t = testWorld({ env: { NUMINTEL_CACHE_DIR: dir } });
    const refresh = await openRunStore({ sandbox: false, cache: 'refresh' }, settings, t.world);
    expect(refresh.cache).toBe('refresh');
    refresh.store.slot('trust', {}).put('12015550123', { is_spam: false }, Date.now());
    expect(refresh.store.slot('trust', {}).get('12015550123')).toBeUndefined();
    await refresh.store.close();
    const on = await openRunStore({ sandbox: false, cache: 'on' }, settings, t.world);
    expect(on.cache).toBe('on');
    expect(on.store.slot('trust', {}).get('12015550123')?.result).toEqual({ is_spam: false });
    await on.store.close();
    expect(t.stderr()).toBe('');
  });

  it('no base URL: not consulted; a damaged cache: one warning, then no cache', async () => {
    const dir = await tempDir();
    writeFileSync(join(dir, 'answers.mdb'), 'garbage');
    const t = testWorld({ env: { NUMINTEL_CACHE_DIR: dir } });
    expect((await openRunStore({ sandbox: false, cache: 'on' }, {}, t.world)).cache).toBe('unavailable');
    const damaged = await openRunStore({ sandbox: false, cache: 'on' }, settings, t.world);
    expect(damaged.cache).toBe('unavailable');
    damaged.store.slot('lrn', {}).put('12015550123', { lrn: 'x' }, Date.now());
    expect(damaged.store.slot('lrn', {}).get('12015550123')).toBeUndefined();
    await damaged.store.close();
    expect(t.stderr()).toMatch(/^numintel: warning: the lookup cache cannot be used \(.*damaged: it is too short.*\); going on without it/);
    expect(t.stderr().split('\n').filter(Boolean)).toHaveLength(1);
  });
});
