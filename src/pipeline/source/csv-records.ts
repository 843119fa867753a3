// CSV records from a byte stream, each as soon as its line is complete. csv-parse's streaming
// parser holds back the last record of every chunk until one more byte arrives (it cannot tell
// "\n" from the start of "\r\n"), which would keep a slow producer's first row waiting for the
// second. So the quote-aware scanner cuts the stream at record ends and csv-parse parses each
// batch of whole records: prompt for a trickle, one call per chunk for a fast file.
import { parse } from 'csv-parse/sync';
import { InputError } from '../../core/errors.js';
import { CsvRecordScanner } from './csv-scan.js';

/** A record still open after this many bytes is a stray quote, not data: stop before memory goes. */
const MAX_RECORD_BYTES = 1 << 20;
/**
 * A quoted field may hold a few line breaks (an address); one spanning more lines than this, or
 * longer than MAX_FIELD_CHARS, is a stray quote that swallowed the rows after it, which would
 * otherwise vanish unseen into one cell.
 */
const MAX_FIELD_LINES = 50;
const MAX_FIELD_CHARS = 64 * 1024;

export async function* csvRecords(chunks: AsyncIterable<Buffer>, delimiter: string, label: string): AsyncGenerator<string[]> {
  for await (const batch of csvBatches(chunks, delimiter, label)) yield* batch;
}

/**
 * The same records in batches (one per chunk of whole records): a reader that walks each batch in
 * a plain loop pays for one asynchronous step per chunk, not per record.
 */
export async function* csvBatches(chunks: AsyncIterable<Buffer>, delimiter: string, label: string): AsyncGenerator<string[][]> {
  const scanner = new CsvRecordScanner(delimiter);
  const lines = { before: 0 };
  const parseBatch = batchParser(delimiter, label, lines);
  let carried: Buffer[] = [];
  let carriedBytes = 0;
  let lastEnd = 0;
  const onRecord = (end: number) => {
    lastEnd = end;
  };
  for await (const chunk of chunks) {
    const chunkStart = scanner.offset;
    scanner.scan(chunk, onRecord);
    const cut = lastEnd - chunkStart;
    if (cut <= 0) {
      carried.push(chunk);
      carriedBytes += chunk.length;
      if (carriedBytes > MAX_RECORD_BYTES) {
        throw new InputError(`${label} is not valid CSV: the record from line ${lines.before + 1} runs past ${MAX_RECORD_BYTES} bytes`, 'look for a quote that is never closed');
      }
      continue;
    }
    const batch = carried.length === 0 ? chunk.subarray(0, cut) : Buffer.concat([...carried, chunk.subarray(0, cut)]);
    carried = cut < chunk.length ? [chunk.subarray(cut)] : [];
    carriedBytes = chunk.length - cut;
    for (const records of parseBatch(batch)) if (records.length > 0) yield records;
  }
  if (carriedBytes > 0) {
    for (const records of parseBatch(Buffer.concat(carried))) if (records.length > 0) yield records;
  }
}

/**
 * The most records a plain batch yields at once: its lines are split as the run takes them. Split
 * all at once, a 64 KiB chunk's thousands of records waited long enough to be moved to the old
 * generation (bench/gc-promotion.js). A quoted batch comes whole: csv-parse makes its records at once.
 */
const RECORDS_AT_ONCE = 256;

const QUOTE = 0x22;
const CR = 0x0d;
const BOM = [0xef, 0xbb, 0xbf];

function batchParser(delimiter: string, label: string, lines: { before: number }): (batch: Buffer) => Iterable<string[][]> {
  return (batch) => {
    // Most files quote nothing and end lines with LF alone: csv-parse would find exactly the
    // lines split at the delimiter (empty lines skipped), at a fraction of the cost.
    if (batch.indexOf(QUOTE) === -1 && batch.indexOf(CR) === -1 && !BOM.every((b, i) => batch[i] === b)) return plainRecords(batch, delimiter, lines);
    let records: { record: string[]; info: { lines: number } }[];
    try {
      records = parse(batch, { delimiter, bom: true, relax_column_count: true, relax_quotes: true, skip_empty_lines: true, info: true }) as unknown as typeof records;
    } catch (err) {
      // A quote still open at the end of the input: the scanner cut every record before it, so the
      // unparsed rest (this batch) is the record that opens it. csv-parse names the input's last line
      // (and counts a CRLF as two), which would send the user to a line with nothing wrong.
      if ((err as { code?: unknown }).code === 'CSV_QUOTE_NOT_CLOSED') {
        const line = lines.before + 1;
        throw new InputError(`${label} is not valid CSV: the record from line ${line} opens a quote that is never closed`, `look for a stray quote (") on line ${line}; a field that holds a quote writes it twice ("")`);
      }
      // csv-parse counts lines from the start of the batch; the user counts from the start of the file.
      const message = (err as Error).message.replace(/\bline (\d+)/g, (_, n: string) => `line ${lines.before + Number(n)}`);
      throw new InputError(`${label} is not valid CSV: ${message}`, 'check its quoting, or pass --delimiter');
    }
    for (const { record, info } of records) checkFields(record, lines.before + info.lines, label);
    for (let i = batch.indexOf(0x0a); i !== -1; i = batch.indexOf(0x0a, i + 1)) lines.before++;
    return [records.map((r) => r.record)];
  };
}

/**
 * Records of a batch with no quote, no CR and no BOM: its non-empty lines, split at the delimiter,
 * RECORDS_AT_ONCE at a time.
 */
function* plainRecords(batch: Buffer, delimiter: string, lines: { before: number }): Generator<string[][]> {
  const text = batch.toString('utf8');
  let records: string[][] = [];
  let start = 0;
  while (start < text.length) {
    let end = text.indexOf('\n', start);
    if (end === -1) end = text.length;
    else lines.before++;
    // No quote, so no field holds a line break: none can have swallowed rows, however long.
    if (end > start) records.push(text.slice(start, end).split(delimiter));
    start = end + 1;
    if (records.length === RECORDS_AT_ONCE) {
      yield records;
      records = [];
    }
  }
  if (records.length > 0) yield records;
}

/**
 * Refuses a field that swallowed rows, naming the line it starts on. `endLine`: where its record ends.
 * A field without a line break swallowed nothing: a long note on one line is data, kept whole.
 */
function checkFields(record: readonly string[], endLine: number, label: string): void {
  for (const field of record) {
    if (field.length < 200) continue;
    let breaks = 0;
    for (let i = field.indexOf('\n'); i !== -1 && breaks <= MAX_FIELD_LINES; i = field.indexOf('\n', i + 1)) breaks++;
    if (breaks <= MAX_FIELD_LINES && (field.length <= MAX_FIELD_CHARS || (breaks === 0 && !field.includes('\r')))) continue;
    let inRecord = 0;
    for (const f of record) for (let i = f.indexOf('\n'); i !== -1; i = f.indexOf('\n', i + 1)) inRecord++;
    const start = Math.max(1, endLine - inRecord);
    const what = breaks > MAX_FIELD_LINES ? `spans more than ${MAX_FIELD_LINES} lines` : `is longer than ${MAX_FIELD_CHARS} characters`;
    throw new InputError(
      `${label} is not valid CSV: a quoted field from line ${start} ${what}, swallowing the rows after it`,
      `look for a stray quote (") on line ${start}; a field that holds a quote writes it twice ("")`,
    );
  }
}
