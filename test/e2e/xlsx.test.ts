// Excel in and out, as a user runs it: the built CLI against the sandbox over loopback. The input
// workbooks are made here with the library's non-streaming writer (as Excel lays a file out: several
// sheets, a number stored as a number, dates, a `+1…` text cell, a formula), and every output is read
// back with its non-streaming reader, independently of numintel's streaming reader and writer.
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Workbook, ValueType } from '@cj-tech-master/excelts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../src/sandbox/index.js';
import { parseCsv, requireBuiltCli, runCli, runCliInProcess, runShell, startCli } from '../support/cli.js';
import { sandboxEnv, sandboxStats, startTlsSandbox } from '../support/sandbox.js';
import { csvLine } from '../../src/output/csv.js';
import { tempDir } from '../support/tmp.js';
import { zipOf } from '../pipeline/source/zip-fixture.js';

let sb: Sandbox;
let env: Record<string, string | undefined>;
const dir = tempDir('numintel-xlsx-e2e-');
const leads = join(dir, 'leads.xlsx');

/** The Leads sheet's cells as a reader of the sheet sees them. */
const LEADS_TEXT = [
  ['name', 'phone', 'signed', 'amount', 'code'],
  ['Ann', '12015550123', '2024-03-05', '12.5', '+12015550124'],
  ['Ben', '+1 (201) 555-0125', '2023-12-31', '7', '007'],
  ['Cy', '2015550126', 'n/a', '0.3', '=cmd'],
  ['Dee', '201.555.0127', '2025-01-02T13:45:00', 'TRUE', 'Rich text'],
];

beforeAll(async () => {
  requireBuiltCli();
  sb = await startTlsSandbox();
  env = sandboxEnv(sb);
  const wb = new Workbook();
  wb.addWorksheet('Notes').addRow(['Read me first']);
  const ws = wb.addWorksheet('Leads');
  ws.addRow(['name', 'phone', 'signed', 'amount', 'code']);
  ws.addRow(['Ann', 12015550123, new Date(Date.UTC(2024, 2, 5)), 12.5, '+12015550124']);
  ws.addRow(['Ben', '+1 (201) 555-0125', new Date(Date.UTC(2023, 11, 31)), 7, '007']);
  ws.addRow(['Cy', 2015550126, 'n/a', { formula: '0.1+0.2', result: 0.1 + 0.2 }, '=cmd']);
  ws.addRow(['Dee', '201.555.0127', new Date(Date.UTC(2025, 0, 2, 13, 45)), true, { richText: [{ text: 'Rich ' }, { text: 'text', font: { bold: true } }] }]);
  ws.getCell('B2').numFmt = '0';
  ws.getCell('C2').numFmt = 'yyyy-mm-dd';
  ws.getCell('C3').numFmt = 'd/m/yyyy';
  ws.getCell('C5').numFmt = 'yyyy-mm-dd hh:mm';
  wb.addWorksheet('Empty');
  await wb.xlsx.writeFile(leads);
});
afterAll(() => sb.close());

/** Every sheet's rows as their cells' values, and the value types met. */
async function readBack(path: string) {
  const wb = new Workbook();
  await wb.xlsx.readFile(path);
  const ws = wb.worksheets[0]!;
  const rows: unknown[][] = [];
  const types = new Set<ValueType>();
  ws.eachRow((row) => {
    const cells: unknown[] = [];
    row.eachCell({ includeEmpty: true }, (cell) => {
      cells.push(cell.value ?? '');
      if (cell.value !== null) types.add(cell.type);
    });
    rows.push(cells);
  });
  return { rows, types, views: ws.views, sheets: wb.worksheets.map((w) => w.name) };
}

