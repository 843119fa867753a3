import { describe, expect, it } from 'vitest';
import { cacheDir, codeCacheDir, configDir, configFilePath } from '../../src/settings/user-dirs.js';

describe('configDir', () => {
  const home = '/home/ann';

  it('prefers NUMINTEL_CONFIG_DIR over everything', () => {
    expect(configDir({ NUMINTEL_CONFIG_DIR: '/etc/ni', XDG_CONFIG_HOME: '/xdg' }, home)).toBe('/etc/ni');
  });

  it('uses $XDG_CONFIG_HOME/numintel next', () => {
    expect(configDir({ XDG_CONFIG_HOME: '/xdg' }, home)).toBe('/xdg/numintel');
  });

  it('falls back to ~/.config/numintel', () => {
    expect(configDir({}, home)).toBe('/home/ann/.config/numintel');
  });

  it('treats empty variables as unset', () => {
    expect(configDir({ NUMINTEL_CONFIG_DIR: '', XDG_CONFIG_HOME: '' }, home)).toBe('/home/ann/.config/numintel');
  });

  it('ignores a relative XDG_CONFIG_HOME, as the XDG spec requires', () => {
    expect(configDir({ XDG_CONFIG_HOME: 'relative/conf' }, home)).toBe('/home/ann/.config/numintel');
  });

  it('puts config.json in that directory', () => {
    expect(configFilePath({ XDG_CONFIG_HOME: '/xdg' }, home)).toBe('/xdg/numintel/config.json');
  });
});

// One resolver for the program and the launcher (bin/numintel.js loads it too).
describe('cacheDir and codeCacheDir', () => {
  const home = '/home/ann';

  it('the cache: NUMINTEL_CACHE_DIR, else $XDG_CACHE_HOME/numintel (absolute only), else ~/.cache/numintel', () => {
    expect(cacheDir({ NUMINTEL_CACHE_DIR: '/c', XDG_CACHE_HOME: '/xdg' }, home)).toBe('/c');
    expect(cacheDir({ XDG_CACHE_HOME: '/xdg' }, home)).toBe('/xdg/numintel');
    expect(cacheDir({ XDG_CACHE_HOME: 'relative' }, home)).toBe('/home/ann/.cache/numintel');
    expect(cacheDir({ NUMINTEL_CACHE_DIR: '' }, home)).toBe('/home/ann/.cache/numintel');
  });

  it("the launcher's code caches: NUMINTEL_CODE_CACHE_DIR, else code/ in the cache directory", () => {
    expect(codeCacheDir({ NUMINTEL_CODE_CACHE_DIR: '/code', NUMINTEL_CACHE_DIR: '/c' }, home)).toBe('/code');
    expect(codeCacheDir({ NUMINTEL_CACHE_DIR: '/c' }, home)).toBe('/c/code');
    expect(codeCacheDir({ XDG_CACHE_HOME: 'relative', NUMINTEL_CODE_CACHE_DIR: '' }, home)).toBe('/home/ann/.cache/numintel/code');
  });
});
