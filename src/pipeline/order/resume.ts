// --resume: how much of an interrupted output file is whole. The run that wrote it may have died
// mid-write, so the last record can be torn (half a line, or a quoted cell cut after its embedded
// newline); only complete records count, and the caller truncates the file to `validBytes` before
// appending. One streaming pass, so a million-row output costs no memory. A second pass checks
// that those records came from this input (checkResumedInput), before the file is touched.
// fs.promises, not node:fs/promises: the module loads on first use, not with every run's start-up.
import { createReadStream, promises as fs } from 'node:fs';
import { StringDecoder } from 'node:string_decoder';
import { parse } from 'csv-parse/sync';
import { ResumeError } from '../../core/errors.js';
import { isObject } from '../../core/json.js';
import { rowKeys, type SourceItem } from '../../core/run.js';
import { csvRecords } from '../source/csv-records.js';
import { CsvRecordScanner } from '../source/csv-scan.js';
import { readError } from '../source/errors.js';

/** The output formats a run can be resumed in: those written one whole record per line or row. */
export type ResumableFormat = 'csv' | 'tsv' | 'jsonl';

export interface ResumePoint {
  /** Complete data rows in the file (a CSV header is not one). */
  readonly rows: number;
  /** Bytes of the file up to the end of its last complete record. */
  readonly validBytes: number;
  /** The CSV header, when the file has a complete one. */
  readonly header?: string[];
  /** JSON lines: the first record, when it is an object (to check what wrote the file). */
  readonly first?: Record<string, unknown>;
  /**
   * JSON lines: the file's first complete line is not JSON (a CSV, a JSON array): no JSON lines
   * run wrote it, so it is refused rather than taken as torn and written over.
   */
  readonly foreign?: true;
}

/** The header line is kept only up to this size; a longer one is no header numintel wrote. */
const MAX_HEADER = 1 << 20;
/** The delimiter of each tabular output. */
const DELIMITERS = { csv: ',', tsv: '\t' } as const;

export async function inspectOutputForResume(path: string, format: ResumableFormat): Promise<ResumePoint> {
  const chunks = createReadStream(path);
  try {
    return format === 'jsonl' ? await inspectJsonl(chunks) : await inspectCsv(chunks, DELIMITERS[format]);
  } catch (err) {
    if ((err as { code?: unknown }).code === 'ENOENT') return { rows: 0, validBytes: 0 };
    throw readError(err, path);
  } finally {
    chunks.destroy();
  }
}

/** Cuts the torn tail off before appending. */
export async function truncateForResume(path: string, validBytes: number): Promise<void> {
  await fs.truncate(path, validBytes);
}

async function inspectCsv(chunks: AsyncIterable<Buffer>, delimiter: string): Promise<ResumePoint> {
  const scanner = new CsvRecordScanner(delimiter);
  let records = 0;
  let validBytes = 0;
  let headerEnd = -1;
  const head: Buffer[] = [];
  const onRecord = (end: number, hasContent: boolean) => {
    validBytes = end;
    if (!hasContent) return;
    if (records === 0) headerEnd = end;
    records++;
  };
  for await (const chunk of chunks) {
    if (headerEnd === -1 && scanner.offset < MAX_HEADER) head.push(chunk);
    scanner.scan(chunk, onRecord);
  }
  if (records === 0) return { rows: 0, validBytes };
  const header = headerEnd <= MAX_HEADER ? parseHeader(Buffer.concat(head).subarray(0, headerEnd), delimiter) : undefined;
  return { rows: records - 1, validBytes, ...(header && { header }) };
}

function parseHeader(bytes: Buffer, delimiter: string): string[] | undefined {
  try {
    const [header] = parse(bytes, { delimiter, bom: true, relax_quotes: true, skip_empty_lines: true }) as string[][];
    return header;
  } catch {
    return undefined;
  }
}

