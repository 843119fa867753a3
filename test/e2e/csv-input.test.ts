// CSV input end to end (cli.md "Where numbers come from", "CSV"): detection, column choice,
// header handling, awkward bytes; every input row comes out once, in order, its cells unchanged.
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../src/sandbox/index.js';
import { ROOT, jsonl, parseCsv, readSummary, runCli, runCliInProcess, csvRows } from '../support/cli.js';
import { sandboxEnv, sandboxStats, startTlsSandbox } from '../support/sandbox.js';
import { tempDir } from '../support/tmp.js';

let sb: Sandbox;
let env: Record<string, string | undefined>;
const dir = tempDir('numintel-csv-e2e-');

beforeAll(async () => {
  sb = await startTlsSandbox();
  // In-process runs trust the certificate through NUMINTEL_CA_FILE (NODE_EXTRA_CA_CERTS is read at
  // a process's start); the spawned run of the sample below trusts it through NODE_EXTRA_CA_CERTS.
  env = sandboxEnv(sb, { NUMINTEL_CA_FILE: sb.caFile });
});
afterAll(() => sb.close());

const fixture = (name: string) => join(import.meta.dirname, '..', 'fixtures', 'e2e', name);

/** Every input row appears once, in order, with its cells unchanged, followed by the added columns. */
function expectRowsKept(inputRows: string[][], output: string, opts: { header?: boolean } = {}): string[][] {
  const out = parseCsv(output);
  const width = (inputRows[0] ?? []).length;
  const data = opts.header === false ? inputRows : inputRows.slice(1);
  const outData = out.slice(1);
  expect(outData).toHaveLength(data.length);
  if (opts.header !== false) expect(out[0]?.slice(0, width)).toEqual(inputRows[0]);
  data.forEach((cells, i) => {
    const padded = Array.from({ length: width }, (_, c) => cells[c] ?? '');
    expect(outData[i]?.slice(0, width)).toEqual(padded);
  });
  return out;
}

/** Column `name` of a parsed CSV output, by header. */
function column(out: string[][], name: string): string[] {
  const at = (out[0] ?? []).indexOf(name);
  expect(at, `column ${name} in ${JSON.stringify(out[0])}`).toBeGreaterThanOrEqual(0);
  return out.slice(1).map((r) => r[at] ?? '');
}

describe('CSV detection', () => {
  it('by a .csv name, by --csv, and by sniffing a header line with several columns (file and stdin)', async () => {
    const text = 'name,phone\nAnn,2015550201\nBen,(201) 555-0202\n';
    const csvPath = join(dir, 'leads.csv');
    const txtPath = join(dir, 'leads.txt');
    writeFileSync(csvPath, text);
    writeFileSync(txtPath, text);
    const [byName, byFlag, bySniff, byStdin] = await Promise.all([
      runCliInProcess(['lrn', '-i', csvPath], { env }),
      runCliInProcess(['lrn', '--csv', '-i', txtPath, '-f', 'csv'], { env }),
      runCliInProcess(['lrn', '-i', txtPath], { env }),
      runCliInProcess(['lrn'], { env, stdin: text }),
    ]);
    const input = csvRows(text);
    for (const r of [byName, byFlag, bySniff, byStdin]) {
      expect(r.code, r.stderr).toBe(0);
      const out = expectRowsKept(input, r.stdout);
      expect(column(out, 'number')).toEqual(['12015550201', '12015550202']);
    }
  });

  it('a one-column list stays a list: jsonl by default, no row objects', async () => {
    const r = await runCliInProcess(['lrn'], { env, stdin: '2015550211\n# comment\n\n(201) 555-0212\n' });
    expect(r.code, r.stderr).toBe(0);
    const recs = jsonl(r.stdout);
    expect(recs.map((x) => x.number)).toEqual(['12015550211', '12015550212']);
    expect(recs.every((x) => !('row' in x))).toBe(true);
  });

  it('--column given for a list or for arguments picks nothing: the run says so and goes on, every row kept', async () => {
    const list = join(dir, 'semicolons.txt');
    writeFileSync(list, '2015550213\n2015550214\n');
    const fromList = await runCliInProcess(['lrn', '-i', list, '--column', '2'], { env });
    expect(fromList.code, fromList.stderr).toBe(0);
    expect(fromList.stderr).toContain(`numintel: warning: --column is ignored: ${list} reads as a plain list, one number per line (--csv, with --delimiter if need be, reads it as CSV)`);
    expect(jsonl(fromList.stdout).map((x) => x.number)).toEqual(['12015550213', '12015550214']);
    const fromArgs = await runCliInProcess(['lrn', '2015550213', '--column', 'phone', '-f', 'jsonl', '--dry-run'], { env });
    expect(fromArgs.stderr).toContain('numintel: warning: --column is ignored: it picks a column of CSV input, not of numbers given as arguments');
    // A CSV's --column is no cause for a word.
    const csv = join(dir, 'picked.csv');
    writeFileSync(csv, 'name,phone\nAda,2015550213\n');
    expect((await runCliInProcess(['lrn', '-i', csv, '--column', 'phone'], { env })).stderr).not.toContain('--column is ignored');
  });
});

