// CSV records from a byte stream, each as soon as its line is complete. csv-parse's streaming
// parser holds back the last record of every chunk until one more byte arrives (it cannot tell
// "\n" from the start of "\r\n"), which would keep a slow producer's first row waiting for the
// second. So the quote-aware scanner cuts the stream at record ends and csv-parse parses each
// batch of whole records: prompt for a trickle, one call per chunk for a fast file.
import { parse } from 'csv-parse/sync';
import { InputError } from '../core/errors.js';
import { CsvRecordScanner } from './csv-scan.js';

/** A record still open after this many bytes is a stray quote, not data: stop before memory goes. */
const MAX_RECORD_BYTES = 1 << 20;

export async function* csvRecords(chunks: AsyncIterable<Buffer>, delimiter: string, label: string): AsyncGenerator<string[]> {
  const scanner = new CsvRecordScanner(delimiter);
  const parseBatch = batchParser(delimiter, label);
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let lastEnd = 0;
  const onRecord = (end: number) => {
    lastEnd = end;
  };
  for await (const chunk of chunks) {
    const chunkStart = scanner.offset;
    scanner.scan(chunk, onRecord);
    const cut = lastEnd - chunkStart;
    if (cut <= 0) {
      pending.push(chunk);
      pendingBytes += chunk.length;
      if (pendingBytes > MAX_RECORD_BYTES) {
        throw new InputError(`${label} is not valid CSV: a record runs past ${MAX_RECORD_BYTES} bytes`, 'look for a quote that is never closed');
      }
      continue;
    }
    const batch = pending.length === 0 ? chunk.subarray(0, cut) : Buffer.concat([...pending, chunk.subarray(0, cut)]);
    pending = cut < chunk.length ? [chunk.subarray(cut)] : [];
    pendingBytes = chunk.length - cut;
    yield* parseBatch(batch);
  }
  if (pendingBytes > 0) yield* parseBatch(Buffer.concat(pending));
}

function batchParser(delimiter: string, label: string): (batch: Buffer) => string[][] {
  let linesBefore = 0;
  return (batch) => {
    let records: string[][];
    try {
      records = parse(batch, { delimiter, bom: true, relax_column_count: true, relax_quotes: true, skip_empty_lines: true }) as string[][];
    } catch (err) {
      // csv-parse counts lines from the start of the batch; the user counts from the start of the file.
      const message = (err as Error).message.replace(/\bline (\d+)/g, (_, n: string) => `line ${linesBefore + Number(n)}`);
      throw new InputError(`${label} is not valid CSV: ${message}`, 'check its quoting, or pass --delimiter');
    }
    for (let i = batch.indexOf(0x0a); i !== -1; i = batch.indexOf(0x0a, i + 1)) linesBefore++;
    return records;
  };
}
