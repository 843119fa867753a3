// Excel workbooks (.xlsx) as rows of text cells, streamed: the first sheet or the one --sheet
// names. A cell keeps what it shows as text: a number its digits (12015550123, never 1.2E10), a
// date its ISO date, a formula its last result. The rows then go through the CSV reader's header
// and number-column detection (csv.ts), so a workbook reads exactly as the same sheet saved as CSV.
import type { Readable } from 'node:stream';
import { InputError } from '../../core/errors.js';
import { openRecords, type CsvReadOptions, type CsvSource } from './csv.js';

/** Rows handed on at once: one asynchronous step per batch, as CSV's reader does per chunk. */
const ROWS_AT_ONCE = 256;

export interface XlsxReadOptions extends Omit<CsvReadOptions, 'delimiter'> {
  /** `--sheet`: a sheet's name or its 1-based position; the first sheet when absent. */
  readonly sheet?: string | undefined;
}

export function openXlsx(input: string | Readable, opts: XlsxReadOptions): Promise<CsvSource> {
  return openRecords(workbookRows(input, opts.label, opts.sheet), opts);
}

/** The chosen sheet's rows, ROWS_AT_ONCE at a time, each as text cells (trailing empty cells dropped). */
export async function* workbookRows(input: string | Readable, label: string, sheet?: string): AsyncGenerator<string[][]> {
  // Styles are read only to tell a date from a number; shared strings are the text of most cells.
  for await (const ws of chosenSheet(input, label, sheet, { sharedStrings: 'cache', styles: 'cache' })) {
    ws.iterator = xmlPieces(ws.iterator);
    let batch: string[][] = [];
    try {
      // An empty row is not in the file at all: skipped, as CSV's reader skips empty lines.
      for await (const row of ws) {
        batch.push(rowCells(row.values as unknown[]));
        if (batch.length === ROWS_AT_ONCE) {
          yield batch;
          batch = [];
        }
      }
    } catch (err) {
      throw unreadable(err, label);
    }
    if (batch.length > 0) yield batch;
  }
}

/**
 * The rows workbookRows yields, counted without reading a cell: the `<row` elements of the chosen
 * sheet's XML (workbookRows yields one per element, an empty one too). Neither the shared strings
 * nor the styles are read, so counting a sheet holds only the bytes being scanned.
 */
export async function countWorkbookRows(input: string | Readable, label: string, sheet?: string): Promise<number> {
  let rows = 0;
  for await (const ws of chosenSheet(input, label, sheet, { sharedStrings: 'ignore', styles: 'ignore' })) {
    try {
      rows = await countRowTags(ws.iterator);
    } catch (err) {
      throw unreadable(err, label);
    }
  }
  return rows;
}

/** About the characters of XML the library parses at once (the reader's chunks are 64 KiB). */
const PIECE = 4096;

/**
 * A sheet's XML as text in pieces of about PIECE characters, each cut after a `>`. The
 * library turns each piece into rows at once and holds them while the rows before wait for the
 * lookups: in small pieces, most of a batch's rows are garbage by then, and die young instead of
 * being copied into the old generation. Decoded here as one stream: a character whose bytes fall
 * across two chunks stays one character (the library decodes each chunk on its own).
 */
export async function* xmlPieces(bytes: AsyncIterable<unknown>): AsyncGenerator<string> {
  const decoder = new TextDecoder();
  for await (const chunk of bytes) {
    const text = typeof chunk === 'string' ? chunk : decoder.decode(chunk as Uint8Array, { stream: true });
    let from = 0;
    for (let end = text.indexOf('>', from + PIECE); end !== -1; end = text.indexOf('>', from + PIECE)) {
      yield text.slice(from, end + 1);
      from = end + 1;
    }
    if (from < text.length) yield from === 0 ? text : text.slice(from);
  }
  const rest = decoder.decode();
  if (rest.length > 0) yield rest;
}

const ROW_TAG = Buffer.from('<row');
/** What may follow `<row` in a row's start tag (not `<rowBreaks`): white space, `>` or `/`. */
const endsName = (byte: number | undefined) => byte === 0x20 || byte === 0x3e || byte === 0x2f || byte === 0x09 || byte === 0x0a || byte === 0x0d;

/** `<row` start tags in a sheet's XML, which comes in chunks that may split a tag. */
async function countRowTags(xml: AsyncIterable<unknown>): Promise<number> {
  let rows = 0;
  // A tag split between chunks: the last bytes of one, too few to hold a whole `<row` and the byte after.
  let carry = Buffer.alloc(0);
  for await (const chunk of xml) {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : Buffer.from((chunk as Uint8Array).buffer, (chunk as Uint8Array).byteOffset, (chunk as Uint8Array).byteLength);
    const text = carry.length === 0 ? bytes : Buffer.concat([carry, bytes]);
    for (let at = text.indexOf(ROW_TAG); at !== -1 && at + ROW_TAG.length < text.length; at = text.indexOf(ROW_TAG, at + ROW_TAG.length)) {
      if (endsName(text[at + ROW_TAG.length])) rows++;
    }
    carry = Buffer.from(text.subarray(Math.max(0, text.length - ROW_TAG.length)));
  }
  return rows;
}

type SheetReader = AsyncIterable<{ values: unknown }> & { name: string; sheetNo: number; iterator: AsyncIterable<unknown> };