describe('choosing the number column', () => {
  it('--column by name and by 1-based index; without it the header decides', async () => {
    const path = fixture('two-phones.csv');
    const [byName, byIndex, auto] = await Promise.all([
      runCliInProcess(['lrn', '-i', path, '--column', 'work'], { env }),
      runCliInProcess(['lrn', '-i', path, '--column', '2'], { env }),
      runCliInProcess(['lrn', '-i', path], { env }),
    ]);
    const input = csvRows(readFileSync(path, 'utf8'));
    expect(byName.code, byName.stderr).toBe(0);
    expect(column(expectRowsKept(input, byName.stdout), 'number')).toEqual(['12015550141', '12015550142']);
    expect(column(expectRowsKept(input, byIndex.stdout), 'number')).toEqual(['12015550131', '12015550132']);
    // No phone-like header: the first column whose values look like numbers.
    expect(auto.code, auto.stderr).toBe(0);
    expect(column(expectRowsKept(input, auto.stdout), 'number')).toEqual(['12015550131', '12015550132']);
  });

  it('a phone header (any case, with dashes or spaces) wins over an earlier column of numbers', async () => {
    const text = 'id,alt,Phone-Number\n1,2015550191,2015550181\n2,2015550192,2015550182\n';
    const r = await runCliInProcess(['lrn', '--csv', '-f', 'csv'], { env, stdin: text });
    expect(r.code, r.stderr).toBe(0);
    expect(column(expectRowsKept(csvRows(text), r.stdout), 'number')).toEqual(['12015550181', '12015550182']);
  });

  it('an unknown --column (name or index) exits 2 and sends nothing', async () => {
    const before = sb.stats().requests.total;
    const [byName, byIndex] = await Promise.all([
      runCliInProcess(['lrn', '-i', fixture('two-phones.csv'), '--column', 'fax'], { env }),
      runCliInProcess(['lrn', '-i', fixture('two-phones.csv'), '--column', '9'], { env }),
    ]);
    for (const r of [byName, byIndex]) {
      expect(r.code).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).toMatch(/column/i);
    }
    expect(sb.stats().requests.total).toBe(before);
  });

  it('a headerless file: auto-detected (first row is data) and with --no-header', async () => {
    const path = fixture('headerless.dat');
    const input = csvRows(readFileSync(path, 'utf8'));
    const [auto, noHeader] = await Promise.all([
      runCliInProcess(['lrn', '--csv', '-i', path, '-f', 'csv'], { env }),
      runCliInProcess(['lrn', '--csv', '--no-header', '-i', path, '-f', 'csv', '--column', '3'], { env }),
    ]);
    for (const r of [auto, noHeader]) {
      expect(r.code, r.stderr).toBe(0);
      const out = expectRowsKept(input, r.stdout, { header: false });
      expect(out[0]?.slice(0, 3)).toEqual(['column1', 'column2', 'column3']);
      expect(column(out, 'number')).toEqual(['12015550151', '12015550152', '12015550153']);
    }
  });

  it('numbers in full-width or Arabic-Indic digits: the column is found, each is looked up, its cell kept as typed', async () => {
    const path = join(dir, 'wide-digits.csv');
    const rows = [
      ['name', 'tel'],
      ['Sato', '＋１ （２０１） ５５５－０１６１'],
      ['Haddad', '٢٠١٥٥٥٠١٦٢'],
      ['Tanaka', '２０１５５５０１６３'],
    ];
    writeFileSync(path, rows.map((r) => r.join(',')).join('\n') + '\n');
    const before = (await sandboxStats(sb)).requests.lrn;
    const r = await runCli(['lrn', '-i', path, '-f', 'csv'], { env: sandboxEnv(sb) });
    expect(r.code, r.stderr).toBe(0);
    const out = expectRowsKept(rows, r.stdout);
    expect(column(out, 'number')).toEqual(['12015550161', '12015550162', '12015550163']);
    expect(column(out, 'error')).toEqual(['', '', '']);
    expect((await sandboxStats(sb)).requests.lrn - before).toBe(3);
    // As an argument too, the input echoed as given.
    const one = await runCli(['lrn', '１２０１５５５０１６４', '-f', 'jsonl'], { env: sandboxEnv(sb) });
    expect(one.code, one.stderr).toBe(0);
    expect(jsonl(one.stdout)[0]).toMatchObject({ input: '１２０１５５５０１６４', number: '12015550164', ok: true });
  });

  it('--no-header makes a header-looking first line a data row that comes out with an error', async () => {
    const r = await runCliInProcess(['lrn', '--no-header', '--column', '2', '-f', 'jsonl'], { env, stdin: 'name,phone\nAnn,2015550221\n' });
    expect(r.code).toBe(4);
    const recs = jsonl(r.stdout);
    expect(recs).toHaveLength(2);
    expect(recs[0]).toMatchObject({ input: 'phone', ok: false, error: { code: 'invalid_number' }, row: { column1: 'name', column2: 'phone' } });
    expect(recs[1]).toMatchObject({ input: '2015550221', ok: true, row: { column1: 'Ann', column2: '2015550221' } });
  });
});

