import { describe, expect, it } from 'vitest';
import { configDir, configFilePath } from '../../src/settings/user-dirs.js';

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
