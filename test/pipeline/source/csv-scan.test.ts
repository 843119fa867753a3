import { parse } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import { countCsvRecords, CsvRecordScanner } from '../../../src/pipeline/source/csv-scan.js';

function ends(text: string, chunkSize = text.length, delimiter = ','): number[] {
  const scanner = new CsvRecordScanner(delimiter);
  const out: number[] = [];
  const bytes = Buffer.from(text);
  for (let i = 0; i < bytes.length; i += chunkSize) scanner.scan(bytes.subarray(i, i + chunkSize), (end) => out.push(end));
  return out;
}

async function* chunksOf(text: string, size: number): AsyncGenerator<Buffer> {
  const bytes = Buffer.from(text);
  for (let i = 0; i < bytes.length; i += size) yield bytes.subarray(i, i + size);
}

describe('CsvRecordScanner', () => {
  it('ends records at newlines outside quotes only, whatever the chunking', () => {
    const text = 'a,b\n"x\ny",2\n"say ""hi""\n",3\r\nlast,4\n';
    for (const size of [1, 2, 3, 7, 100]) expect(ends(text, size)).toEqual([4, 12, 29, 36]);
  });

  it('treats a quote inside an unquoted field as text, as csv-parse with relax_quotes does', () => {
    const text = 'John "J" Smith,1\nnext,2\n';
    expect(ends(text)).toEqual([17, 24]);
    expect(parse(text, { relax_quotes: true })).toHaveLength(2);
  });

  it('knows a quote right after the delimiter opens a field', () => {
    expect(ends('a;"b\n";c\nd\n', undefined, ';')).toEqual([9, 11]);
  });
});

describe('countCsvRecords', () => {
  it('counts the records csv-parse finds, skipping blank lines, with or without a last newline', async () => {
    const samples = ['h1,h2\n1,2\n\n3,"x\n\ny"\n\n4,5', 'h1,h2\r\n\r\n"a\r\nb",2\r\n', 'h\n1\n2\n', '', '\n\n', 'only'];
    for (const text of samples) {
      const expected = (parse(text, { skip_empty_lines: true, relax_column_count: true }) as unknown[]).length;
      expect(await countCsvRecords(chunksOf(text, 3), ',')).toBe(expected);
    }
  });
});
