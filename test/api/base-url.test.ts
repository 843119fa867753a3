import { describe, expect, it } from 'vitest';
import { checkBaseUrl, endpoint } from '../../src/api/base-url.js';
import { createTransport } from '../../src/api/index.js';
import { NumintelError } from '../../src/core/errors.js';

function refusal(url: string, hasKey: boolean): NumintelError {
  try {
    checkBaseUrl(url, hasKey);
  } catch (e) {
    if (e instanceof NumintelError) return e;
    throw e;
  }
  throw new Error(`accepted ${url}`);
}

describe('checkBaseUrl', () => {
  it.each([
    ['https://api.example.com', true],
    ['https://api.example.com/prefix/', true],
    ['http://127.0.0.1:4010', true],
    ['http://127.8.9.10', true],
    ['http://localhost:8080/x', true],
    ['http://[::1]:4010', true],
    ['HTTP://LOCALHOST', true],
    ['http://api.example.com', false],
  ])('accepts %s (key: %s)', (url, hasKey) => {
    expect(checkBaseUrl(url, hasKey)).toBeInstanceOf(URL);
  });

  it('refuses to send a key over plain http to a remote host, saying why and what to do', () => {
    for (const url of ['http://api.example.com', 'http://10.0.0.1:80', 'http://128.0.0.1', 'http://localhost.evil.com', 'http://[::2]']) {
      const e = refusal(url, true);
      expect(e.kind).toBe('usage');
      expect(e.message).toContain('plain http://');
      expect(e.hint).toContain('https://');
    }
  });

  it.each([
    ['not a url', 'not a valid URL'],
    ['ftp://example.com', 'only http:// and https://'],
    ['file:///etc/passwd', 'only http:// and https://'],
    ['https://api.example.com/?x=1', 'query or fragment'],
    ['https://user:s3cret@api.example.com', 'credentials'],
  ])('refuses %s', (url, says) => {
    const e = refusal(url, false);
    expect(e.kind).toBe('usage');
    expect(e.message).toContain(says);
    expect(e.message).not.toContain('s3cret');
  });

  it('is what createTransport applies', () => {
    expect(() => createTransport({ baseUrl: 'http://api.example.com', apiKey: 'k'.repeat(20) })).toThrow(/plain http/);
    expect(() => createTransport({ baseUrl: 'https://x.example', timeoutMs: -1 })).toThrow(/timeoutMs must be a positive number, got -1/);
    expect(() => createTransport({ baseUrl: 'https://x.example', connections: 1.5 })).toThrow(/connections must be a positive integer/);
  });
});

describe('endpoint', () => {
  it.each([
    ['http://h:1', '/api/v1/lrn', '/api/v1/lrn'],
    ['http://h:1/', '/api/v1/lrn', '/api/v1/lrn'],
    ['http://h:1/proxy', '/api/v1/lrn', '/proxy/api/v1/lrn'],
    ['http://h:1/proxy/', '/graphql', '/proxy/graphql'],
    ['http://h:1/a/b//', 'graphql', '/a/b/graphql'],
  ])('%s + %s → %s', (base, path, expected) => {
    const ep = endpoint(new URL(base), path);
    expect(ep.path).toBe(expected);
    expect(ep.href).toBe(`http://h:1${expected}`);
  });
});