describe('xlsx input', () => {
  it('--sheet by name and by position: every input cell kept as text, the number cell found, numbers and dates read as shown', async () => {
    const [byName, byNumber] = await Promise.all([
      runCli(['lrn', '-i', leads, '--sheet', 'Leads', '-f', 'csv'], { env }),
      runCli(['lrn', '-i', leads, '--sheet', '2', '-f', 'csv'], { env }),
    ]);
    for (const r of [byName, byNumber]) {
      expect(r.code, r.stderr).toBe(0);
      const out = parseCsv(r.stdout);
      expect(out).toHaveLength(LEADS_TEXT.length);
      out.forEach((row, i) => expect(row.slice(0, 5)).toEqual(LEADS_TEXT[i]));
      const at = out[0]!.indexOf('number');
      expect(out.slice(1).map((row) => row[at])).toEqual(['12015550123', '12015550125', '12015550126', '12015550127']);
    }
  });

  it('the first sheet unless --sheet says otherwise; a sheet that is not there is named with those that are', async () => {
    const first = await runCli(['lrn', '-i', 'leads.xlsx'], { env, cwd: dir });
    expect(first.code).toBe(2);
    expect(first.stderr).toContain('cannot tell which column of leads.xlsx holds the phone numbers (its first sheet)');
    expect(first.stderr).toContain('columns: 1 "Read me first"; pick one with --column <name|number>; or read another sheet with --sheet <name|n>');
    const missing = await runCli(['lrn', '-i', leads, '--sheet', 'Leeds'], { env });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('no sheet "Leeds"');
    expect(missing.stderr).toContain('sheets: 1 "Notes", 2 "Leads", 3 "Empty"');
    const notXlsx = join(dir, 'plain.csv');
    writeFileSync(notXlsx, 'phone\n2015550123\n');
    const sheetOfCsv = await runCli(['lrn', '-i', notXlsx, '--sheet', '2'], { env });
    expect(sheetOfCsv.code).toBe(2);
    expect(sheetOfCsv.stderr).toContain('--sheet picks a sheet of an Excel workbook');
  });

  it('a workbook named without .xlsx is still read as one', async () => {
    const renamed = join(dir, 'leads.dat');
    writeFileSync(renamed, readFileSync(leads));
    const r = await runCli(['lrn', '-i', renamed, '--sheet', 'Leads', '-f', 'csv'], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(parseCsv(r.stdout)).toHaveLength(LEADS_TEXT.length);
  });

  // The reader keeps a sheet that comes before the shared strings in a temporary directory until
  // the strings are read (xlsx-library.ts): each run here has a TMPDIR of its own, empty after it.
  it('a sheet read before its shared strings leaves no copy in TMPDIR: a run, a dry run, a capped run, | head -1', async () => {
    const order = entryNames(readFileSync(leads));
    expect(order.indexOf('xl/worksheets/sheet2.xml')).toBeLessThan(order.indexOf('xl/sharedStrings.xml'));
    const runs: [string, (tmp: string) => Promise<{ code: number | null; stderr: string }>][] = [
      ['-o', (tmp) => runCli(['lrn', '-i', leads, '--sheet', 'Leads', '-o', join(tmp, '..', 'out.csv')], { env: { ...env, TMPDIR: tmp } })],
      ['--dry-run', (tmp) => runCli(['lrn', '-i', leads, '--sheet', 'Leads', '--dry-run'], { env: { ...env, TMPDIR: tmp } })],
      ['--max-lookups', (tmp) => runCli(['lrn', '-i', leads, '--sheet', 'Leads', '--max-lookups', '1', '--no-cache', '-f', 'jsonl'], { env: { ...env, TMPDIR: tmp } })],
      ['| head -1', (tmp) => runShell(`numintel lrn -i "${leads}" --sheet Leads --no-cache -f jsonl | head -1`, { env: { ...env, TMPDIR: tmp } })],
    ];
    await Promise.all(
      runs.map(async ([name, run]) => {
        const tmp = join(tempDir('numintel-xlsx-tmp-'), 'tmp');
        mkdirSync(tmp);
        const r = await run(tmp);
        // The cap stops the run (exit 5, resumable) with the sheet still being read.
        expect(r.code, `${name}: ${r.stderr}`).toBe(name === '--max-lookups' ? 5 : 0);
        expect(readdirSync(tmp), name).toEqual([]);
      }),
    );
  });

  it('nor does a run interrupted (Ctrl-C) while its sheet is still being read', async () => {
    const wb = new Workbook();
    const ws = wb.addWorksheet('Leads');
    ws.addRow(['name', 'phone']);
    for (let i = 0; i < 3000; i++) ws.addRow([`lead ${i}`, String(12015550000 + (i % 9000))]);
    const book = join(dir, 'slow.xlsx');
    await wb.xlsx.writeFile(book);
    const tmp = join(tempDir('numintel-xlsx-tmp-'), 'tmp');
    mkdirSync(tmp);
    const cli = startCli(['lrn', '-i', book, '--no-cache', '--rate', '20', '-f', 'jsonl'], { env: { ...env, TMPDIR: tmp } });
    await cli.waitForStdout((out) => out.includes('\n'), 15_000);
    expect(readdirSync(tmp)).toHaveLength(1);
    cli.child.kill('SIGINT');
    const r = await cli.done;
    expect(r.code, r.stderr).toBe(130);
    expect(readdirSync(tmp)).toEqual([]);
  });
});

/** The names of a zip's entries in the order they are stored (their local headers). */
function entryNames(zip: Buffer): string[] {
  const names: string[] = [];
  for (let at = zip.indexOf('PK\x03\x04'); at !== -1; at = zip.indexOf('PK\x03\x04', at + 30)) {
    names.push(zip.toString('utf8', at + 30, at + 30 + zip.readUInt16LE(at + 26)));
  }
  return names;
}

describe('xlsx output', () => {
  it('-o out.xlsx from an xlsx input: every input cell as text, numbers as text, the header frozen, one row per input row', async () => {
    const out = join(dir, 'out.xlsx');
    const r = await runCli(['enrich', '-i', leads, '--sheet', 'Leads', '-o', out], { env });
    expect(r.code, r.stderr).toBe(0);
    const { rows, types, views, sheets } = await readBack(out);
    expect(sheets).toHaveLength(1);
    expect(views[0]).toMatchObject({ state: 'frozen', ySplit: 1 });
    expect([...types]).toEqual([ValueType.String]);
    expect(rows).toHaveLength(LEADS_TEXT.length);
    rows.forEach((row, i) => expect(row.slice(0, 5)).toEqual(LEADS_TEXT[i]));
    const header = rows[0] as string[];
    expect(header).toContain('number');
    const lrn = header.findIndex((name) => /^(lrn_)?lrn$/.test(name));
    expect(lrn).toBeGreaterThan(4);
    for (const row of rows.slice(1)) expect(row[lrn]).toMatch(/^1\d{10}$/);
  });

  it('-f xlsx to a pipe writes the same workbook; --resume is refused', async () => {
    const piped = join(dir, 'piped.xlsx');
    const r = await runShell(`numintel lrn -i "${leads}" --sheet Leads -f xlsx | cat > "${piped}"`, { env });
    expect(r.code, r.stderr).toBe(0);
    const { rows } = await readBack(piped);
    expect(rows).toHaveLength(LEADS_TEXT.length);
    const resume = await runCli(['lrn', '-i', leads, '--sheet', 'Leads', '-o', join(dir, 'resumed.xlsx'), '--resume'], { env });
    expect(resume.code).toBe(2);
    expect(resume.stderr).toContain('--resume works with csv, tsv and jsonl output, not xlsx');
  });

  it('an input with more rows than an Excel sheet holds is refused before anything is sent', async () => {
    const big = join(dir, 'big.csv');
    const lines = ['phone'];
    for (let i = 0; i < 1_048_576; i++) lines.push(String(2015550000 + (i % 10_000)));
    writeFileSync(big, `${lines.join('\n')}\n`);
    const before = (await sandboxStats(sb)).requests.total;
    const [r, dry] = await Promise.all([
      runCli(['lrn', '-i', big, '-o', join(dir, 'big.xlsx')], { env }),
      runCli(['lrn', '-i', big, '-f', 'xlsx', '--dry-run'], { env }),
    ]);
    for (const run of [r, dry]) {
      expect(run.code).toBe(2);
      expect(run.stderr).toContain('the input has 1,048,576 rows, and an Excel sheet holds 1,048,575 below its header');
    }
    expect((await sandboxStats(sb)).requests.total).toBe(before);
    expect(existsSync(join(dir, 'big.xlsx'))).toBe(false);
    // One row fewer fits: test/cli/xlsx-rows.test.ts.
  });

  it('a workbook input with more rows than a sheet holds is refused before anything is sent: its rows counted, shared strings unread', async () => {
    // A sheet of text cells, the strings in the shared-strings part, and the part that names the
    // sheets last (as excelts and exceljs write it; Excel writes it first): chosen by its name, the
    // sheet is counted before that name is read.
    const rows = ['<row r="1"><c r="A1" t="s"><v>0</v></c><c r="B1" t="s"><v>1</v></c></row>'];
    for (let i = 2; i <= 1_048_577; i++) rows.push(`<row r="${i}"><c r="A${i}" t="s"><v>2</v></c><c r="B${i}"><v>${2015550000 + (i % 10_000)}</v></c></row>`);
    const book = join(dir, 'big.xlsx');
    writeFileSync(
      book,
      zipOf({
        '[Content_Types].xml': '<?xml version="1.0"?><Types/>',
        'xl/_rels/workbook.xml.rels': '<?xml version="1.0"?><Relationships><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/></Relationships>',
        'xl/worksheets/sheet1.xml': `<?xml version="1.0"?><worksheet><sheetData>${rows.join('')}</sheetData></worksheet>`,
        'xl/sharedStrings.xml': '<?xml version="1.0"?><sst><si><t>name</t></si><si><t>phone</t></si><si><t>Lead</t></si></sst>',
        'xl/workbook.xml': '<?xml version="1.0"?><workbook xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets><sheet name="Leads" sheetId="1" r:id="rId1"/></sheets></workbook>',
      }),
    );
    const before = (await sandboxStats(sb)).requests.total;
    const r = await runCli(['lrn', '-i', book, '--sheet', 'leads', '-o', join(dir, 'big-out.xlsx')], { env });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('the input has 1,048,576 rows, and an Excel sheet holds 1,048,575 below its header');
    expect((await sandboxStats(sb)).requests.total).toBe(before);
    expect(existsSync(join(dir, 'big-out.xlsx'))).toBe(false);
  });
});

describe('report and diff read xlsx outputs', () => {
  it('report out.xlsx gives the figures report gives for the same run written as CSV', async () => {
    const xlsx = join(dir, 'same.xlsx');
    const csv = join(dir, 'same.csv');
    const r1 = await runCli(['enrich', '-i', leads, '--sheet', 'Leads', '-o', xlsx], { env });
    const r2 = await runCli(['enrich', '-i', leads, '--sheet', 'Leads', '-o', csv], { env });
    expect(r1.code, r1.stderr).toBe(0);
    expect(r2.code, r2.stderr).toBe(0);
    const [a, b] = await Promise.all([runCliInProcess(['report', xlsx, '-f', 'json', '--as-of', '2026-01-31']), runCliInProcess(['report', csv, '-f', 'json', '--as-of', '2026-01-31'])]);
    expect(a.code, a.stderr).toBe(0);
    expect(b.code, b.stderr).toBe(0);
    const fromXlsx = JSON.parse(a.stdout) as { source: Record<string, unknown> };
    const fromCsv = JSON.parse(b.stdout) as { source: Record<string, unknown> };
    expect(fromXlsx.source.format).toBe('xlsx');
    const { source: s1, ...rest1 } = fromXlsx;
    const { source: s2, ...rest2 } = fromCsv;
    expect(rest1).toEqual(rest2);
    expect({ ...s1, format: 'csv', file: undefined, name: undefined }).toEqual({ ...s2, file: undefined, name: undefined });
    const diff = await runCliInProcess(['diff', csv, xlsx]);
    expect(diff.code, diff.stderr).toBe(0);
    expect(diff.stdout).toContain('matched 4, unchanged 4, changed 0');
  });

  it('diff -o changes.xlsx: the rows -o changes.csv has, every cell text, the header frozen', async () => {
    const after = join(dir, 'after.xlsx');
    const afterCsv = join(dir, 'after.csv');
    expect((await runCli(['enrich', '-i', leads, '--sheet', 'Leads', '-o', after], { env })).code).toBe(0);
    expect((await runCli(['enrich', '-i', leads, '--sheet', 'Leads', '-o', afterCsv], { env })).code).toBe(0);
    // The month before: Ann's number routed elsewhere (so ported since) and Ben's caller name another.
    const rows = parseCsv(readFileSync(afterCsv, 'utf8'));
    const [head, ...body] = rows;
    const lrn = head!.indexOf('lrn_lrn');
    const cnam = head!.indexOf('cnam_cnam');
    body[0]![lrn] = '19999999999';
    body[1]![cnam] = 'SOMEONE ELSE';
    const before = join(dir, 'before.csv');
    writeFileSync(before, [head!, ...body].map((r) => csvLine(r)).join(''));
    const [x, c] = await Promise.all([
      runCliInProcess(['diff', before, after, '-o', join(dir, 'changes.xlsx')]),
      runCliInProcess(['diff', before, after, '-o', join(dir, 'changes.csv')]),
    ]);
    expect(x.code, x.stderr).toBe(0);
    expect(c.code, c.stderr).toBe(0);
    const expected = parseCsv(readFileSync(join(dir, 'changes.csv'), 'utf8'));
    expect(expected).toHaveLength(3);
    const back = await readBack(join(dir, 'changes.xlsx'));
    // Empty cells at a row's end are no cells in a sheet.
    const trimEnd = (r: readonly unknown[]) => r.slice(0, r.findLastIndex((v) => v !== '') + 1);
    expect(back.rows.map(trimEnd)).toEqual(expected.map(trimEnd));
    expect([...back.types]).toEqual([ValueType.String]);
    expect(back.views[0]).toMatchObject({ state: 'frozen', ySplit: 1 });
  });
});