describe('awkward CSV', () => {
  it('--delimiter ";" on a .txt file (commas inside cells stay cells)', async () => {
    const path = fixture('semicolon.txt');
    const r = await runCliInProcess(['lrn', '-i', path, '--delimiter', ';', '-f', 'csv'], { env });
    expect(r.code, r.stderr).toBe(0);
    const out = parseCsv(r.stdout);
    expect(out[0]?.slice(0, 3)).toEqual(['name', 'mobile', 'city']);
    expect(out.slice(1).map((row) => row.slice(0, 3))).toEqual([
      ['Ann', '201 555 0111', 'Paris, TX'],
      ['Ben', '2015550112', 'Rome'],
    ]);
    expect(column(out, 'number')).toEqual(['12015550111', '12015550112']);
  });

  it('BOM, CRLF, quoted commas and newlines, ragged rows, an empty number cell: one row each, in order', async () => {
    const path = fixture('tricky.csv');
    const input = csvRows(readFileSync(path, 'utf8'));
    const [csv, lines] = await Promise.all([runCliInProcess(['lrn', '-i', path], { env }), runCliInProcess(['lrn', '-i', path, '-f', 'jsonl'], { env })]);
    expect(csv.code).toBe(4); // an empty and a too-short number
    const out = expectRowsKept(input, csv.stdout);
    expect(out[0]?.[0]).toBe('id'); // no BOM glued to the first header
    expect(out[2]?.[3]).toBe('line one\r\nline two, with comma');
    expect(column(out, 'number')).toEqual(['12015550101', '12015550102', '', '12015550104', '12015550105', '12015550101', '']);
    const errors = column(out, 'error');
    expect(errors.map((e) => e.split(':')[0])).toEqual(['', '', 'invalid_number', '', '', '', 'invalid_number']);

    const recs = jsonl(lines.stdout);
    expect(recs.map((x) => (x.row as Record<string, string>).id)).toEqual(['1', '2', '3', '4', '5', '6', '7']);
    expect(recs[4]?.row).toMatchObject({ note: 'x', column5: 'extra cell' });
    expect(recs[3]?.row).toEqual({ id: '4', name: 'Carl', phone: '2015550104', note: '' });
    expect(recs[2]).toMatchObject({ input: '', number: null, ok: false, error: { code: 'invalid_number' } });
    expect(readSummary(csv.stderr)).toMatchObject({ rows: 7, invalid: 2, duplicates: 1, lookups: 4 });
    // The CSV's columns are the header's: the wide row's extra cell is said to be left out, not dropped unseen.
    expect(csv.stderr).toContain(`numintel: warning: data row 5 of ${path} has 5 cells, more than the header's 4: csv output has those columns only, so the cells past them are left out (json and jsonl keep them)\n`);
    expect(lines.stderr).not.toContain('warning');
  });

  it('an added column never overwrites an input column of the same name', async () => {
    const path = fixture('clash.csv');
    const r = await runCliInProcess(['lrn', '-i', path, '-f', 'csv', '--column', 'tel'], { env });
    expect(r.code, r.stderr).toBe(0);
    const out = expectRowsKept(csvRows(readFileSync(path, 'utf8')), r.stdout);
    const header = out[0] ?? [];
    expect(new Set(header).size).toBe(header.length);
    expect(column(out, 'number')).toEqual(['n1', 'n2']);
    expect(column(out, 'error')).toEqual(['e1', 'e2']);
    expect(column(out, 'lrn')).toEqual(['l1', 'l2']);
    expect(column(out, 'numintel_number')).toEqual(['12015550121', '12015550122']);
    expect(column(out, 'numintel_lrn')).toEqual(['12015550121', '12015550122']);
    expect(column(out, 'numintel_error')).toEqual(['', '']);
  });

  it('two input columns with the same name both keep their own cells', async () => {
    const path = fixture('dup-header.csv');
    const r = await runCliInProcess(['lrn', '-i', path, '-f', 'csv'], { env });
    expect(r.code, r.stderr).toBe(0);
    expectRowsKept(csvRows(readFileSync(path, 'utf8')), r.stdout);
  });
});

