import { setImmediate as tick } from 'node:timers/promises';
import { parse } from 'csv-parse/sync';
import { stringify } from 'csv-stringify/sync';
import { describe, expect, it } from 'vitest';
import { CNAM, LRN, TRUST } from '../../src/core/lookups.js';
import type { OutputRecord } from '../../src/core/records.js';
import type { OutputLayout, SinkStyle } from '../../src/output/layout.js';
import { csvLine } from '../../src/output/csv.js';
import { neutraliseFormula } from '../../src/output/sanitize.js';
import { createSink } from '../../src/output/sink.js';
import { CNAM_RESULT, Collect, ENHANCED, LRN_RESULT, MESSAGING, TRUST_RESULT, enriched, failed, ok } from './helpers.js';

async function csv(layout: OutputLayout, records: OutputRecord[], style: SinkStyle = {}): Promise<{ text: string; rows: string[][] }> {
  const out = new Collect();
  const sink = await createSink('csv', out, layout, style);
  for (const r of records) await sink.write(r);
  await sink.end();
  return { text: out.text, rows: parse(out.text, { relax_column_count: true }) as string[][] };
}

const lrn: OutputLayout = { mode: 'single', lookups: [LRN], options: {}, inputColumns: null };

describe('csv sink', () => {
  it('writes the header and one row per record, `\\n` line ends', async () => {
    const { text } = await csv(lrn, [
      ok('lrn', '(201) 555-0123', '12015550123', LRN_RESULT),
      failed('lrn', 'abc', null, { code: 'invalid_number', message: 'not a U.S. number' }),
    ]);
    expect(text).toBe(
      'input,number,lrn,lrn_activated_at,error\n' +
        '(201) 555-0123,12015550123,12015550000,2021-09-01T00:00:00+00:00,\n' +
        'abc,,,,invalid_number: not a U.S. number\n',
    );
  });

  it('writes the header as it opens, before any record, and for an empty run', async () => {
    const out = new Collect();
    const sink = await createSink('csv', out, lrn);
    expect(out.text).toBe('input,number,lrn,lrn_activated_at,error\n');
    await sink.write(ok('lrn', '1', '12015550123', LRN_RESULT));
    await tick();
    expect(out.text.split('\n')[0]).toBe('input,number,lrn,lrn_activated_at,error');
    expect((await csv(lrn, [])).text).toBe('input,number,lrn,lrn_activated_at,error\n');
  });

  it('writes no header when appending', async () => {
    const { text } = await csv({ ...lrn, appending: true }, [ok('lrn', '1', '12015550123', LRN_RESULT)]);
    expect(text).toBe('1,12015550123,12015550000,2021-09-01T00:00:00+00:00,\n');
    expect((await csv({ ...lrn, appending: true }, [])).text).toBe('');
  });

  it('flattens enhanced and messaging data, booleans as true/false, null as empty', async () => {
    const layout: OutputLayout = { ...lrn, options: { enhanced: true, messaging: true } };
    const { rows } = await csv(layout, [
      ok('lrn', '1', '12015550123', { lrn: '12015550000', lrn_activated_at: null, enhanced_lrn_data: ENHANCED, messaging: MESSAGING }),
      ok('lrn', '2', '12015550124', { lrn: '12015550001', lrn_activated_at: null, enhanced_lrn_data: null, messaging: { ...MESSAGING, enabled: false } }),
    ]);
    const [head, first, second] = rows;
    const at = (row: string[] | undefined, col: string) => row?.[head!.indexOf(col)];
    expect(at(first, 'lrn_activated_at')).toBe('');
    expect(at(first, 'carrier')).toBe('Verizon Wireless');
    expect(at(first, 'zip_code')).toBe('07302');
    expect(at(first, 'messaging_enabled')).toBe('true');
    expect(at(second, 'messaging_enabled')).toBe('false');
    expect(at(second, 'carrier')).toBe('');
    expect(first).toHaveLength(head!.length);
  });

  it('quotes commas, quotes, CR and newlines (RFC 4180) and round-trips them', async () => {
    const tricky = 'Smith, "Bob"\r\nJr.';
    const { text, rows } = await csv({ ...lrn, inputColumns: ['name', 'phone'] }, [
      ok('lrn', '201,555', '12015550123', { lrn: 'a,b', lrn_activated_at: 'say "hi"\nthere' }, { name: tricky, phone: '201,555' }),
    ]);
    expect(text).toContain('"Smith, ""Bob""\r\nJr."');
    expect(rows[1]).toEqual([tricky, '201,555', '12015550123', 'a,b', 'say "hi"\nthere', '']);
  });

  it('passes CSV input columns through unchanged and in order, padding short rows', async () => {
    const layout: OutputLayout = { mode: 'single', lookups: [CNAM], options: { spam: true }, inputColumns: ['id', 'phone', 'note'] };
    const { rows } = await csv(layout, [
      ok('cnam', '201-555-0123', '12015550123', CNAM_RESULT, { id: '7', phone: '201-555-0123', note: '=SUM(A1)' }),
      failed('cnam', '555', null, { code: 'invalid_number', message: 'too short' }, { id: '8', phone: '555' }),
    ]);
    expect(rows).toEqual([
      ['id', 'phone', 'note', 'number', 'cnam_number', 'cnam', 'spam_type', 'error'],
      ['7', '201-555-0123', '=SUM(A1)', '12015550123', '12015550123', 'ACME CORP', 'NONE', ''],
      ['8', '555', '', '', '', '', '', 'invalid_number: too short'],
    ]);
  });

  it('fills renamed added columns without touching the clashing input columns', async () => {
    const layout: OutputLayout = { mode: 'single', lookups: [TRUST], options: {}, inputColumns: ['number', 'phone_number', 'error'] };
    const { rows } = await csv(layout, [
      ok('trust', '2015550123', '12015550123', TRUST_RESULT, { number: 'mine', phone_number: '2015550123', error: 'none' }),
    ]);
    const [head, row] = rows;
    const at = (col: string) => row?.[head!.indexOf(col)];
    expect(head!.slice(0, 3)).toEqual(['number', 'phone_number', 'error']);
    expect([at('number'), at('phone_number'), at('error')]).toEqual(['mine', '2015550123', 'none']);
    expect([at('numintel_number'), at('numintel_phone_number'), at('numintel_error')]).toEqual(['12015550123', '12015550123', '']);
    expect(at('is_spam')).toBe('true');
  });

  it('writes enrich records side by side with per-lookup errors', async () => {
    const layout: OutputLayout = { mode: 'enrich', lookups: [LRN, CNAM, TRUST], options: {}, inputColumns: null };
    const { rows } = await csv(layout, [
      enriched('1', '12015550123', { lrn: LRN_RESULT, cnam: null, trust: TRUST_RESULT }, { cnam: { code: 'server_error', message: 'HTTP 503', status: 503 } }),
    ]);
    const [head, row] = rows;
    const at = (col: string) => row?.[head!.indexOf(col)];
    expect(at('lrn_lrn')).toBe('12015550000');
    expect(at('lrn_error')).toBe('');
    expect(at('cnam_cnam')).toBe('');
    expect(at('cnam_error')).toBe('server_error: HTTP 503');
    expect(at('trust_is_spam')).toBe('true');
    expect(at('trust_reputation_score')).toBe('12');
    expect(row).toHaveLength(head!.length);
  });

  describe('formula neutralisation', () => {
    const layout: OutputLayout = { mode: 'single', lookups: [CNAM], options: {}, inputColumns: ['name', 'phone'] };
    const evil = [
      ok('cnam', '=1+1', '12015550123', { number: '+12015550123', cnam: '=HYPERLINK("http://x")' }, { name: '@SUM(1)', phone: '=1+1' }),
      ok('cnam', '-2', '12015550124', { number: '-5', cnam: '\tcmd' }, { name: '+x', phone: '-2' }),
      failed('cnam', '3', '12015550125', { code: 'bad_response', message: 'x' }, { name: 'n', phone: '3' }),
    ];

    it('neutralises service cells and leaves input columns and our own cells alone', async () => {
      const { rows } = await csv(layout, evil);
      expect(rows[1]).toEqual(['@SUM(1)', '=1+1', '12015550123', '+12015550123', `'=HYPERLINK("http://x")`, '']);
      expect(rows[2]).toEqual(['+x', '-2', '12015550124', '-5', `'\tcmd`, '']);
    });

    it('removes terminal escape sequences and control characters from service text, keeping line breaks', async () => {
      const esc = String.fromCharCode(27);
      const records = [ok('cnam', '1', '12015550123', { number: '12015550123', cnam: `${esc}[31mRED${esc}[0m ${esc}]0;title${String.fromCharCode(7)}CO\u0000RP\nLINE 2` }, { name: `${esc}[1mkept`, phone: '1' })];
      const { rows } = await csv(layout, records);
      expect(rows[1]?.[4]).toBe('RED CORP\nLINE 2');
      // The user's own cells are theirs: unchanged.
      expect(rows[1]?.[0]).toBe(`${esc}[1mkept`);
      const raw = await csv(layout, records, { rawCsv: true });
      expect(raw.rows[1]?.[4]).toContain(`${esc}[31m`);
    });

    it('is switched off by rawCsv', async () => {
      const { rows } = await csv(layout, evil, { rawCsv: true });
      expect(rows[1]).toEqual(['@SUM(1)', '=1+1', '12015550123', '+12015550123', '=HYPERLINK("http://x")', '']);
      expect(rows[2]?.[4]).toBe('\tcmd');
    });

    it('neutralises list input’s service cells too, but not the input column', async () => {
      const { rows } = await csv({ ...layout, inputColumns: null }, [ok('cnam', '=1', '12015550123', { number: '1', cnam: '@x' })]);
      expect(rows[1]).toEqual(['=1', '12015550123', '1', `'@x`, '']);
    });

    it.each([
      ['=1+2', "'=1+2"],
      ['+cmd', "'+cmd"],
      ['-2+3+cmd|x', "'-2+3+cmd|x"],
      ['@SUM', "'@SUM"],
      ['\tx', "'\tx"],
      ['\rx', "'\rx"],
      ['+12015550123', '+12015550123'],
      ['-12.5', '-12.5'],
      ['ACME', 'ACME'],
      ['', ''],
    ])('%j → %j', (cell, expected) => {
      expect(neutraliseFormula(cell)).toBe(expected);
    });
  });
});

describe('csvLine', () => {
  // As csv-stringify with its RFC 4180 defaults; given a record_delimiter it would stop quoting a
  // lone CR, which csv-parse and spreadsheets then take for a line end.
  it('quotes exactly as csv-stringify does (CR and LF both quoted), for awkward cells', () => {
    const awkward = ['', 'plain', 'a,b', 'say "hi"', '"', 'line\nbreak', 'cr\rhere', 'crlf\r\n', ' spaced ', "'=1", 'ünï', ',', '""'];
    for (const a of awkward) {
      for (const b of awkward) {
        const cells = [a, b, 'x'];
        expect(csvLine(cells)).toBe(stringify([cells], { record_delimiter: '\n', quote_record_delimiter: true }));
      }
      expect(csvLine([a])).toBe(stringify([[a]], { record_delimiter: '\n', quote_record_delimiter: true }));
    }
    expect(parse(csvLine(['cr\rhere', 'b']) + csvLine(['c', 'd']))).toEqual([['cr\rhere', 'b'], ['c', 'd']]);
  });
});