async function inspectJsonl(chunks: AsyncIterable<Buffer>): Promise<ResumePoint> {
  let rows = 0;
  let validBytes = 0;
  let offset = 0;
  let line: Buffer[] = [];
  let first: Record<string, unknown> | undefined;
  const done = () => (first ? { rows, validBytes, first } : { rows, validBytes });
  for await (const chunk of chunks) {
    let from = 0;
    for (let lf = chunk.indexOf(0x0a); lf !== -1; lf = chunk.indexOf(0x0a, from)) {
      line.push(chunk.subarray(from, lf));
      const text = Buffer.concat(line).toString('utf8').trim();
      line = [];
      from = lf + 1;
      // A complete line that is not JSON was torn by an earlier interrupted run: everything from
      // here on is redone, so the rows counted must stop here too.
      if (text !== '') {
        const record = parsed(text);
        if (record === NOT_JSON) return rows === 0 ? { rows, validBytes, foreign: true } : done();
        if (rows++ === 0 && isObject(record)) first = record;
      }
      validBytes = offset + from;
    }
    line.push(chunk.subarray(from));
    offset += chunk.length;
  }
  return done();
}

const NOT_JSON = Symbol('not JSON');

function parsed(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return NOT_JSON;
  }
}

/** What the resumed run reads: the input's rows from the first on, and its CSV header (null for a list). */
export interface ResumedInput {
  readonly items: AsyncIterator<SourceItem>;
  readonly columns: readonly string[] | null;
  /**
   * The names of the error columns this command writes in CSV/TSV (`error`, `lrn_error`, or
   * `numintel_error` when an input column is called `error`): read by name from the header, never
   * guessed from how a name ends, since an input column may be called `error` or `last_error`.
   */
  readonly errorColumns: readonly string[];
  /**
   * JSON lines written with --fields: flat records of the columns named (output/flat-records.ts),
   * whose errors are under these keys (`error`, `lrn_error`, those named).
   */
  readonly flatErrorKeys?: readonly string[];
}

/**
 * Takes as many rows from `input` as the file's first `point.rows` records and throws a usage
 * error at the first record that was written for another row: resuming with another input would
 * mix two inputs in one file and never look up the new input's first rows. Compared are the input
 * cells a record carries (the `input` of a list, the row's cells for CSV), which the output holds
 * unchanged. Reads the file up to `point.validBytes` only; changes nothing.
 */
/** What the rows already in the file say: the exit code of the resumed run covers the whole file. */
export interface EarlierRows {
  /** Rows with an invalid number (and no other failure). */
  readonly invalid: number;
  /** Rows with at least one failed lookup other than an invalid number. */
  readonly failed: number;
}

export async function checkResumedInput(path: string, label: string, format: ResumableFormat, point: ResumePoint, input: ResumedInput): Promise<EarlierRows> {
  const tally = { invalid: 0, failed: 0 };
  if (point.rows === 0) return tally;
  const keys = input.columns && rowKeys(input.columns);
  const expected = (item: SourceItem): string[] => (keys ? keys.map((k) => item.row?.[k] ?? '') : [item.input]);
  const chunks = createReadStream(path, { end: point.validBytes - 1 });
  const records = format === 'jsonl' ? jsonlInputs(chunks, keys, input.flatErrorKeys) : csvInputs(chunks, DELIMITERS[format], keys?.length ?? 1, input.errorColumns, label);
  let row = 0;
  try {
    for await (const { cells: written, outcome } of records) {
      if (row === point.rows) break;
      row++;
      if (outcome === 'damaged') {
        throw new ResumeError(`cannot resume ${label}: its row ${row} is damaged (not a whole record of this output)`, 'write to a new file, or cut the file before that row');
      }
      if (outcome !== 'ok') tally[outcome]++;
      const next = await input.items.next();
      if (next.done) {
        throw new ResumeError(`cannot resume ${label}: it holds ${point.rows} rows, but the input has only ${row - 1}`, ANOTHER_INPUT);
      }
      const given = expected(next.value);
      if (!sameCells(written, given)) {
        throw new ResumeError(
          `cannot resume ${label}: its row ${row} was written for ${shown(written)}, but row ${row} of the input is ${shown(given)}`,
          ANOTHER_INPUT,
        );
      }
    }
  } catch (err) {
    throw readError(err, label);
  } finally {
    chunks.destroy();
  }
  return tally;
}

type Outcome = 'ok' | 'invalid' | 'failed' | 'damaged';

/** A written record: its input cells, and what its error cells say. */
interface Written {
  readonly cells: string[];
  readonly outcome: Outcome;
}