/**
 * The sheet --sheet names (the first when absent), once; the rest of the workbook is read past.
 * Throws the input error that names the sheets when it is not there.
 *
 * A sheet can come before the part that names the sheets (Excel stores that part first; excelts and
 * exceljs last): a sheet parsed as soon as it comes (when the shared strings are not read, or came
 * before it) goes by a placeholder (Sheet1, …), never chosen by name. If the name, read later, was
 * that sheet's, a workbook file is read again for it, by its place in the file (`sheetNo`).
 */
async function* chosenSheet(
  input: string | Readable,
  label: string,
  sheet: string | undefined,
  parts: { sharedStrings: 'cache' | 'ignore'; styles: 'cache' | 'ignore' },
  sheetNo?: number,
): AsyncGenerator<SheetReader> {
  const { WorkbookReader } = await import('../../core/xlsx-library.js');
  const reader = new WorkbookReader(input, { worksheets: 'emit', ...parts, hyperlinks: 'ignore', entries: 'ignore' });
  const wanted = sheetWanted(sheet);
  const byName = sheet !== undefined && sheetPosition(sheet) === undefined;
  const seen: { name: string; sheetNo: number; named: boolean }[] = [];
  let found = false;
  try {
    for await (const ws of reader) {
      const named = reader.namesRead;
      seen.push({ name: ws.name, sheetNo: ws.sheetNo, named });
      const chosen = sheetNo === undefined ? (named || !byName) && wanted(ws.name, seen.length) : ws.sheetNo === sheetNo;
      if (found || !chosen) {
        await reader.readPast(ws);
        continue;
      }
      found = true;
      yield ws;
    }
  } catch (err) {
    throw unreadable(err, label);
  } finally {
    reader.removeCopies();
  }
  for (const s of seen) if (!s.named) s.name = reader.sheetName(s.sheetNo) ?? s.name;
  const passed = found || sheetNo !== undefined ? undefined : seen.find((s, i) => !s.named && wanted(s.name, i + 1));
  if (passed && typeof input === 'string') {
    yield* chosenSheet(input, label, sheet, parts, passed.sheetNo);
    return;
  }
  if (!found) {
    throw new InputError(
      sheet === undefined ? `${label} has no worksheet` : `${label} has no sheet ${sheetPosition(sheet) === undefined ? JSON.stringify(sheet) : `number ${sheet.trim()}`}`,
      seen.length === 0 ? undefined : `sheets: ${seen.map((s, i) => `${i + 1} ${JSON.stringify(s.name)}`).join(', ')}`,
    );
  }
}

function unreadable(err: unknown, label: string): InputError {
  if (err instanceof InputError) return err;
  return new InputError(`cannot read ${label} as an Excel workbook: ${(err as Error).message}`, 'save it again from Excel as .xlsx, or as CSV UTF-8');
}

/** `--sheet`: an exact name, a 1-based position, then a name that differs only in case or spaces. */
function sheetWanted(sheet: string | undefined): (name: string, position: number) => boolean {
  if (sheet === undefined) return (_, position) => position === 1;
  const at = sheetPosition(sheet);
  if (at !== undefined) return (name, position) => name === sheet || position === at;
  const trimmed = sheet.trim().toLowerCase();
  return (name) => name === sheet || name.trim().toLowerCase() === trimmed;
}

/** The 1-based position `--sheet` gives when it is digits alone; undefined for a name. */
function sheetPosition(sheet: string): number | undefined {
  const trimmed = sheet.trim();
  return /^\d+$/.test(trimmed) ? Number(trimmed) : undefined;
}

/** A row's values (1-based, as the library gives them) as text cells. */
function rowCells(values: readonly unknown[]): string[] {
  const cells: string[] = [];
  for (let i = 1; i < values.length; i++) cells.push(cellText(values[i]));
  while (cells.length > 0 && cells[cells.length - 1] === '') cells.pop();
  return cells;
}

/** A cell's value as the text a reader of the sheet sees, unrounded. */
export function cellText(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return numberText(value);
  if (typeof value === 'boolean') return value ? 'TRUE' : 'FALSE';
  if (value instanceof Date) return dateText(value);
  if (typeof value === 'object') {
    const v = value as { richText?: { text?: unknown }[]; text?: unknown; result?: unknown; error?: unknown; formula?: unknown; sharedFormula?: unknown };
    if (Array.isArray(v.richText)) return v.richText.map((run) => (typeof run.text === 'string' ? run.text : '')).join('');
    if ('formula' in v || 'sharedFormula' in v) return cellText(v.result);
    if (v.text !== undefined) return cellText(v.text);
    if (typeof v.error === 'string') return v.error;
  }
  return String(value);
}

/**
 * As Excel shows a number, to its 15 significant digits (0.1+0.2 is 0.3), an integer as its digits
 * (a phone number stored as a number, never 1.2E10).
 */
function numberText(n: number): string {
  const shown = Number(n.toPrecision(15));
  return Number.isInteger(shown) && !Number.isSafeInteger(shown) ? BigInt(shown).toString() : String(shown);
}

/** A date alone as YYYY-MM-DD, with a time of day as YYYY-MM-DDTHH:MM:SS (Excel's times have no zone). */
function dateText(d: Date): string {
  if (Number.isNaN(d.getTime())) return '';
  const iso = d.toISOString();
  if (iso.endsWith('T00:00:00.000Z')) return iso.slice(0, 10);
  return iso.endsWith('.000Z') ? iso.slice(0, 19) : iso.slice(0, 23);
}
