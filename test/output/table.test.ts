import { describe, expect, it } from 'vitest';
import { CNAM, LRN, TRUST } from '../../src/core/lookups.js';
import type { OutputRecord } from '../../src/core/records.js';
import type { OutputLayout, SinkStyle } from '../../src/output/layout.js';
import { createSink } from '../../src/output/sink.js';
import { createTableSink } from '../../src/output/table.js';
import { textWidth } from '../../src/output/wrap.js';
import { CNAM_RESULT, Collect, ENHANCED, LRN_RESULT, MESSAGING, TRUST_RESULT, enriched, failed, ok } from './helpers.js';

// oxlint-disable-next-line no-control-regex
const ESC = /\x1b/;
// oxlint-disable-next-line no-control-regex
const SGR = /\x1b\[[0-9;]*m/g;
// oxlint-disable-next-line no-control-regex
const CONTROL = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u202e]/;
const lrn: OutputLayout = { mode: 'single', lookups: [LRN], options: {}, inputColumns: null };

async function table(layout: OutputLayout, records: OutputRecord[], style: SinkStyle = {}): Promise<string> {
  const out = new Collect();
  const sink = await createSink('table', out, layout, style);
  for (const r of records) await sink.write(r);
  await sink.end();
  return out.text;
}

const lines = (text: string) => text.split('\n').filter((l) => l !== '');
const width = (line: string) => [...line].length;

const basic = [
  ok('lrn', '(201) 555-0123', '12015550123', LRN_RESULT),
  failed('lrn', 'abc', null, { code: 'invalid_number', message: 'not a U.S. number' }),
];

