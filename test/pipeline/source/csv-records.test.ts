// The CSV record reader reads a batch that holds no quote, no CR and no BOM by splitting it
// itself; it must give exactly what csv-parse gives (with the reader's options) for any such text,
// however the bytes are cut into chunks, and fail the same way on an over-long field.
import fc from 'fast-check';
import { parse } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import { csvBatches, csvRecords } from '../../../src/pipeline/source/csv-records.js';

async function* chunks(bytes: Buffer, sizes: readonly number[]): AsyncGenerator<Buffer> {
  let at = 0;
  for (let i = 0; at < bytes.length; i++) {
    const n = Math.max(1, sizes[i % sizes.length] ?? bytes.length);
    yield bytes.subarray(at, at + n);
    at += n;
  }
}

async function read(text: string, delimiter: string, sizes: readonly number[] = [65536]): Promise<string[][]> {
  const out: string[][] = [];
  for await (const r of csvRecords(chunks(Buffer.from(text), sizes), delimiter, 'in.csv')) out.push(r);
  return out;
}

const csvParse = (text: string, delimiter: string): string[][] =>
  parse(Buffer.from(text), { delimiter, bom: true, relax_column_count: true, relax_quotes: true, skip_empty_lines: true }) as string[][];

describe('CSV records without quotes', () => {
  it('are what csv-parse reads, whatever the chunks', async () => {
    const unit = fc.constantFrom(',', ';', '\t', '\n', '\n\n', 'a', '2015550123', ' ', '\u00e9', '\u{1f4de}', '');
    await fc.assert(
      fc.asyncProperty(fc.array(unit, { maxLength: 200 }), fc.constantFrom(',', ';', '\t'), fc.array(fc.integer({ min: 1, max: 40 }), { minLength: 1, maxLength: 4 }), async (parts, delimiter, sizes) => {
        const text = parts.join('');
        expect(await read(text, delimiter, sizes)).toEqual(csvParse(text, delimiter));
      }),
      { numRuns: 400, seed: 2211 },
    );
  });

  it('come from one large chunk a few hundred at a time, every record once, in order, line numbers counted across them', async () => {
    const lines = Array.from({ length: 1000 }, (_, i) => `${i},1201555${String(i).padStart(4, '0')}`);
    const sizes: number[] = [];
    const records: string[][] = [];
    // One chunk of 1,000 plain lines, then a line whose quote is never closed.
    for await (const batch of csvBatches(chunks(Buffer.from(`${lines.join('\n')}\n`), [1 << 20]), ',', 'in.csv')) {
      sizes.push(batch.length);
      records.push(...batch);
    }
    expect(records).toEqual(lines.map((l) => l.split(',')));
    expect(Math.max(...sizes)).toBeLessThanOrEqual(256);
    expect(sizes.length).toBeGreaterThanOrEqual(4);
    const broken = `${lines.join('\n')}\n1001,"12015559999\n`;
    await expect(read(broken, ',')).rejects.toThrow(/line 1001 opens a quote that is never closed/);
  });

  it('keep a field longer than 64 KiB on one line whole, as csv-parse batches do: it swallowed no rows', async () => {
    const long = 'x'.repeat(70_000);
    for (const text of [`a,b\n1,2\n3,${long}\n4,5\n`, `a,b\n\n3,${long}`, `a,b\r\n1,2\r\n3,${long}\r\n4,5\r\n`]) {
      const want = csvParse(text, ',');
      expect(want.map((r) => r[1]?.length)).toContain(70_000);
      expect(await read(text, ',')).toEqual(want);
      // The same text with a quote elsewhere goes through csv-parse; the long field quoted too.
      expect(await read(`"a",b${text.slice(3)}`, ',')).toEqual(want);
      expect(await read(text.replace(long, `"${long}"`), ',')).toEqual(want);
    }
  });

  it('still refuse a quoted field past 64 KiB that runs over a line break: a stray quote', async () => {
    const long = 'x'.repeat(40_000);
    const text = `a,b\n1,"${long}\n${long}\n4,5"\n6,7\n`;
    await expect(read(text, ',')).rejects.toThrow(/a quoted field from line 2 is longer than 65536 characters/);
  });
});
