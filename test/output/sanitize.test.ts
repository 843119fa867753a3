import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { stripControl, stripEscapes } from '../../src/output/sanitize.js';
import { textWidth, wrapText } from '../../src/output/wrap.js';

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

  it('is the three replacements whatever the text (the test for a control or break first only skips them)', () => {
    // oxlint-disable-next-line no-control-regex
    const ESCAPE_SEQUENCE = /(?:\x1b\[|\x9b)[0-?]*[ -/]*[@-~]|(?:\x1b[\]PX^_]|[\x90\x98\x9d\x9e\x9f])[^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)?|\x1b[ -/]*[0-~]?/g;
    const LINE_BREAKS = /[\t\n\v\f\r\x85\u2028\u2029]+/g;
    // oxlint-disable-next-line no-control-regex
    const CONTROL = /[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/g;
    const chars = fc.constantFrom('a', '1', ' ', '[', ']', '\\', 'm', ';', '\x1b', '\x9b', '\x90', '\x9c', '\x07', '\t', '\n', '\r', '\x85', '\u2028', '\u2029', '\x00', '\x7f', '\u202e', '\u2066', 'é', '名');
    fc.assert(
      fc.property(fc.array(chars, { maxLength: 30 }), (parts) => {
        const text = parts.join('');
        expect(stripControl(text)).toBe(text.replace(ESCAPE_SEQUENCE, '').replace(LINE_BREAKS, ' ').replace(CONTROL, ''));
      }),
      { numRuns: 2000 },
    );
  });
});

describe('stripEscapes', () => {
  it('removes escape sequences and controls, keeps tabs and line breaks', () => {
    expect(stripEscapes('\x1b[31mred\x1b[0m\tok\r\n\x07\u202e')).toBe('red\tok\r\n');
    expect(stripEscapes('José 名前')).toBe('José 名前');
  });

  it('is the two replacements whatever the text (the test for a control first only skips them)', () => {
    // oxlint-disable-next-line no-control-regex
    const ESCAPE_SEQUENCE = /(?:\x1b\[|\x9b)[0-?]*[ -/]*[@-~]|(?:\x1b[\]PX^_]|[\x90\x98\x9d\x9e\x9f])[^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)?|\x1b[ -/]*[0-~]?/g;
    // oxlint-disable-next-line no-control-regex
    const CONTROL_BUT_BREAKS = /[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/g;
    const chars = fc.constantFrom('a', '1', ' ', '[', ']', '\\', 'm', ';', '\x1b', '\x9b', '\x90', '\x9c', '\x07', '\t', '\n', '\r', '\x00', '\x7f', '\u202e', '\u2066', 'é', '名');
    fc.assert(
      fc.property(fc.array(chars, { maxLength: 30 }), (parts) => {
        const text = parts.join('');
        expect(stripEscapes(text)).toBe(text.replace(ESCAPE_SEQUENCE, '').replace(CONTROL_BUT_BREAKS, ''));
      }),
      { numRuns: 2000 },
    );
  });
});

describe('wrapText', () => {
  it('wraps at word boundaries and splits words longer than a line', () => {
    expect(wrapText('short', 10)).toEqual(['short']);
    expect(wrapText('server_error: HTTP 503 after 5 retries', 16)).toEqual(['server_error:', 'HTTP 503 after 5', 'retries']);
    expect(wrapText('abcdefghij klm', 4)).toEqual(['abcd', 'efgh', 'ij', 'klm']);
    expect(wrapText('', 4)).toEqual(['']);
  });

  it('counts columns as a terminal shows them: wide characters two, combining marks none', () => {
    expect(textWidth('２０１５５５５０１２４')).toBe(22);
    expect(textWidth('名前 José')).toBe(9);
    expect(textWidth('e\u0301')).toBe(1);
    expect(wrapText('２０１５５５５０１２４', 6)).toEqual(['２０１', '５５５', '５０１', '２４']);
    expect(wrapText('東京 通信 株式会社', 8)).toEqual(['東京', '通信', '株式会社']);
  });

  it('never makes a line wider than asked, and loses nothing', () => {
    const piece = fc.constantFrom('a', 'b', ' ', '名', '２', 'é', 'e\u0301', '😀', '-');
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 40 }), fc.integer({ min: 2, max: 12 }), (parts, max) => {
        const text = parts.join('');
        const out = wrapText(text, max);
        for (const line of out) expect(textWidth(line)).toBeLessThanOrEqual(max);
        expect(out.join('').replace(/ /g, '')).toBe(text.replace(/ /g, ''));
      }),
      { numRuns: 2000 },
    );
  });
});
