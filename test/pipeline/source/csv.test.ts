import { createReadStream } from 'node:fs';
import { stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { openSource, type SourceSpec } from '../../../src/pipeline/source/source.js';
import { collect, inputs, io, pipedStdin, usageFailure } from './helpers.js';
import { tempDir } from '../../support/tmp.js';

const fromFile = (input: string, more: Partial<SourceSpec> = {}) => openSource({ args: [], input, ...more }, io());
const fromStdin = (text: string, more: Partial<SourceSpec> = {}) => openSource({ args: [], ...more }, io({ stdin: pipedStdin(text) }));

describe('recognising CSV', () => {
  it('by a .csv name, with quoted commas and newlines kept in their cells', async () => {
    const source = await fromFile('leads.csv');
    expect(source).toMatchObject({ kind: 'csv', columns: ['id', 'name', 'phone', 'city'], hasHeader: true, delimiter: ',', numberColumn: { index: 2, name: 'phone' } });
    const items = await collect(source.items);
    expect(inputs(items)).toEqual(['(201) 555-0123', '201.555.0124', '', '+1 201-555-0125']);
    expect(items[1]).toEqual({
      index: 1,
      input: '201.555.0124',
      row: { id: '2', name: 'Smith, John', phone: '201.555.0124', city: 'Jersey City' },
    });
    expect(items[3]?.row?.name).toBe('Multi\nLine Name');
    expect(await source.countTotal()).toBe(4);
  });

  it('by a .tsv name, split on tabs', async () => {
    const source = await fromFile('contacts.tsv');
    expect(source).toMatchObject({ kind: 'csv', delimiter: '\t', columns: ['id', 'name', 'mobile'], numberColumn: { index: 2, name: 'mobile' } });
    expect(inputs(await collect(source.items))).toEqual(['2015550123', '2015550124']);
  });

  it('by --csv, whatever the name', async () => {
    const source = await fromStdin('phone\n2015550123\n2015550124\n', { csv: true });
    expect(source).toMatchObject({ kind: 'csv', columns: ['phone'], numberColumn: { index: 0, name: 'phone' } });
    expect(inputs(await collect(source.items))).toEqual(['2015550123', '2015550124']);
  });

  it('by a first line with several columns, sniffing the delimiter', async () => {
    for (const [delimiter, text] of [
      [',', 'name,phone\nAda,2015550123\n'],
      ['\t', 'name\tphone\nAda\t2015550123\n'],
      [';', 'name;phone\nAda;2015550123\n'],
      ['|', 'name|phone\nAda|2015550123\n'],
    ] as const) {
      const source = await fromStdin(text);
      expect(source).toMatchObject({ kind: 'csv', delimiter, columns: ['name', 'phone'] });
      expect(inputs(await collect(source.items))).toEqual(['2015550123']);
    }
  });

  it('by a lone phone-header line over a one-column list', async () => {
    const source = await fromStdin('Phone Number\n2015550123\n2015550124\n');
    expect(source).toMatchObject({ kind: 'csv', columns: ['Phone Number'], numberColumn: { index: 0, name: 'Phone Number' } });
    expect(inputs(await collect(source.items))).toEqual(['2015550123', '2015550124']);
  });

  it('sniffs past leading # comments and blank lines, which are not the header', async () => {
    const source = await fromStdin('# export of 2024-05-01\n\nname,phone\nAda,2015550123\n');
    expect(source).toMatchObject({ kind: 'csv', columns: ['name', 'phone'] });
    expect(inputs(await collect(source.items))).toEqual(['2015550123']);
  });

  it('does not count a delimiter inside quotes when sniffing', async () => {
    const source = await fromStdin('"last, first";phone\n"Lovelace, Ada";2015550123\n');
    expect(source).toMatchObject({ delimiter: ';', columns: ['last, first', 'phone'] });
  });

  it('uses --delimiter as given (and "\\t" as a tab)', async () => {
    const semi = await fromStdin('name;phone\nAda;2015550123\n', { delimiter: ';' });
    expect(semi).toMatchObject({ kind: 'csv', delimiter: ';', columns: ['name', 'phone'] });
    const tab = await fromStdin('name\tphone\nAda\t2015550123\n', { delimiter: '\\t' });
    expect(tab).toMatchObject({ delimiter: '\t', columns: ['name', 'phone'] });
  });

  it('reads an Excel export: BOM, semicolons, CRLF, a header with spaces', async () => {
    const source = await fromFile('excel-semicolon.csv');
    expect(source).toMatchObject({ delimiter: ';', columns: ['Name', 'Phone Number', 'Notes'], numberColumn: { index: 1, name: 'Phone Number' } });
    const items = await collect(source.items);
    expect(items.map((i) => Object.values(i.row ?? {}))).toEqual([
      ['Ada', '2015550123', 'a;b'],
      ['Bob', '2015550124', 'plain'],
    ]);
    expect(await source.countTotal()).toBe(2);
  });
});

describe('ragged rows and empty cells', () => {
  it('fills missing cells with "" and names extra cells column<N>; one item per row', async () => {
    const source = await fromFile('ragged.csv');
    const items = await collect(source.items);
    expect(items).toEqual([
      { index: 0, input: '2015550123', row: { name: 'Ada', phone: '2015550123' } },
      { index: 1, input: '', row: { name: 'Bob', phone: '' } },
      {
        index: 2,
        input: '2015550125',
        row: { name: 'Carol', phone: '2015550125', column3: 'extra', column4: 'more' },
      },
      { index: 3, input: '', row: { name: '', phone: '' } },
    ]);
    expect(await source.countTotal()).toBe(4);
  });

  it('keeps a column named __proto__ as a plain column', async () => {
    const source = await fromStdin('__proto__,phone\nx,2015550123\n');
    const [item] = await collect(source.items);
    expect(Object.keys(item?.row ?? {})).toEqual(['__proto__', 'phone']);
    expect(item?.row?.['__proto__']).toBe('x');
  });
});

describe('--column', () => {
  it('takes an exact name, a name in another case, or a 1-based index', async () => {
    for (const column of ['Phone Number', ' phone number ', '2']) {
      const source = await fromFile('excel-semicolon.csv', { column });
      expect(source.numberColumn).toEqual({ index: 1, name: 'Phone Number' });
    }
  });

  it('prefers an exact name over an index', async () => {
    const source = await fromStdin('2,phone,note\n2015550123,2015550124,x\n', { column: '2', delimiter: ',' });
    expect(source.numberColumn).toEqual({ index: 0, name: '2' });
    expect(inputs(await collect(source.items))).toEqual(['2015550123']);
  });

  it('refuses an unknown name before anything is read, listing the columns', async () => {
    const err = await usageFailure(fromFile('leads.csv', { column: 'telefono' }));
    expect(err.message).toBe('no column "telefono" in leads.csv');
    expect(err.hint).toBe('columns: 1 "id", 2 "name", 3 "phone", 4 "city"');
  });

  it('refuses an index out of range', async () => {
    for (const column of ['0', '5']) {
      const err = await usageFailure(fromFile('leads.csv', { column }));
      expect(err.message).toBe(`--column ${column} is out of range: leads.csv has 4 columns`);
      expect(err.hint).toContain('4 "city"');
    }
  });

  it('overrides the header guess', async () => {
    const source = await fromFile('leads.csv', { column: 'id' });
    expect(inputs(await collect(source.items))).toEqual(['1', '2', '3', '4']);
  });
});

describe('finding the number column without --column', () => {
  it.each([
    ['phone', 0],
    ['Phone_Number', 0],
    ['phone-number', 0],
    ['MSISDN', 0],
    ['TN', 0],
    ['Mobile Phone', 0],
    ['work_phone', 0],
    ['Cell #', 0],
  ])('recognises a header named %j', async (name, index) => {
    const source = await fromStdin(`${name},note\n2015550123,x\n`, { csv: true });
    expect(source.numberColumn).toEqual({ index, name });
  });

  it('prefers an exact name to a name that merely contains a phone word', async () => {
    const source = await fromStdin('home phone,name,tel\n2015550123,Ada,2015550124\n');
    expect(source.numberColumn).toEqual({ index: 2, name: 'tel' });
  });

  it('falls back to the first column whose values look like phone numbers, replaying the rows it looked at', async () => {
    const source = await fromFile('no-phone-header.csv');
    expect(source.numberColumn).toEqual({ index: 1, name: 'contact' });
    expect(await collect(source.items)).toHaveLength(3);
    const items = await collect((await fromFile('no-phone-header.csv')).items);
    expect(items.map((i) => [i.index, i.input])).toEqual([
      [0, '2015550123'],
      [1, '201-555-0124'],
      [2, '(201) 555-0125'],
    ]);
  });

  it('looks past the sample size without losing a row', async () => {
    const rows = Array.from({ length: 120 }, (_, i) => `row${i},20155501${String(i % 100).padStart(2, '0')}`);
    const source = await fromStdin(`key,value\n${rows.join('\n')}\n`);
    expect(source.numberColumn).toEqual({ index: 1, name: 'value' });
    const items = await collect(source.items);
    expect(items.map((i) => i.row?.key)).toEqual(rows.map((r) => r.split(',')[0]));
  });

  it('says which columns there are when none holds phone numbers', async () => {
    const err = await usageFailure(fromFile('no-numbers.csv'));
    expect(err.message).toBe('cannot tell which column of no-numbers.csv holds the phone numbers');
    expect(err.hint).toBe('columns: 1 "name", 2 "email", 3 "city"; pick one with --column <name|number>');
  });
});

describe('headerless CSV', () => {
  it('with --no-header names the columns column1..N and finds the numbers by value', async () => {
    const source = await fromFile('headerless.csv', { header: false });
    expect(source).toMatchObject({ hasHeader: false, columns: ['column1', 'column2', 'column3'], numberColumn: { index: 1, name: 'column2' } });
    const items = await collect(source.items);
    expect(items[0]).toEqual({ index: 0, input: '2015550123', row: { column1: 'Ada', column2: '2015550123', column3: 'NJ' } });
    expect(items).toHaveLength(2);
    expect(await source.countTotal()).toBe(2);
  });

  it('with --no-header takes --column as an index', async () => {
    const source = await fromFile('headerless.csv', { header: false, column: '2' });
    expect(inputs(await collect(source.items))).toEqual(['2015550123', '2015550124']);
  });

  it('treats a first row holding a phone number as data, not a header', async () => {
    const source = await fromFile('headerless.csv');
    expect(source).toMatchObject({ hasHeader: false, columns: ['column1', 'column2', 'column3'] });
    expect(await collect(source.items)).toHaveLength(2);
    expect(await source.countTotal()).toBe(2);
  });
});

describe('malformed CSV', () => {
  it('reports a quote that is never closed as a usage error', async () => {
    const source = await fromStdin('name,phone\nAda,2015550123\n"Bob,2015550124\n');
    const err = await usageFailure(collect(source.items));
    expect(err.message).toMatch(/^standard input is not valid CSV: .*line 3/);
  });

  it('names the line the unclosed quote is on, not the last line, with LF or CRLF line ends', async () => {
    const lines = ['name,phone', 'Ada,2015550123', '"Bob,2015550124', ...Array.from({ length: 20 }, (_, i) => `R${i},20155501${String(i).padStart(2, '0')}`)];
    for (const eol of ['\n', '\r\n']) {
      const source = await fromStdin(`${lines.join(eol)}${eol}`);
      const err = await usageFailure(collect(source.items));
      expect(err.message).toBe('standard input is not valid CSV: the record from line 3 opens a quote that is never closed');
      expect(err.hint).toBe('look for a stray quote (") on line 3; a field that holds a quote writes it twice ("")');
    }
  });
});

describe('a large file', () => {
  let dir: string;
  const ROWS = 200_000;
  beforeAll(async () => {
    dir = tempDir('numintel-csv-');
    const lines = ['id,name,phone'];
    for (let i = 0; i < ROWS; i++) lines.push(`${i},"Name ${i}, Jr",201555${String(i % 10_000).padStart(4, '0')}`);
    await writeFile(join(dir, 'big.csv'), `${lines.join('\n')}\n`);
  });

  it('streams: the first item comes before the file is read, every row comes once, in order', async () => {
    const size = (await stat(join(dir, 'big.csv'))).size;
    let bytesRead = 0;
    const openFile = (path: string) => {
      const stream = createReadStream(path);
      stream.on('data', (chunk) => (bytesRead += chunk.length));
      return stream;
    };
    const source = await openSource({ args: [], input: 'big.csv' }, io({ cwd: dir, openFile }));
    const total = source.countTotal();
    let count = 0;
    let outOfOrder = 0;
    let last: unknown;
    for await (const item of source.items) {
      if (count === 0) {
        expect(item).toMatchObject({ index: 0, input: '2015550000', row: { id: '0', name: 'Name 0, Jr' } });
        // Two readers (items and the background count) share the file; neither has read it all yet.
        expect(bytesRead).toBeLessThan(size);
      }
      if (item.index !== count) outOfOrder++;
      count++;
      last = item;
    }
    expect(count).toBe(ROWS);
    expect(outOfOrder).toBe(0);
    expect(last).toMatchObject({ index: ROWS - 1, input: '2015559999', row: { id: `${ROWS - 1}`, name: `Name ${ROWS - 1}, Jr` } });
    expect(await total).toBe(ROWS);
  });
});
