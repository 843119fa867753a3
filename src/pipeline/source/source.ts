// Where numbers come from (cli.md): arguments, else -i/--input (a file, or `-` for stdin), else
// stdin when it is not a terminal. A file or stream is a plain list or CSV; which one is decided
// by its name, by --csv/--delimiter, or by sniffing its first significant line.
// fs.promises, not node:fs/promises: the module loads on first use, not with every run's start-up.
import { unlessInterrupted } from '../../core/interruptible.js';
import { createReadStream, promises as fs } from 'node:fs';
import { resolve } from 'node:path';
import type { Readable } from 'node:stream';
import { BadOptionError, InputError, UnknownColumnError, UsageError } from '../../core/errors.js';
import type { SourceItem } from '../../core/run.js';
import { isPhoneHeader } from './column-detect.js';
import { readError } from './errors.js';
import { openInput } from './fifo.js';
import { countListEntries, listItems } from './list.js';
import { peekInput, replay, sniffDelimiter } from './peek.js';
import { isWorkbookStart, textInput } from './sniff.js';

export interface SourceSpec {
  /** Numbers given as arguments. */
  readonly args: string[];
  /** `-i/--input`: a path, or `-` for stdin. */
  readonly input?: string;
  /** `--csv`: CSV whatever the name says. */
  readonly csv?: boolean;
  /** `--column`: a header name or a 1-based index. */
  readonly column?: string;
  /** `--delimiter` (`\t` and `tab` mean a tab); implies CSV. */
  readonly delimiter?: string;
  /** false = `--no-header`. */
  readonly header?: boolean;
  /** `--sheet`: a workbook's sheet, by name or 1-based position (the first when absent). */
  readonly sheet?: string;
}

export interface SourceIO {
  readonly stdin: Readable & { isTTY?: boolean };
  /** Relative paths are resolved against this. */
  readonly cwd: string;
  /** Opens a file for reading; `fs.createReadStream` unless a test says otherwise. */
  readonly openFile?: (path: string) => Readable;
  /** Ends the wait for the input's first lines (Ctrl-C): openSource then throws an InterruptedError. */
  readonly signal?: AbortSignal | undefined;
  /** Called once, at the first CSV data row with more cells than the header (see CsvReadOptions). */
  readonly onWideRow?: (row: number, cells: number, columns: number) => void;
}

export interface Source {
  /** `xlsx`: an Excel workbook, read as the CSV of its sheet. */
  readonly kind: 'args' | 'list' | 'csv' | 'xlsx';
  /** How messages name the input: its path, standard input, or the arguments. */
  readonly label: string;
  /** CSV header names in order (`column1..N` without a header); null for args and lists. */
  readonly columns: string[] | null;
  readonly hasHeader: boolean;
  readonly delimiter?: string;
  readonly numberColumn?: { index: number; name: string };
  /** One item per data row, in order, `index` counting from 0 at the input's first data row. */
  readonly items: AsyncIterable<SourceItem>;
  /**
   * Data rows in the whole input for arguments and regular files; undefined for stdin, pipes, or
   * when counting failed. A file is read a second time to count it, so only on the first call (then
   * in the background, never holding up `items`); later calls share that count.
   */
  readonly countTotal: () => Promise<number | undefined>;
  /** Stops reading the input, for when `items` is not iterated to its end. */
  readonly close: () => Promise<void>;
}

