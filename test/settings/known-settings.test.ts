import { describe, expect, it } from 'vitest';
import { NumintelError } from '../../src/core/errors.js';
import { findSetting, parseSetting, requireKnownSetting, showSetting, type SettingSpec } from '../../src/settings/known-settings.js';

const spec = (name: string): SettingSpec => requireKnownSetting(name);
const parse = (name: string, raw: string | number) => parseSetting(spec(name), raw, 'the test');

function usageFailure(fn: () => unknown): NumintelError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(NumintelError);
    expect((err as NumintelError).kind).toBe('usage');
    return err as NumintelError;
  }
  throw new Error('expected a usage error');
}

describe('known settings', () => {
  it.each([
    ['base-url', 'https://api.example.com/', 'https://api.example.com'],
    ['base-url', 'http://127.0.0.1:8080/prefix', 'http://127.0.0.1:8080/prefix'],
    ['transport', 'GraphQL', 'graphql'],
    ['format', 'jsonl', 'jsonl'],
    ['concurrency', '32', 32],
    ['concurrency', 4, 4],
    ['rate', '0', 0],
    ['rate', '12.5', 12.5],
    ['retries', '0', 0],
    ['timeout', '0.5', 0.5],
    ['api-key', 'sk_live_abc123', 'sk_live_abc123'],
  ])('%s accepts %j as %j', (name, raw, expected) => {
    expect(parse(name, raw)).toEqual(expected);
  });

  it.each([
    ['base-url', 'ftp://example.com'],
    ['base-url', 'not a url'],
    ['transport', 'soap'],
    ['format', 'xml'],
    ['concurrency', '0'],
    ['concurrency', '2.5'],
    ['concurrency', '8abc'],
    ['rate', '-1'],
    ['retries', '-1'],
    ['timeout', '0'],
    ['timeout', 'soon'],
  ])('%s refuses %j with a usage error quoting it', (name, raw) => {
    const err = usageFailure(() => parse(name, raw));
    expect(err.message).toContain(JSON.stringify(raw));
    expect(err.message).toContain(name);
    expect(err.message).toContain('the test');
    expect(err.hint).toContain(spec(name).expects);
  });

  it('never quotes a bad API key', () => {
    const err = usageFailure(() => parse('api-key', 'sk live with spaces'));
    expect(`${err.message} ${err.hint}`).not.toContain('sk live');
  });

  it('never echoes the query of a refused base URL, where a key may hide', () => {
    const err = usageFailure(() => parse('base-url', 'https://example.com/?key=sk_live_SECRET123456'));
    expect(err.message).toContain('"https://example.com/?…"');
    expect(err.message).not.toContain('SECRET');
  });

  it('never echoes credentials of a refused base URL', () => {
    const err = usageFailure(() => parse('base-url', 'https://user:hunter2@example.com/'));
    expect(err.message).not.toContain('hunter2');
  });

  it('names the known settings when the key is unknown', () => {
    const err = usageFailure(() => requireKnownSetting('api_key'));
    expect(err.message).toContain('"api_key"');
    for (const name of ['api-key', 'base-url', 'transport', 'format', 'concurrency', 'rate', 'retries', 'timeout']) {
      expect(err.hint).toContain(name);
    }
  });

  it('has no command-line flag for the API key, and shows it masked', () => {
    const key = findSetting('api-key');
    expect(key?.flag).toBeUndefined();
    expect(showSetting(spec('api-key'), 'sk_live_abcdef123456')).toBe('sk_l…(20 chars)');
    expect(showSetting(spec('rate'), 7)).toBe('7');
  });
});