describe('table sink', () => {
  it('leaves out the fields that only echo the number (CNAM number, trust phone_number)', async () => {
    const cnam: OutputLayout = { mode: 'single', lookups: [CNAM], options: { spam: true }, inputColumns: null };
    const two = [ok('cnam', '2015550123', '12015550123', CNAM_RESULT), ok('cnam', '2015550124', '12015550124', CNAM_RESULT)];
    const text = await table(cnam, two, { width: 120 });
    expect(lines(text).find((l) => l.includes('input'))).toMatch(/│ input\s+│ number\s+│ caller name\s+│ spam type\s+│$/);
    expect(text).not.toContain('cnam_number');
    const trust: OutputLayout = { mode: 'single', lookups: [TRUST], options: {}, inputColumns: null };
    const vertical = await table(trust, [ok('trust', '2015550123', '12015550123', TRUST_RESULT)], { width: 40 });
    expect(vertical).toMatch(/│ spam\s+│ true\s+│/);
    expect(vertical).not.toContain('phone_number');
  });

  it('puts few columns on one row per record, within the width', async () => {
    const text = await table(lrn, basic, { width: 100 });
    const header = lines(text).find((l) => l.includes('input'));
    expect(header).toMatch(/input.*number.*lrn.*activated.*status/);
    expect(lines(text).find((l) => l.includes('(201) 555-0123'))).toMatch(/12015550123.*12015550000.*2021-09-01T00:00:00\+00:00.*ok/);
    expect(text).toContain('invalid_number: not a');
    for (const l of lines(text)) expect(width(l)).toBeLessThanOrEqual(100);
  });

  it('goes vertical (field | value) when the columns do not fit', async () => {
    // The number, the LRN and a status need 40 columns.
    const text = await table(lrn, basic, { width: 38 });
    expect(text).not.toMatch(/number.*lrn/);
    expect(lines(text).find((l) => l.includes('activated'))).toMatch(/│ activated\s+│ 2021-09-01T00:00:/);
    expect(lines(text).find((l) => l.includes('(201) 555-0123'))).toContain('12015550123');
    for (const l of lines(text)) expect(width(l)).toBeLessThanOrEqual(38);
    // Narrower still: values wrap inside the box rather than overflow it.
    for (const l of lines(await table(lrn, basic, { width: 36 }))) expect(width(l)).toBeLessThanOrEqual(36);
  });

  it('shows one row asked for field by field, all its fields under their labels', async () => {
    const full = await table({ ...lrn, options: { enhanced: true, messaging: true } }, [
      ok('lrn', '2015550123', '12015550123', { ...LRN_RESULT, enhanced_lrn_data: ENHANCED, messaging: MESSAGING }),
    ]);
    expect(full).toMatch(/│ carrier\s+│ Verizon Wireless\s+│/);
    expect(full).toMatch(/│ messaging on\s+│ true\s+│/);
    expect(full).toMatch(/│ status\s+│ ok\s+│/);

    const rich = await table({ mode: 'enrich', lookups: [LRN, CNAM, TRUST], options: {}, inputColumns: null }, [
      enriched('2015550123', '12015550123', { lrn: LRN_RESULT, cnam: null, trust: TRUST_RESULT }, { cnam: { code: 'timeout', message: 'no answer in 15 s' } }),
    ]);
    expect(rich).toMatch(/│ lrn\s+│ 12015550000\s+│/);
    expect(rich).toMatch(/│ cnam error\s+│ timeout: no answer in 15 s\s+│/);
    expect(rich).not.toContain('caller name'); // a failed lookup shows its error, not empty fields
    expect(rich).toMatch(/│ spam\s+│ true\s+│/);
    expect(rich).toMatch(/│ trust\s+│ low\s+│/);
    expect(rich).not.toMatch(/lrn_lrn|cnam_cnam|trust_trust_level|_/);
    expect(rich).toMatch(/│ status\s+│ failed\s+│/);
    for (const t of [full, rich]) for (const l of lines(t)) expect(width(l)).toBeLessThanOrEqual(80);
  });

  it('writes no escape codes without colour, and colours when asked', async () => {
    const records = [
      ...basic,
      ok('cnam', '1', '12015550123', { ...CNAM_RESULT, spam_type: 'SCAM' }),
    ];
    const layout: OutputLayout = { mode: 'single', lookups: [CNAM], options: { spam: true }, inputColumns: null };
    const cnamRecords = [records[2]!, failed('cnam', 'abc', null, { code: 'invalid_number', message: 'bad' })];
    const plain = await table(layout, cnamRecords, { color: false });
    expect(plain).not.toMatch(ESC);
    expect(plain).toContain('SCAM');

    const coloured = await table(layout, cnamRecords, { color: true, width: 120 });
    expect(coloured).toContain('\x1b[31minvalid_number: bad\x1b[39m'); // errors red
    expect(coloured).toContain('\x1b[32mok\x1b[39m'); // ok green
    expect(coloured).toContain('\x1b[33mSCAM\x1b[39m'); // spam flags highlighted
    expect(coloured.replace(SGR, '')).toBe(await table(layout, cnamRecords, { color: false, width: 120 }));
  });

  it('strips control characters and escape sequences from what it shows', async () => {
    const text = await table(lrn, [
      ok('lrn', 'in\x1b]0;title\x07put', '12015550123', { lrn: '\x1b[2J1201\x9b31m555\x07', lrn_activated_at: 'a\nb\tc\x00d\u202ee' }),
    ], { width: 120 });
    expect(text).not.toMatch(CONTROL);
    expect(text).toContain('input');
    expect(text).toContain('1201555');
    expect(text).toContain('a b cde');
  });

  it('shows wide characters whole, the box aligned as a terminal shows it', async () => {
    const text = await table(lrn, [ok('lrn', '２０１５５５５０１２３', '12015550123', { ...LRN_RESULT, lrn_activated_at: '東京 2021' })], { width: 120 });
    expect(text).toContain('２０１５５５５０１２３');
    expect(text).toContain('東京 2021');
    expect(new Set(lines(text).map(textWidth)).size).toBe(1);
  });

  it('streams in chunks and prints nothing for an empty run', async () => {
    expect(await table(lrn, [])).toBe('');
    const out = new Collect();
    const sink = createTableSink(out, lrn, {}, 50);
    const record = ok('lrn', '1', '12015550123', LRN_RESULT);
    for (let i = 0; i < 49; i++) await sink.write(record);
    expect(out.chunks).toHaveLength(0);
    await sink.write(record);
    expect(out.chunks).toHaveLength(1);
    expect(out.text.match(/12015550000/g)).toHaveLength(50);
    for (let i = 0; i < 70; i++) await sink.write(record);
    expect(out.chunks).toHaveLength(2);
    await sink.end();
    expect(out.chunks).toHaveLength(3);
    expect(out.text.match(/12015550000/g)).toHaveLength(120);
  });

  it('stays vertical once a chunk needed it, so the layout does not flip', async () => {
    const out = new Collect();
    const sink = createTableSink(out, lrn, { width: 31 }, 1);
    await sink.write(failed('lrn', 'x'.repeat(100), '12015550123', { code: 'server_error', message: 'x'.repeat(200) }));
    await sink.write(ok('lrn', '2', '12015550124', LRN_RESULT));
    await sink.end();
    expect(out.chunks).toHaveLength(2);
    expect(out.chunks[1]).toMatch(/│ lrn\s+│ 12015550000\s+│/);
    // Long text wraps inside the box instead of widening it, and none of it is lost.
    for (const l of lines(out.text)) expect(width(l)).toBeLessThanOrEqual(31);
    expect(out.text.replace(/[^x]/g, '')).toHaveLength(300);
  });

  describe('enrich of a CSV: one table, a row per input row', () => {
    const people = [
      ['Ada Lovelace', 'Analytical Engines Ltd', '(201) 555-0123', 'Hoboken'],
      ['Katherine Johnson', 'NASA Langley Research Center', '201.555.0124', 'Hampton'],
      ['Grace Hopper', 'US Navy', '2015550125', 'Arlington'],
    ];
    const layout: OutputLayout = { mode: 'enrich', lookups: [LRN, CNAM, TRUST], options: {}, inputColumns: ['name', 'company', 'phone', 'city'], numberColumn: 2 };
    const records = people.map(([name, company, phone, city], i) => ({
      ...enriched(phone!, `1201555012${3 + i}`, { lrn: LRN_RESULT, cnam: { ...CNAM_RESULT, cnam: 'SMITH JOHN' }, trust: TRUST_RESULT }),
      row: { name: name!, company: company!, phone: phone!, city: city! },
    }));
    const cellsOf = (line: string) => line.split('│').slice(1, -1).map((c) => c.trim());

    it('at 80 columns: the name, the number, lrn, caller name, trust under clean labels, within the width', async () => {
      const text = await table(layout, records, { width: 80 });
      const all = lines(text);
      expect(all).toHaveLength(records.length + 4);
      expect(cellsOf(all[1]!)).toEqual(['name', 'number', 'lrn', 'caller name', 'trust']);
      expect(cellsOf(all[3]!)).toEqual(['Ada Lovelace', '12015550123', '12015550000', 'SMITH JOHN', 'low']);
      expect(cellsOf(all[4]!)[0]).toBe('Katherine Johnson');
      for (const l of all) expect(width(l)).toBeLessThanOrEqual(80);
      expect(text).not.toMatch(/lrn_lrn|cnam_cnam|trust_trust_level|phone/);
    });

    it('--spam at 80 columns: still one table, the one spam type unprefixed until its twin is shown too', async () => {
      const spam = { ...layout, options: { spam: true } };
      const at80 = lines(await table(spam, records, { width: 80 }));
      expect(at80).toHaveLength(records.length + 4);
      expect(cellsOf(at80[1]!)).toEqual(['name', 'number', 'lrn', 'caller name', 'spam type', 'trust']);
      for (const l of at80) expect(width(l)).toBeLessThanOrEqual(80);
      // Wide enough for trust's spam type: both say their lookup, and the row still fits.
      for (const w of [150, 170, 190]) {
        const all = lines(await table(spam, records, { width: w }));
        const head = cellsOf(all[1]!);
        expect(head.includes('cnam spam type')).toBe(head.includes('trust spam type'));
        expect(head.includes('spam type')).toBe(!head.includes('trust spam type'));
        for (const l of all) expect(width(l)).toBeLessThanOrEqual(w);
      }
    });

    it('at 120 columns: every identifying column in input order, a long one cut with an ellipsis; then more result columns', async () => {
      const all = lines(await table(layout, records, { width: 120 }));
      expect(all).toHaveLength(records.length + 4);
      const head = cellsOf(all[1]!);
      expect(head.slice(0, 5)).toEqual(['name', 'company', 'city', 'number', 'lrn']);
      expect(head).toContain('caller name');
      expect(head).toContain('trust');
      expect(cellsOf(all[4]!).slice(0, 3)).toEqual(['Katherine Johnson', 'NASA Langley Research C…', 'Hampton']);
      for (const l of all) expect(width(l)).toBeLessThanOrEqual(120);
    });

    it('wide enough for every field: all of them, two fields of one label told apart by their lookup', async () => {
      const spam = { ...layout, options: { spam: true } };
      const head = cellsOf(lines(await table(spam, records, { width: 250 }))[1]!);
      expect(head).toEqual(['name', 'company', 'city', 'number', 'lrn', 'activated', 'caller name', 'cnam spam type', 'spam', 'robocall', 'scam', 'trust spam type', 'score', 'trust', 'updated']);
    });

    it('a failed lookup: one status column naming it, the others ok', async () => {
      const mixed = [...records.slice(0, 2), { ...enriched('2015550125', '12015550125', { lrn: LRN_RESULT, cnam: null, trust: TRUST_RESULT }, { cnam: { code: 'timeout', message: 'no answer' } }), row: { name: 'Grace Hopper', company: 'US Navy', phone: '2015550125', city: 'Arlington' } }];
      const all = lines(await table(layout, mixed, { width: 80 }));
      expect(cellsOf(all[1]!).at(-1)).toBe('status');
      expect(cellsOf(all[3]!).at(-1)).toBe('ok');
      // The status cut to its column, its whole text under the table, named by who the row is.
      const bottom = all.findIndex((l) => l.startsWith('└'));
      expect(cellsOf(all[bottom - 1]!).at(-1)).toMatch(/^cnam: t.*…$/);
      expect(all.slice(bottom + 1)).toEqual(['Grace Hopper 2015550125: cnam: timeout: no answer']);
      for (const l of all) expect(width(l)).toBeLessThanOrEqual(80);
    });
  });

  it('a number no lookup accepts: its error said once, and who the row is still shown at 80 columns', async () => {
    const layout: OutputLayout = { mode: 'enrich', lookups: [LRN, CNAM, TRUST], options: {}, inputColumns: ['name', 'phone'], numberColumn: 1 };
    const bad = { code: 'invalid_number' as const, message: 'too short (3 digits)' };
    const records = [
      { ...enriched('2015550123', '12015550123', { lrn: LRN_RESULT, cnam: CNAM_RESULT, trust: TRUST_RESULT }), row: { name: 'Ada Lovelace', phone: '2015550123' } },
      { ...enriched('123', '', { lrn: null, cnam: null, trust: null }, { lrn: bad, cnam: bad, trust: bad }), row: { name: 'Bob Smith', phone: '123' } },
    ];
    const text = await table(layout, records, { width: 80 });
    const cells = lines(text).map((l) => l.split('│').slice(1, -1).map((c) => c.trim()));
    expect(cells[1]?.[0]).toBe('name');
    expect(cells[1]?.at(-1)).toBe('status');
    expect(cells[4]?.[0]).toBe('Bob Smith');
    // One line a row: the status cut, its whole text once (not once per lookup) under the table.
    expect(cells[4]?.at(-1)).toMatch(/^invalid.*…$/);
    expect(cells[5]).toEqual([]);
    expect(text.split('\n').filter((l) => l.includes('too short'))).toEqual(['Bob Smith 123: invalid_number: too short (3 digits)']);
    for (const l of lines(text)) expect(width(l)).toBeLessThanOrEqual(80);
  });

  it("labels a lookup's fields from its descriptor, its column names with spaces where it gives none", async () => {
    const bare = { ...TRUST, fields: TRUST.fields.map((f) => ({ ...f, label: undefined, glance: f.name === 'trust_level' })) };
    const layout: OutputLayout = { mode: 'single', lookups: [bare], options: {}, inputColumns: null };
    const text = await table(layout, [ok('trust', '2015550123', '12015550123', TRUST_RESULT), ok('trust', '2015550124', '12015550124', TRUST_RESULT)], { width: 200 });
    expect(lines(text)[1]).toMatch(/│ input\s+│ number\s+│ is spam\s+│ is robocall\s+│ is scam\s+│ spam type\s+│ reputation score\s+│ trust level\s+│ last updated\s+│/);
  });
});