/** From the messages of a row's errors (`code: message` in CSV, `{code}` in JSON lines). */
function outcomeOf(codes: readonly string[]): Outcome {
  if (codes.length === 0) return 'ok';
  return codes.every((c) => c === 'invalid_number') ? 'invalid' : 'failed';
}

const ANOTHER_INPUT = 'resume with the input of the interrupted run, or write to a new file';

function sameCells(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((cell, i) => cell === b[i]);
}

/** Cells as the user would recognise them, cut short for one line. */
function shown(cells: readonly string[]): string {
  const text = JSON.stringify(cells.length === 1 ? cells[0] : cells.join(','));
  return text.length > 80 ? `${text.slice(0, 77)}..."` : text;
}

/**
 * Each data row's first `width` cells (the input columns, or the `input` column) and its outcome,
 * read from the columns named `errorNames` after those. A row with another number of cells than
 * the header is damaged: a truncated row must not count as done.
 */
async function* csvInputs(chunks: AsyncIterable<Buffer>, delimiter: string, width: number, errorNames: readonly string[], label: string): AsyncGenerator<Written> {
  let header: string[] | undefined;
  let errorColumns: number[] = [];
  for await (const cells of csvRecords(chunks, delimiter, label)) {
    if (header === undefined) {
      header = cells;
      errorColumns = cells.flatMap((name, i) => (i >= width && errorNames.includes(name) ? [i] : []));
      continue;
    }
    const cellsOf = Array.from({ length: width }, (_, i) => cells[i] ?? '');
    if (cells.length !== header.length) {
      yield { cells: cellsOf, outcome: 'damaged' };
      continue;
    }
    const codes = errorColumns.flatMap((i) => {
      const text = cells[i] ?? '';
      return text === '' ? [] : [text.split(':', 1)[0] ?? ''];
    });
    yield { cells: cellsOf, outcome: outcomeOf(codes) };
  }
}

/** Each record's input cells (its row's values under the input's keys, or its `input`) and outcome. */
async function* jsonlInputs(chunks: AsyncIterable<Buffer>, keys: readonly string[] | null, flatErrorKeys?: readonly string[]): AsyncGenerator<Written> {
  for await (const line of lines(chunks)) {
    if (line.trim() === '') continue;
    const record = JSON.parse(line) as unknown;
    const whole = flatErrorKeys ? isObject(record) && (keys ? isObject(record.row) : 'input' in record) : isObject(record) && 'input' in record && 'ok' in record;
    if (!whole || !isObject(record)) {
      yield { cells: [], outcome: 'damaged' };
      continue;
    }
    const row = isObject(record.row) ? record.row : {};
    const errors = flatErrorKeys ? flatErrorKeys.map((k) => record[k]) : isObject(record.errors) ? Object.values(record.errors) : [record.error];
    const codes = errors.flatMap((e) => (isObject(e) && typeof e.code === 'string' ? [e.code] : []));
    yield { cells: keys ? keys.map((k) => String(row[k] ?? '')) : [String(record.input)], outcome: outcomeOf(codes) };
  }
}

/** The lines of a text, the last one without its newline too. */
async function* lines(chunks: AsyncIterable<Buffer>): AsyncGenerator<string> {
  for await (const batch of lineBatches(chunks)) yield* batch;
}

/**
 * The same, the lines of each chunk together: one asynchronous step a chunk, not a line. Split as
 * text (a character cut between two chunks is joined by the decoder): a Buffer per line cost a
 * resume of a million rows seconds.
 */
export async function* lineBatches(chunks: AsyncIterable<Buffer>): AsyncGenerator<string[]> {
  const decoder = new StringDecoder('utf8');
  let partial = '';
  for await (const chunk of chunks) {
    const text = partial + decoder.write(chunk);
    const batch: string[] = [];
    let from = 0;
    // The part carried over holds no newline: the search starts after it.
    for (let lf = text.indexOf('\n', partial.length); lf !== -1; lf = text.indexOf('\n', from)) {
      batch.push(text.slice(from, lf));
      from = lf + 1;
    }
    partial = text.slice(from);
    if (batch.length > 0) yield batch;
  }
  const last = partial + decoder.end();
  if (last !== '') yield [last];
}
