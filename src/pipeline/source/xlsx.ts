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
  const { WorkbookReader } = await import('../../core/xlsx-library.js');
  // Styles are read only to tell a date from a number; shared strings are the text of most cells.
  const reader = new WorkbookReader(input, { worksheets: 'emit', sharedStrings: 'cache', styles: 'cache', hyperlinks: 'ignore', entries: 'ignore' });
  const wanted = sheetWanted(sheet);
  const seen: string[] = [];
  let found = false;
  try {
    for await (const ws of reader) {
      seen.push(ws.name);
      if (found || !wanted(ws.name, seen.length)) continue;
      found = true;
      let batch: string[][] = [];
      // An empty row is not in the file at all: skipped, as CSV's reader skips empty lines.
      for await (const row of ws) {
        batch.push(rowCells(row.values as unknown[]));
        if (batch.length === ROWS_AT_ONCE) {
          yield batch;
          batch = [];
        }
      }
      if (batch.length > 0) yield batch;
    }
  } catch (err) {
    if (err instanceof InputError) throw err;
    throw new InputError(`cannot read ${label} as an Excel workbook: ${(err as Error).message}`, 'save it again from Excel as .xlsx, or as CSV UTF-8');
  }
  if (!found) {
    throw new InputError(
      sheet === undefined ? `${label} has no worksheet` : `${label} has no sheet ${/^\d+$/.test(sheet.trim()) ? `number ${sheet.trim()}` : JSON.stringify(sheet)}`,
      seen.length === 0 ? undefined : `sheets: ${seen.map((name, i) => `${i + 1} ${JSON.stringify(name)}`).join(', ')}`,
    );
  }
}

/** `--sheet`: an exact name, a 1-based position, then a name that differs only in case or spaces. */
function sheetWanted(sheet: string | undefined): (name: string, position: number) => boolean {
  if (sheet === undefined) return (_, position) => position === 1;
  const trimmed = sheet.trim();
  if (/^\d+$/.test(trimmed)) return (name, position) => name === sheet || position === Number(trimmed);
  return (name) => name === sheet || name.trim().toLowerCase() === trimmed.toLowerCase();
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

/** Integers as their digits (a phone number stored as a number), others as JavaScript writes them. */
function numberText(n: number): string {
  if (Number.isInteger(n)) return Number.isSafeInteger(n) ? String(n) : BigInt(n).toString();
  return String(n);
}

/** A date alone as YYYY-MM-DD, with a time of day as YYYY-MM-DDTHH:MM:SS (Excel's times have no zone). */
function dateText(d: Date): string {
  if (Number.isNaN(d.getTime())) return '';
  const iso = d.toISOString();
  if (iso.endsWith('T00:00:00.000Z')) return iso.slice(0, 10);
  return iso.endsWith('.000Z') ? iso.slice(0, 19) : iso.slice(0, 23);
}
