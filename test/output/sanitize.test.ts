import { describe, expect, it } from 'vitest';
import { stripControl } from '../../src/output/sanitize.js';
import { wrapText } from '../../src/output/wrap.js';

describe('stripControl', () => {
  it.each([
    ['plain text', 'plain text'],
    ['\x1b[31mred\x1b[0m', 'red'],
    ['\x9b2Jx', 'x'],
    ['a\x1b]8;;http://evil\x1b\\link\x1b]8;;\x1b\\b', 'alinkb'],
    ['bell\x07', 'bell'],
    ['line\r\nbreak\ttab', 'line break tab'],
    ['nul\x00del\x7fc1\x85x\x90', 'nuldelc1 x'],
    ['bidi\u202eevil\u2066', 'bidievil'],
    ['José Ñandú 名前', 'José Ñandú 名前'],
  ])('%j → %j', (input, expected) => {
    expect(stripControl(input)).toBe(expected);
  });
});

describe('wrapText', () => {
  it('wraps at word boundaries and splits words longer than a line', () => {
    expect(wrapText('short', 10)).toEqual(['short']);
    expect(wrapText('server_error: HTTP 503 after 5 retries', 16)).toEqual(['server_error:', 'HTTP 503 after 5', 'retries']);
    expect(wrapText('abcdefghij klm', 4)).toEqual(['abcd', 'efgh', 'ij', 'klm']);
    expect(wrapText('', 4)).toEqual(['']);
  });
});