export async function openSource(spec: SourceSpec, io: SourceIO): Promise<Source> {
  if (spec.args.length > 0) {
    if (spec.input !== undefined) {
      throw new UsageError('numbers given both as arguments and with --input', 'pass numbers as arguments or -i <file>, not both');
    }
    await refuseFileArguments(spec.args, io.cwd);
    return argsSource(spec.args);
  }
  // An empty name (`-i ""`, an unset shell variable) would resolve to the current directory.
  if (spec.input === '') throw new InputError('-i needs a file name (or - for standard input), and was given an empty one');
  if (spec.input === undefined && io.stdin.isTTY) {
    throw new UsageError('no numbers given', 'pass numbers as arguments, -i <file>, or pipe them on stdin');
  }

  // The CSV reader (and csv-parse) loads only for input that may be CSV, while the input is opened.
  const csvReader = import('./csv.js');
  csvReader.catch(() => undefined);
  const fromFile = spec.input !== undefined && spec.input !== '-';
  const label = fromFile ? (spec.input as string) : 'standard input';
  const path = fromFile ? resolve(io.cwd, spec.input as string) : undefined;
  const openFile = io.openFile ?? ((p: string) => createReadStream(p));
  const regularFile = path !== undefined && (await checkFile(path, label));
  if (path !== undefined && regularFile && (/\.xlsx$/i.test(label) || (await isWorkbookFile(path)))) return xlsxSource(path, label, spec, io);
  if (spec.sheet !== undefined) throw new UsageError(`--sheet picks a sheet of an Excel workbook, and ${label} is not one`, 'give the workbook with -i <file>.xlsx, or leave --sheet out');
  // A named pipe is read on the event loop (see fifo.ts), so Ctrl-C can end the wait.
  const stream = path === undefined ? io.stdin : io.openFile || regularFile ? openFile(path) : await openInput(path).catch((err: unknown) => {
    throw readError(err, label);
  });
  const close = async () => void stream.destroy();

  // A workbook, an archive or other binary is refused here, before a row is read; UTF-16 becomes UTF-8.
  const cancel = () => void stream.destroy();
  const peek = await unlessInterrupted(
    peekInput(textInput(stream, label)).catch((err: unknown) => {
      stream.destroy();
      throw readError(err, label);
    }),
    io.signal,
    cancel,
    'waiting for the input',
  );
  const recount = (from: number) =>
    regularFile && path !== undefined ? () => afterBytes(textInput(openFile(path), label), peek.dropped + from) : undefined;

  const named = /\.tsv$/i.test(label) ? 'tsv' : /\.csv$/i.test(label) ? 'csv' : undefined;
  const given = spec.delimiter === undefined ? undefined : delimiterOption(spec.delimiter);
  // A given delimiter is the delimiter: sniffing would only be thrown away.
  const sniffed = peek.line === undefined || given !== undefined ? undefined : sniffDelimiter(peek.line);
  const declared = spec.csv === true || named !== undefined || given !== undefined;
  // A lone "phone" line heads a one-column CSV; as a list entry it would only be an invalid number.
  const headed = peek.line !== undefined && isPhoneHeader(peek.line.replace(/^"(.*)"$/, '$1'));
  if (!declared && !headed && (sniffed === undefined || sniffed.fields < 2)) {
    const items = listItems(withReadErrors(replay(peek, 0), label), label);
    return { kind: 'list', label, columns: null, hasHeader: false, items, countTotal: countInBackground(recount(0), countListEntries), close };
  }

  const delimiter = given ?? (named === 'tsv' ? '\t' : (sniffed?.delimiter ?? ','));
  // A sniffed CSV may follow `#` comment lines, which are not its header; a declared one starts at its first line.
  const from = declared ? 0 : peek.start;
  const { openCsv, countCsvRecords } = await csvReader;
  const csv = await unlessInterrupted(
    openCsv(replay(peek, from), { delimiter, header: spec.header !== false, column: spec.column, label, onWideRow: io.onWideRow }).catch((err: unknown) => {
      stream.destroy();
      throw err;
    }),
    io.signal,
    cancel,
    'waiting for the input',
  );
  const headerRows = csv.hasHeader ? 1 : 0;
  const countTotal = countInBackground(recount(from), async (chunks) => Math.max(0, (await countCsvRecords(chunks, delimiter)) - headerRows));
  return { kind: 'csv', label, columns: csv.columns, hasHeader: csv.hasHeader, delimiter, numberColumn: csv.numberColumn, items: csv.items, countTotal, close };
}

/**
 * A workbook's sheet, read as CSV is (csv.ts). Its rows are counted (for the progress bar, and for
 * xlsx output, whose sheet holds at most 1,048,576) by scanning the sheet's XML a second time, cells unread.
 */
async function xlsxSource(path: string, label: string, spec: SourceSpec, io: SourceIO): Promise<Source> {
  if (spec.delimiter !== undefined) throw new UsageError(`--delimiter is for CSV input, and ${label} is an Excel workbook`, 'leave --delimiter out');
  const { openXlsx, countWorkbookRows } = await import('./xlsx.js');
  const opened = openXlsx(path, { header: spec.header !== false, column: spec.column, label, sheet: spec.sheet, onWideRow: io.onWideRow }).catch((err: unknown) => {
    // The numbers are often on another sheet than the first (a cover sheet, notes).
    if (err instanceof UnknownColumnError && spec.sheet === undefined) throw new UnknownColumnError(`${err.message} (its first sheet)`, `${err.hint ?? ''}; or read another sheet with --sheet <name|n>`);
    throw err;
  });
  const xlsx = await unlessInterrupted(opened, io.signal, () => undefined, 'reading the workbook');
  const headerRows = xlsx.hasHeader ? 1 : 0;
  let total: Promise<number | undefined> | undefined;
  const count = async () => Math.max(0, (await countWorkbookRows(path, label, spec.sheet)) - headerRows);
  const countTotal = () => (total ??= new Promise<void>((done) => setImmediate(done)).then(count).catch(() => undefined));
  return {
    kind: 'xlsx',
    label,
    columns: xlsx.columns,
    hasHeader: xlsx.hasHeader,
    ...(xlsx.numberColumn ? { numberColumn: xlsx.numberColumn } : {}),
    items: xlsx.items,
    countTotal,
    close: xlsx.close,
  };
}

