// TSV output: the CSV sink's columns and rows with a tab between cells, read back by csv-parse
// with a tab delimiter (as numintel reads a .tsv input, and as spreadsheets open it).
import { parse } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import { LRN } from '../../src/core/lookups.js';
import type { OutputRecord } from '../../src/core/records.js';
import { csvLine } from '../../src/output/csv.js';
import type { OutputLayout } from '../../src/output/layout.js';
import { createSink } from '../../src/output/sink.js';
import { Collect, LRN_RESULT, failed, ok } from './helpers.js';

async function written(format: 'csv' | 'tsv', layout: OutputLayout, records: OutputRecord[]): Promise<string> {
  const out = new Collect();
  const sink = await createSink(format, out, layout);
  for (const r of records) await sink.write(r);
  await sink.end();
  return out.text;
}

const csvInput: OutputLayout = { mode: 'single', lookups: [LRN], options: {}, inputColumns: ['name', 'phone', 'note'] };
const row = (name: string, phone: string, note: string) => ({ name, phone, note });
const RECORDS: OutputRecord[] = [
  ok('lrn', '2015550123', '12015550123', LRN_RESULT, row('Acme, Inc.', '2015550123', 'tab\there')),
  ok('lrn', '2015550124', '12015550124', LRN_RESULT, row('Zoë "Z"', '2015550124', 'two\nlines')),
  failed('lrn', 'abc', null, { code: 'invalid_number', message: 'not a U.S. number' }, row('Al', 'abc', '')),
];

describe('tsv sink', () => {
  it('writes the CSV columns and cells, tab-separated, quoting only a cell with a tab, quote or line break', async () => {
    const tsv = await written('tsv', csvInput, RECORDS);
    expect(tsv.split('\n')[0]).toBe('name\tphone\tnote\tnumber\tlrn\tlrn_activated_at\terror');
    expect(tsv.split('\n')[1]).toBe('Acme, Inc.\t2015550123\t"tab\there"\t12015550123\t12015550000\t2021-09-01T00:00:00+00:00\t');
    const csv = await written('csv', csvInput, RECORDS);
    expect(parse(tsv, { delimiter: '\t', relax_column_count: false })).toEqual(parse(csv, { relax_column_count: false }));
  });

  it('writes the header of an empty run', async () => {
    expect(await written('tsv', { ...csvInput, inputColumns: null }, [])).toBe('input\tnumber\tlrn\tlrn_activated_at\terror\n');
  });

  it('quotes as CSV does with a tab for the comma', () => {
    expect(csvLine(['a,b', 'c\td', 'e"f', 'g\rh', ''], '\t')).toBe('a,b\t"c\td"\t"e""f"\t"g\rh"\t\n');
    expect(csvLine(['a,b', 'c\td'])).toBe('"a,b",c\td\n');
  });
});
