// Reads a numintel output (CSV or TSV, JSON lines or a JSON array, an Excel workbook) as a stream
// and hands each row's facts to `onRow`: memory stays flat however long the file. The form is told
// by the first bytes: a ZIP's signature a workbook (xlsx), `{` JSON lines, `[` a JSON array,
// anything else CSV, or TSV when its header has numintel's columns only when cut at tabs.
import { Readable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import { InputError } from '../core/errors.js';
import type { LookupKind } from '../core/lookups.js';
import { csvRowFacts, csvShape, type CsvShape } from './csv-shape.js';
import { isObject } from '../core/json.js';
import { recordFacts, text, type RowFacts } from './facts.js';

export type InputFormat = 'csv' | 'tsv' | 'jsonl' | 'json' | 'xlsx';

export interface ReadResult {
  readonly format: InputFormat;
  /** Lines or elements that were not numintel records (a torn last line of an interrupted run). */
  readonly unreadable: number;
  /** CSV and TSV: the lookups its header has columns for (rows or none); JSON names them in its records only. */
  readonly lookups: readonly LookupKind[];
}

type RowSink = (row: RowFacts) => void;

export interface ReadOptions {
  /** Also hand out each row's input columns (`inputs`): the columns before `number`, or a JSON record's `row` or `input`. */
  readonly inputs?: boolean;
}

interface Reader {
  /** Takes the next piece of text. */
  push(text: string): void;
  end(): void;
  unreadable: number;
  /** CSV only: the cells are cut at tabs (numintel's TSV), not commas. */
  tabs?: boolean;
  /** CSV only: the lookups of its header. */
  lookups?: readonly LookupKind[];
}

/** A record still open after this many characters is a stray quote, not data. */
const MAX_RECORD = 1 << 20;
/** The longest line read: far above any record numintel writes. */
const MAX_LINE = 1 << 20;

function tooLong(label: string, line: number): never {
  throw new InputError(`${label} is not a numintel output: its line ${line} runs on past ${MAX_LINE.toLocaleString('en-US')} characters`);
}

export async function readOutput(chunks: AsyncIterable<Buffer | string>, label: string, onRow: RowSink, options: ReadOptions = {}): Promise<ReadResult> {
  const inputs = options.inputs === true;
  const decoder = new StringDecoder('utf8');
  let reader: Reader | undefined;
  let format: InputFormat | undefined;
  let head = '';
  const iterator = chunks[Symbol.asyncIterator]();
  for (let next = await iterator.next(); !next.done; next = await iterator.next()) {
    const chunk = next.value;
    // A workbook's first bytes: the rest of the stream is the workbook's.
    if (!reader && head === '' && typeof chunk !== 'string' && chunk.length >= 4 && chunk.readUInt32LE(0) === 0x04034b50) {
      return readWorkbook(rejoined(chunk, iterator), label, onRow, inputs);
    }
    const piece = typeof chunk === 'string' ? chunk : decoder.write(chunk);
    if (reader) {
      reader.push(piece);
      continue;
    }
    head += piece;
    const first = /[^\s\uFEFF]/.exec(head);
    // Blank space before the first record says nothing: it is not kept.
    if (!first) {
      head = '';
      continue;
    }
    format = first[0] === '{' ? 'jsonl' : first[0] === '[' ? 'json' : 'csv';
    reader = format === 'csv' ? csvReader(label, onRow, inputs) : format === 'jsonl' ? jsonLinesReader(label, onRow, inputs) : jsonArrayReader(onRow, inputs);
    reader.push(head.slice(first.index));
  }
  const rest = decoder.end();
  if (!reader || !format) throw new InputError(`${label} is empty: there is nothing to report`);
  if (rest) reader.push(rest);
  reader.end();
  return { format: format === 'csv' && reader.tabs === true ? 'tsv' : format, unreadable: reader.unreadable, lookups: reader.lookups ?? [] };
}

/** `first`, then what is left of `rest`. */
async function* rejoined(first: Buffer, rest: AsyncIterator<Buffer | string>): AsyncGenerator<Buffer> {
  yield first;
  for (let next = await rest.next(); !next.done; next = await rest.next()) yield typeof next.value === 'string' ? Buffer.from(next.value) : next.value;
}

/** An xlsx output (-f xlsx): its first sheet's rows are read as the same output's CSV rows are. */
async function readWorkbook(chunks: AsyncIterable<Buffer>, label: string, onRow: RowSink, withInputs: boolean): Promise<ReadResult> {
  const { workbookRows } = await import('../pipeline/source/xlsx.js');
  let header: string | undefined;
  let read: { shape: CsvShape; facts: (cells: readonly string[]) => RowFacts } | undefined;
  for await (const batch of workbookRows(Readable.from(chunks), label)) {
    for (const cells of batch) {
      if (read === undefined) {
        read = headerFacts(cells, withInputs);
        if (!read) throw noNumintelColumns(label);
        header = cells.join('\u0000');
        continue;
      }
      if (cells.join('\u0000') === header) continue;
      onRow(read.facts(cells));
    }
  }
  if (read === undefined) throw new InputError(`${label} has no rows: there is nothing to report`);
  return { format: 'xlsx', unreadable: 0, lookups: read.shape.kinds.map((k) => k.kind) };
}

function noNumintelColumns(label: string): InputError {
  return new InputError(`${label} is not a numintel output: its header has no numintel columns`, 'report reads what lrn, cnam, trust or enrich wrote (csv, tsv, jsonl, json or xlsx)');
}

/**
 * A header's shape and how its rows become facts; with `withInputs`, each row's input columns too.
 * Undefined for a header without numintel's columns.
 */
function headerFacts(cells: readonly string[], withInputs: boolean): { shape: CsvShape; facts: (cells: readonly string[]) => RowFacts } | undefined {
  let shape = csvShape(cells);
  if (!shape) return undefined;
  if (!withInputs) return { shape, facts: csvRowFacts(shape) };
  const at = shape.numberIndex;
  const inputNames = cells.slice(0, at);
  shape = { ...shape, needed: shape.needed.map((n, i) => n || i < at) };
  const base = csvRowFacts(shape);
  const facts = (c: readonly string[]): RowFacts => {
    // Set on the row object the shape reuses: no copy of it per row (measured with bench/report.js).
    const f = base(c) as { inputs?: RowFacts['inputs'] };
    f.inputs = inputNames.map((name, i) => [name, c[i] ?? ''] as const);
    return f as RowFacts;
  };
  return { shape, facts };
}

/**
 * Splits text into lines (without their CR LF), keeping an unfinished last line for later; `torn`
 * marks a last line without its line end. A line longer than MAX_LINE is no numintel record (a
 * record is a few hundred characters): the read stops there with a one-line error, before the
 * line is held whole.
 */
function lineSplitter(label: string, onLine: (line: string, torn?: boolean) => void): { push(text: string): void; end(): void } {
  let rest = '';
  let lines = 0;
  return {
    push(text) {
      const all = rest === '' ? text : rest + text;
      let start = 0;
      for (let nl = all.indexOf('\n'); nl !== -1; nl = all.indexOf('\n', start)) {
        if (nl - start > MAX_LINE) tooLong(label, lines + 1);
        lines++;
        onLine(all.charCodeAt(nl - 1) === 13 && nl > start ? all.slice(start, nl - 1) : all.slice(start, nl));
        start = nl + 1;
      }
      rest = all.slice(start);
      if (rest.length > MAX_LINE) tooLong(label, lines + 1);
    },
    end() {
      if (rest !== '') onLine(rest.endsWith('\r') ? rest.slice(0, -1) : rest, true);
      rest = '';
    },
  };
}

function csvReader(label: string, onRow: RowSink, withInputs: boolean): Reader {
  let header: string | undefined;
  let shape: CsvShape | undefined;
  let facts: ((cells: readonly string[]) => RowFacts) | undefined;
  let lineNo = 0;
  // A quoted cell may hold line breaks: lines gather here until the record's quotes balance.
  let openRecord = '';
  let openQuotes = 0;
  let delimiter: ',' | '\t' = ',';
  let headerCells = 0;
  const self: Reader = { push: (t) => lines.push(t), end: () => finish(), unreadable: 0 };

  const record = (raw: string, cells: string[]) => {
    if (shape === undefined) {
      header = raw;
      shape = csvShape(cells);
      // numintel's TSV output: the same columns, cut at tabs.
      if (!shape && raw.includes('\t')) {
        shape = csvShape(splitQuoted(raw, '\t'));
        if (shape) delimiter = '\t';
        self.tabs = shape !== undefined;
      }
      if (!shape) throw noNumintelColumns(label);
      const cut = delimiter === ',' ? cells : splitQuoted(raw, delimiter);
      const read = headerFacts(cut, withInputs);
      if (read) ({ shape, facts } = read);
      self.lookups = shape.kinds.map((k) => k.kind);
      headerCells = cut.length;
      return;
    }
    // A file made of several runs' outputs put together repeats the header: not a row.
    if (raw === header) return;
    onRow((facts as (cells: readonly string[]) => RowFacts)(cells));
  };
  const parseQuoted = (raw: string) => record(raw, splitQuoted(raw, shape ? delimiter : ','));
  // An unquoted row's cells: only those the report reads are cut out (into one array used again
  // for every row), which takes half the time of splitting the whole row.
  let cells: string[] = [];
  let needed: readonly boolean[] = [];
  const pick = (line: string): string[] => {
    if (needed !== shape?.needed) {
      needed = shape?.needed ?? [];
      cells = needed.map(() => '');
    }
    let start = 0;
    for (let col = 0; col < needed.length; col++) {
      if (start > line.length) {
        cells[col] = '';
        continue;
      }
      let end = line.indexOf(delimiter, start);
      if (end === -1) end = line.length;
      if (needed[col] === true) cells[col] = line.slice(start, end);
      start = end + 1;
    }
    return cells;
  };
  const lines = lineSplitter(label, (line, torn) => {
    lineNo++;
    if (openRecord !== '') {
      openRecord += `\n${line}`;
      openQuotes += count(line, '"');
      if (openQuotes % 2 === 0) {
        const raw = openRecord;
        openRecord = '';
        parseQuoted(raw);
      } else if (openRecord.length > MAX_RECORD) {
        throw new InputError(`${label} is not valid CSV: a record from line ${lineNo} runs on past ${MAX_RECORD} characters`, 'look for a quote that is never closed');
      }
      return;
    }
    if (line === '') return;
    const clean = lineNo === 1 && line.charCodeAt(0) === 0xfeff ? line.slice(1) : line;
    // numintel ends every row with a line end: a last row without one and short of cells was cut off
    // mid-write (an interrupted run), so its missing cells would read as answers that were never written.
    if (torn && shape && openRecord === '') {
      const width = clean.indexOf('"') === -1 ? count(clean, delimiter) + 1 : splitQuoted(clean, delimiter).length;
      if (width < headerCells) {
        self.unreadable++;
        return;
      }
    }
    if (clean.indexOf('"') === -1) return record(clean, shape ? pick(clean) : clean.split(','));
    const quotes = count(clean, '"');
    if (quotes % 2 === 0) return parseQuoted(clean);
    openRecord = clean;
    openQuotes = quotes;
  });
  const finish = () => {
    lines.end();
    // A torn last record (an interrupted run): not a row.
    if (openRecord !== '') self.unreadable++;
    if (shape === undefined) throw new InputError(`${label} has no rows: there is nothing to report`);
  };
  return self;
}

/**
 * The cells of one CSV record that holds quotes, by the rules csv-parse follows with
 * `relax_quotes` (test/report/reader.test.ts checks the two agree): a quote opens a quoted cell
 * only at the start of a cell, `""` inside one is a quote, and a cell with text after its closing
 * quote is taken as written. Hand-written because csv-parse costs ~40 µs a call, which a file of quoted rows pays on
 * every row; the unquoted rows, nearly all of them, are a plain split.
 */
export function splitQuoted(record: string, delimiter: ',' | '\t' = ','): string[] {
  const sep = delimiter.charCodeAt(0);
  const cells: string[] = [];
  let i = 0;
  for (;;) {
    const start = i;
    let cell = '';
    if (record.charCodeAt(i) === 0x22) {
      i++;
      for (;;) {
        const q = record.indexOf('"', i);
        if (q === -1) {
          cell += record.slice(i);
          i = record.length;
          break;
        }
        cell += record.slice(i, q);
        if (record.charCodeAt(q + 1) === 0x22) {
          cell += '"';
          i = q + 2;
          continue;
        }
        i = q + 1;
        break;
      }
      // Text after the closing quote: the cell was not a quoted one after all, and is taken as written.
      if (i < record.length && record.charCodeAt(i) !== sep) {
        cell = '';
        i = start;
      }
    }
    const comma = record.indexOf(delimiter, i);
    if (comma === -1) {
      cells.push(cell + record.slice(i));
      return cells;
    }
    cells.push(cell + record.slice(i, comma));
    i = comma + 1;
  }
}

function count(s: string, ch: string): number {
  let n = 0;
  for (let i = s.indexOf(ch); i !== -1; i = s.indexOf(ch, i + 1)) n++;
  return n;
}

function jsonLinesReader(label: string, onRow: RowSink, withInputs: boolean): Reader {
  const self: Reader = { push: (t) => lines.push(t), end: () => lines.end(), unreadable: 0 };
  const lines = lineSplitter(label, (line) => {
    if (line.trim() === '') return;
    element(line, onRow, self, withInputs);
  });
  return self;
}

function element(line: string, onRow: RowSink, reader: Reader, withInputs: boolean): void {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    reader.unreadable++;
    return;
  }
  const facts = recordFacts(value);
  if (facts && withInputs && isObject(value)) {
    const row = value.row;
    onRow({ ...facts, inputs: isObject(row) ? Object.entries(row).map(([k, v]) => [k, text(v)] as const) : [['input', text(value.input)]] });
  } else if (facts) onRow(facts);
  else reader.unreadable++;
}