/**
 * `--column` picks a column of CSV input; given for a list or for arguments it would pick nothing,
 * so the run says so (a CSV with an unusual delimiter read as a list is the likely mistake).
 */
export function ignoredColumnWarning(column: string | undefined, source: Pick<Source, 'kind' | 'label'>): string | undefined {
  if (column === undefined || source.kind === 'csv' || source.kind === 'xlsx') return undefined;
  if (source.kind === 'args') return '--column is ignored: it picks a column of CSV input, not of numbers given as arguments';
  return `--column is ignored: ${source.label} reads as a plain list, one number per line (--csv, with --delimiter if need be, reads it as CSV)`;
}

/**
 * `numintel lrn leads.csv`: a file named where numbers go is a forgotten -i, not a number with
 * letters in it (which would come out as one invalid row). Only arguments with a letter are looked
 * for on disk: a number never has one, bar an extension (`x12`).
 */
async function refuseFileArguments(args: readonly string[], cwd: string): Promise<void> {
  for (const arg of args) {
    if (!/[a-z]/i.test(arg)) continue;
    if (await isFile(resolve(cwd, arg))) throw new UsageError(`"${arg}" is a file, not a phone number`, `to read the numbers in it, give it with -i: -i ${arg}`);
  }
}

/** Whether `path` names a regular file (anything unreadable is not one). */
export function isFile(path: string): Promise<boolean> {
  return fs.stat(path).then(
    (info) => info.isFile(),
    () => false,
  );
}

function argsSource(args: readonly string[]): Source {
  async function* items(): AsyncGenerator<SourceItem> {
    for (let index = 0; index < args.length; index++) yield { index, input: args[index] as string };
  }
  const total = Promise.resolve(args.length);
  return { kind: 'args', label: 'the arguments', columns: null, hasHeader: false, items: items(), countTotal: () => total, close: async () => {} };
}

/** Whether a file's first bytes are a workbook's (one named without .xlsx). */
async function isWorkbookFile(path: string): Promise<boolean> {
  const file = await fs.open(path, 'r').catch(() => undefined);
  if (!file) return false;
  try {
    const head = Buffer.alloc(4096);
    const { bytesRead } = await file.read(head, 0, head.length, 0);
    return isWorkbookStart(head.subarray(0, bytesRead));
  } finally {
    await file.close();
  }
}

/** Fails early, with the reason in words, on what cannot be a readable file; true for a regular file. */
async function checkFile(path: string, label: string): Promise<boolean> {
  const info = await fs.stat(path).catch((err: unknown) => {
    throw readError(err, label);
  });
  if (info.isDirectory()) throw new InputError(`cannot read ${label}: it is a directory`);
  return info.isFile();
}

function delimiterOption(value: string): string {
  if (value === '\\t' || value.toLowerCase() === 'tab') return '\t';
  if (value === '') throw new BadOptionError('--delimiter is empty', 'give the character that separates the columns, e.g. --delimiter ";"');
  // One character (a code point: an emoji is one): the CSV reader splits on nothing longer.
  if ([...value].length !== 1) throw new BadOptionError(`--delimiter must be one character, got ${JSON.stringify(value)}`, 'e.g. --delimiter ";", --delimiter tab');
  // These already mean something in CSV: quoting, and the end of a record.
  if (value === '"' || value === '\n' || value === '\r') {
    throw new BadOptionError(`--delimiter cannot be ${JSON.stringify(value)}: in CSV it ${value === '"' ? 'quotes a field' : 'ends a row'}`, 'e.g. --delimiter ";", --delimiter tab');
  }
  return value;
}

/**
 * Counting starts on the first call, never blocks the items and never fails the run: without a
 * count there is no ETA. Later calls get the same promise.
 */
function countInBackground(
  open: (() => AsyncIterable<Buffer>) | undefined,
  count: (chunks: AsyncIterable<Buffer>) => Promise<number>,
): () => Promise<number | undefined> {
  let total: Promise<number | undefined> | undefined;
  return () => {
    if (total !== undefined) return total;
    total = open === undefined ? Promise.resolve(undefined) : new Promise<void>((done) => setImmediate(done)).then(() => count(open())).catch(() => undefined);
    return total;
  };
}

async function* afterBytes(chunks: AsyncIterable<Buffer>, skip: number): AsyncGenerator<Buffer> {
  let left = skip;
  for await (const chunk of chunks) {
    if (left >= chunk.length) {
      left -= chunk.length;
      continue;
    }
    yield left > 0 ? chunk.subarray(left) : chunk;
    left = 0;
  }
}

async function* withReadErrors(chunks: AsyncIterable<Buffer>, label: string): AsyncGenerator<Buffer> {
  try {
    yield* chunks;
  } catch (err) {
    throw readError(err, label);
  }
}
