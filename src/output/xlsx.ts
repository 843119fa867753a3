// Excel workbook sink (.xlsx): one sheet, the CSV writer's columns (csv-layout.ts), every cell a
// text cell so that Excel keeps a number's digits and a leading `+` as written (no 1.2E+10, no
// dropped zeros), the header row frozen. Service text is neutralised as in CSV. Streamed: each row
// goes into the file as it comes, so memory stays flat however many rows.
import { finished } from 'node:stream/promises';
import { Writable } from 'node:stream';
import { OutputError } from '../core/errors.js';
import type { OutputRecord } from '../core/records.js';
import type { OpeningSink } from '../core/run.js';
import { XLSX_MAX_ROWS } from '../pipeline/source/xlsx-limits.js';
import { csvPlan, planHeader, recordValues, slotCell } from './csv-layout.js';
import type { OutputLayout, SinkStyle } from './layout.js';
import { neutraliseFormula, stripEscapes } from './sanitize.js';

// Characters XML 1.0 cannot hold at all: a cell with one would make the whole file unreadable.
// oxlint-disable-next-line no-control-regex
const NOT_XML = /[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]/g;
const xmlText = (cell: string) => (NOT_XML.test(cell) ? cell.replace(NOT_XML, '') : cell);

/** A sheet being written: rows of text cells after a frozen header, streamed to `out`. */
export interface XlsxRows {
  addRow(cells: readonly string[]): void;
  /** Settles once the bytes written so far are passed on, when `out` is full; else undefined. */
  drained(): Promise<void> | undefined;
  /** Finishes the file; `out` is left open. */
  end(): Promise<void>;
}

/** Loads the library, then starts sheets of text cells on `out`, each with its header row frozen. */
export async function xlsxWriter(): Promise<(out: Writable, header: readonly string[]) => XlsxRows> {
  const { WorkbookWriter } = await import('../core/xlsx-library.js');
  return (out, header) => startSheet(WorkbookWriter, out, header);
}

function startSheet(WorkbookWriter: typeof import('../core/xlsx-library.js').WorkbookWriter, out: Writable, header: readonly string[]): XlsxRows {
  // The library writes without waiting for the stream: this one passes its bytes on and waits for
  // `out`'s drain, so its own fullness is the backpressure the sink's callers see. It leaves `out`
  // open at the end, as every sink does.
  const bytes = new Writable({
    highWaterMark: 64 * 1024,
    write(chunk: Uint8Array, _encoding, done) {
      if (out.destroyed || out.write(chunk)) done();
      else out.once('drain', () => done());
    },
  });
  // Stored, not deflated: the library deflates each row on its own with a flush, unthrottled, which
  // held 8,000 rows/s at most and queued the rest in memory (over a GB for a million rows); stored,
  // a million rows take seconds and memory stays flat, for a file about five times the size.
  const workbook = new WorkbookWriter({ stream: bytes, useSharedStrings: false, useStyles: false, zip: { zlib: { level: 0 } } });
  const sheet = workbook.addWorksheet('numintel', { views: [{ state: 'frozen', ySplit: 1 }] });
  sheet.columns = header.map((name) => ({ width: Math.min(40, Math.max(10, name.length + 2)) }));
  let rows = 0;
  const addRow = (cells: readonly string[]) => {
    if (++rows > XLSX_MAX_ROWS) {
      throw new OutputError(`an Excel sheet holds ${XLSX_MAX_ROWS.toLocaleString('en-US')} rows at most (the header included), and this output has more`, 'write csv or jsonl instead (-f csv), or split the input');
    }
    sheet.addRow(cells.map(xmlText)).commit();
  };
  addRow(header);
  return {
    addRow,
    drained: () => (bytes.writableNeedDrain ? new Promise((resolve) => bytes.once('drain', resolve)) : undefined),
    async end() {
      sheet.commit();
      await workbook.commit();
      if (!bytes.writableFinished) await finished(bytes);
    },
  };
}

export async function createXlsxSink(out: Writable, layout: OutputLayout, style: SinkStyle = {}): Promise<OpeningSink> {
  const plan = csvPlan(layout);
  const service = style.rawCsv ? (cell: string) => cell : (cell: string) => neutraliseFormula(stripEscapes(cell));
  const sheet = (await xlsxWriter())(out, planHeader(plan));
  return {
    begin: () => Promise.resolve(),
    write(record: OutputRecord): Promise<void> | undefined {
      const v = recordValues(plan, record);
      const cells: string[] = [...v.inputCells];
      for (const slot of plan.slots) {
        const c = slotCell(slot, v);
        cells.push(slot.of === 'field' || slot.of === 'error' ? service(c) : c);
      }
      sheet.addRow(cells);
      return sheet.drained();
    },
    end: () => sheet.end(),
  };
}