describe('an input with no rows', () => {
  it('a header alone, or an empty file: the header (csv) or [] (json), exit 0, and a warning that nothing was looked up', async () => {
    const headerOnly = join(dir, 'header-only.csv');
    const empty = join(dir, 'empty.txt');
    writeFileSync(headerOnly, 'name,phone\r\n');
    writeFileSync(empty, '');
    const [csv, json, list] = await Promise.all([
      runCliInProcess(['lrn', '-i', headerOnly], { env }),
      runCliInProcess(['enrich', headerOnly, '-f', 'json', '-q'], { env }),
      runCliInProcess(['trust', '-i', empty], { env }),
    ]);
    expect(csv.code).toBe(0);
    expect(csv.stdout).toBe('name,phone,number,lrn,lrn_activated_at,error\n');
    expect(csv.stderr).toBe(`numintel: warning: no numbers in ${headerOnly}: nothing was looked up\n`);
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toEqual([]);
    expect(json.stderr).toBe(`numintel: warning: no numbers in ${headerOnly}: nothing was looked up\n`);
    expect(list.code).toBe(0);
    expect(list.stderr).toBe(`numintel: warning: no numbers in ${empty}: nothing was looked up\n`);
  });

  it('a --resume of a file that already holds every row says so, and sends nothing', async () => {
    const input = join(dir, 'done.csv');
    const out = join(dir, 'done.out.csv');
    writeFileSync(input, 'phone\n2015550131\n2015550132\n');
    const first = await runCliInProcess(['lrn', '-i', input, '-o', out, '-q', '--no-cache'], { env });
    expect(first.code, first.stderr).toBe(0);
    const written = readFileSync(out, 'utf8');
    const before = (await sandboxStats(sb)).requests.total;
    const again = await runCliInProcess(['lrn', '-i', input, '-o', out, '--resume', '--no-cache'], { env });
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toBe(`numintel: ${out} already holds all 2 rows of ${input}: nothing left to look up\n`);
    expect(readFileSync(out, 'utf8')).toBe(written);
    expect((await sandboxStats(sb)).requests.total).toBe(before);
  });
});

describe('samples/contacts.csv', () => {
  it('every contact once, in order, input cells unchanged (the formula cell too), duplicates billed once', async () => {
    const own = await startTlsSandbox();
    try {
      const work = tempDir('numintel-contacts-');
      copyFileSync(join(ROOT, 'samples', 'contacts.csv'), join(work, 'contacts.csv'));
      const r = await runCli(['lrn', '-i', 'contacts.csv'], { env: sandboxEnv(own), cwd: work });
      expect(r.code).toBe(4);
      const input = csvRows(readFileSync(join(work, 'contacts.csv'), 'utf8'));
      const out = expectRowsKept(input, r.stdout);
      const phones = column(out, 'phone');
      expect(phones).toContain('=HYPERLINK("http://evil.example")');
      const errors = column(out, 'error');
      const invalid = errors.filter((e) => e.startsWith('invalid_number')).length;
      expect(invalid).toBeGreaterThanOrEqual(4);
      expect(errors.filter((e) => e !== '' && !e.startsWith('invalid_number'))).toEqual([]);
      const numbers = column(out, 'number').filter((n) => n !== '');
      const distinct = new Set(numbers);
      expect(distinct.size).toBeLessThan(numbers.length);
      const stats = own.stats();
      expect(stats.billed).toBe(distinct.size);
      expect(Object.values(stats.byNumber).every((n) => n === 1)).toBe(true);
      expect(readSummary(r.stderr)).toMatchObject({ rows: input.length - 1, duplicates: numbers.length - distinct.size, invalid });
    } finally {
      await own.close();
    }
  });
});
