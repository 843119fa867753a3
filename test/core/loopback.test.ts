import { describe, expect, it } from 'vitest';
import { isLoopback } from '../../src/core/loopback.js';

describe('isLoopback', () => {
  it.each([
    // As a WHATWG URL gives the host name.
    ['localhost', true],
    ['127.0.0.1', true],
    ['127.255.255.254', true],
    ['[::1]', true],
    ['[::ffff:7f00:1]', true],
    // As a user types --host.
    [' LocalHost ', true],
    ['::1', true],
    ['0:0:0:0:0:0:0:1', true],
    ['::ffff:127.0.0.1', true],
    // Not loopback.
    ['127.0.0.1.nip.io', false],
    ['example.com', false],
    ['[::ffff:a00:1]', false],
    ['::ffff:10.0.0.1', false],
    ['0.0.0.0', false],
    ['::', false],
  ])('%s → %s', (host, expected) => {
    expect(isLoopback(host)).toBe(expected);
  });
});
