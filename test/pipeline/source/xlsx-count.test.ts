// Counting a workbook's rows without reading its cells (for xlsx output's row limit and the
// progress bar) gives the rows the reader yields: the same workbooks are read both ways.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { countWorkbookRows, workbookRows, xmlPieces } from '../../../src/pipeline/source/xlsx.js';
import { tempDir } from '../../support/tmp.js';
import { leadsSheet, leadsWorkbook, RELS, SHARED, WORKBOOK, zipOf } from './zip-fixture.js';

/** The workbook's bytes in pieces of `size`, so that tags fall across chunks. */
const pieces = (bytes: Buffer, size: number) => Readable.from(Array.from({ length: Math.ceil(bytes.length / size) }, (_, i) => bytes.subarray(i * size, (i + 1) * size)));

async function rowsRead(bytes: Buffer, sheet?: string): Promise<number> {
  let rows = 0;
  for await (const batch of workbookRows(Readable.from([bytes]), 'leads.xlsx', sheet)) rows += batch.length;
  return rows;
}

describe('counting a workbook sheet without reading its cells', () => {
  for (const sharedFirst of [true, false]) {
    it(`gives the rows the reader yields, shared strings ${sharedFirst ? 'before' : 'after'} the sheets, an empty row and page breaks in the sheet`, async () => {
      const bytes = leadsWorkbook(1000, { sharedFirst });
      expect(await rowsRead(bytes, 'Leads')).toBe(1001);
      expect(await countWorkbookRows(Readable.from([bytes]), 'leads.xlsx', 'Leads')).toBe(1001);
      expect(await countWorkbookRows(Readable.from([bytes]), 'leads.xlsx', '2')).toBe(1001);
      expect(await countWorkbookRows(Readable.from([bytes]), 'leads.xlsx')).toBe(await rowsRead(bytes));
    });
  }

  it('counts tags split across chunks once', async () => {
    const bytes = leadsWorkbook(300, { sharedFirst: true });
    for (const size of [1, 3, 5, 64]) expect(await countWorkbookRows(pieces(bytes, size), 'leads.xlsx', 'Leads')).toBe(301);
  });

  it('the sheet goes to the parser in pieces cut after a tag, a character split between chunks kept whole', async () => {
    const xml = `<sheetData>${Array.from({ length: 2000 }, (_, i) => `<row r="${i}"><c><is><t>Zoë 名前 🙂 ${i}</t></is></c></row>`).join('')}</sheetData>`;
    const bytes = Buffer.from(xml);
    // Chunks of 7 bytes split most multi-byte characters.
    const chunks = Array.from({ length: Math.ceil(bytes.length / 7) }, (_, i) => bytes.subarray(i * 7, (i + 1) * 7));
    for (const input of [chunks, [bytes]]) {
      const got: string[] = [];
      for await (const piece of xmlPieces(Readable.from(input))) got.push(piece);
      expect(got.join('')).toBe(xml);
      if (input.length === 1) {
        expect(got.length).toBeGreaterThan(10);
        for (const piece of got) expect(piece.endsWith('>')).toBe(true);
      }
    }
  });

  it('the reader reads a workbook given in small pieces as written, every row once', async () => {
    const sheet = (rows: string[]) => `<?xml version="1.0"?><worksheet><sheetData>${rows.join('')}</sheetData></worksheet>`;
    const names = Array.from({ length: 400 }, (_, i) => `Zoë 名前 ${i} 🙂`);
    const rows = names.map((name, i) => `<row r="${i + 1}"><c r="A${i + 1}" t="inlineStr"><is><t>${name}</t></is></c><c r="B${i + 1}"><v>${2015550000 + i}</v></c></row>`);
    const bytes = zipOf({ 'xl/workbook.xml': WORKBOOK, 'xl/_rels/workbook.xml.rels': RELS, 'xl/worksheets/sheet1.xml': sheet(rows) });
    for (const size of [1, 7, 100_000]) {
      const read: string[][] = [];
      for await (const batch of workbookRows(pieces(bytes, size), 'leads.xlsx')) read.push(...batch);
      expect(read).toEqual(names.map((name, i) => [name, String(2015550000 + i)]));
    }
  });

  // The part that names the sheets last, as excelts and exceljs write a workbook (Excel writes it
  // first): a sheet parsed as it comes (the count's always, the reader's when the shared strings
  // came first) goes by a placeholder name (Sheet1, …) until then, and the file is read again for it.
  for (const sharedFirst of [true, false]) {
    it(`the sheets named after them, shared strings ${sharedFirst ? 'before' : 'after'} the sheets: the named sheet read and counted, a placeholder name not taken`, async () => {
      const book = join(tempDir('numintel-xlsx-count-'), 'leads.xlsx');
      writeFileSync(book, leadsWorkbook(500, { sharedFirst, namesLast: true }));
      let read = 0;
      for await (const batch of workbookRows(book, 'leads.xlsx', 'Leads')) read += batch.length;
      expect(read).toBe(501);
      for (const sheet of ['Leads', ' leads ', '2']) expect(await countWorkbookRows(book, 'leads.xlsx', sheet)).toBe(501);
      expect(await countWorkbookRows(book, 'leads.xlsx', 'Notes')).toBe(1);
      const placeholder = countWorkbookRows(book, 'leads.xlsx', 'Sheet2');
      await expect(placeholder).rejects.toThrow('leads.xlsx has no sheet "Sheet2"');
      await expect(placeholder).rejects.toMatchObject({ hint: 'sheets: 1 "Notes", 2 "Leads"' });
    });
  }

  // Stored (not deflated) entries, as some writers keep them: a sheet passed over unread once held
  // the archive's next entries back for good, once it was larger than the stream's buffer.
  it('a large sheet passed over before the chosen one, in a stored archive: read past, by the reader and the count', async () => {
    const big = leadsSheet(20_000);
    const bytes = zipOf({
      'xl/workbook.xml': WORKBOOK.replace('name="Notes"', 'name="Data"'),
      'xl/_rels/workbook.xml.rels': RELS,
      'xl/sharedStrings.xml': SHARED,
      'xl/worksheets/sheet1.xml': big,
      'xl/worksheets/sheet2.xml': leadsSheet(10),
    });
    expect(await rowsRead(bytes, 'Leads')).toBe(11);
    expect(await countWorkbookRows(Readable.from([bytes]), 'leads.xlsx', 'Leads')).toBe(11);
    expect(await countWorkbookRows(Readable.from([bytes]), 'leads.xlsx', 'Data')).toBe(20_001);
  });

  it('a sheet that is not there is the reader’s error', async () => {
    await expect(countWorkbookRows(Readable.from([leadsWorkbook(10, { sharedFirst: true })]), 'leads.xlsx', 'Missing')).rejects.toThrow('leads.xlsx has no sheet "Missing"');
  });
});
