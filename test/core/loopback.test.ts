import fc from 'fast-check';
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
    ['127.0.0', false],
    ['127.0.0.1234', false],
    ['127.a.0.1', false],
    ['::ffff:7f00:12345', false],
    ['::ffff:7f0:1', false],
  ])('%s → %s', (host, expected) => {
    expect(isLoopback(host)).toBe(expected);
  });

  it('agrees with the patterns it spells out, on any host made of their characters', () => {
    const pattern = (host: string): boolean => {
      const h = host.trim().toLowerCase().replace(/^\[|\]$/g, '');
      if (h === 'localhost' || h === '::1' || h === '0:0:0:0:0:0:0:1') return true;
      return /^(?:::ffff:)?127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h) || /^::ffff:7f[0-9a-f]{2}:[0-9a-f]{1,4}$/.test(h);
    };
    const piece = fc.constantFrom('127', '.', '1', '0', '255', '1234', ':', '::ffff:', '7f', '7F', 'a', 'g', '[', ']', ' ', '::1', 'localhost');
    const host = fc.array(piece, { maxLength: 9 }).map((parts) => parts.join(''));
    fc.assert(
      fc.property(host, (h) => {
        expect(isLoopback(h)).toBe(pattern(h));
      }),
      { numRuns: 20_000 },
    );
  });
});
