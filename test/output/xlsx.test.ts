// The xlsx sink, read back with the library's own (non-streaming) reader: the CSV writer's columns,
// every cell a text cell, the header frozen, service text neutralised as in CSV, input cells as given.
import { Writable } from 'node:stream';
import { Workbook, ValueType } from '@cj-tech-master/excelts';
import { describe, expect, it } from 'vitest';
import { CNAM, LRN } from '../../src/core/lookups.js';
import type { OutputRecord } from '../../src/core/records.js';
import { csvHeader } from '../../src/output/csv-layout.js';
import type { OutputLayout, SinkStyle } from '../../src/output/layout.js';
import { createSink } from '../../src/output/sink.js';
import { LRN_RESULT, failed, ok } from './helpers.js';

class Bytes extends Writable {
  readonly chunks: Buffer[] = [];
  override _write(chunk: Buffer, _enc: BufferEncoding, cb: () => void): void {
    this.chunks.push(chunk);
    cb();
  }
}

async function xlsx(layout: OutputLayout, records: OutputRecord[], style: SinkStyle = {}) {
  const out = new Bytes();
  const sink = await createSink('xlsx', out, layout, style);
  for (const r of records) await sink.write(r);
  await sink.end();
  // The sink leaves its stream open, as every sink does.
  expect(out.writableEnded).toBe(false);
  const wb = new Workbook();
  await wb.xlsx.load(Buffer.concat(out.chunks));
  const ws = wb.worksheets[0]!;
  const rows: string[][] = [];
  const types: ValueType[] = [];
  ws.eachRow((row) => {
    const cells: string[] = [];
    row.eachCell({ includeEmpty: true }, (cell) => {
      cells.push(cell.value === null ? '' : (cell.value as string));
      if (cell.value !== null) types.push(cell.type);
    });
    rows.push(cells);
  });
  return { rows, types, views: ws.views, sheets: wb.worksheets.length };
}

describe('xlsx sink', () => {
  const layout: OutputLayout = { mode: 'single', lookups: [CNAM], options: {}, inputColumns: ['name', 'phone', 'id'] };
  const records = [
    ok('cnam', '+1 201 555 0123', '12015550123', { number: '+12015550123', cnam: '=HYPERLINK("http://x")' }, { name: '@SUM(1)', phone: '+1 201 555 0123', id: '007' }),
    failed('cnam', '3', null, { code: 'invalid_number', message: 'not a number' }, { name: 'Bo', phone: '3', id: '12015550124' }),
  ];

  it('writes the CSV columns as text cells, the header frozen, service text neutralised, input cells as given', async () => {
    const { rows, types, views, sheets } = await xlsx(layout, records);
    expect(sheets).toBe(1);
    expect(rows[0]).toEqual(csvHeader(layout));
    expect(rows[1]!.slice(0, 6)).toEqual(['@SUM(1)', '+1 201 555 0123', '007', '12015550123', '+12015550123', `'=HYPERLINK("http://x")`]);
    expect(rows[2]!.slice(0, 4)).toEqual(['Bo', '3', '12015550124', '']);
    expect(rows[2]).toContain('invalid_number: not a number');
    expect(new Set(types)).toEqual(new Set([ValueType.String]));
    expect(views[0]).toMatchObject({ state: 'frozen', ySplit: 1 });
  });

  it('--raw-csv keeps service text as sent', async () => {
    const { rows } = await xlsx(layout, records, { rawCsv: true });
    expect(rows[1]![5]).toBe('=HYPERLINK("http://x")');
  });

  it('an empty run still has its header row', async () => {
    const lrn: OutputLayout = { mode: 'single', lookups: [LRN], options: {}, inputColumns: null };
    const { rows } = await xlsx(lrn, []);
    expect(rows).toEqual([csvHeader(lrn)]);
  });

  it('drops the characters XML cannot hold, which would make the file unreadable', async () => {
    const lrn: OutputLayout = { mode: 'single', lookups: [LRN], options: {}, inputColumns: ['note', 'phone'] };
    const { rows } = await xlsx(lrn, [ok('lrn', '2015550123', '12015550123', LRN_RESULT, { note: 'a\u0001b\u0000c', phone: '2015550123' })]);
    expect(rows[1]![0]).toBe('abc');
  });
});