/**
 * The elements of a JSON array, each parsed on its own as soon as it is complete: a small scanner
 * follows strings and nesting only to find where each top-level element ends.
 */
function jsonArrayReader(onRow: RowSink, withInputs: boolean): Reader {
  let depth = 0;
  let inString = false;
  let escaped = false;
  let part = '';
  const self: Reader = {
    unreadable: 0,
    push(text) {
      let start = depth >= 2 ? 0 : -1;
      for (let i = 0; i < text.length; i++) {
        const c = text.charCodeAt(i);
        if (inString) {
          if (escaped) escaped = false;
          else if (c === 0x5c) escaped = true;
          else if (c === 0x22) inString = false;
          continue;
        }
        if (c === 0x22) inString = true;
        else if (c === 0x7b || c === 0x5b) {
          if (depth === 1) start = i;
          depth++;
        } else if (c === 0x7d || c === 0x5d) {
          depth--;
          if (depth === 1 && start >= 0) {
            element(part + text.slice(start, i + 1), onRow, self, withInputs);
            part = '';
            start = -1;
          }
        }
      }
      if (start >= 0) {
        part += text.slice(start);
        if (part.length > MAX_RECORD) throw new InputError(`an element of the JSON array runs on past ${MAX_RECORD} characters`);
      }
    },
    end() {
      // An array cut short (an interrupted run) leaves its last element open: not a row.
      if (part !== '') self.unreadable++;
    },
  };
  return self;
}
