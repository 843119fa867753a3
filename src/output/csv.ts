// CSV and TSV sink: RFC 4180 quoting (fields with the delimiter, a quote, CR or LF are quoted,
// quotes doubled), `\n` line ends, UTF-8 without BOM. One row per record. TSV is the same with a
// tab for the comma: the same columns, and a cell holding a tab, quote or line break quoted as CSV
// quotes it, which is how spreadsheets and csv-parse (numintel's own TSV input) read it back.
import type { Writable } from 'node:stream';
import type { OutputRecord } from '../core/records.js';
import type { OpeningSink } from '../core/run.js';
import { csvPlan, planHeader, recordValues, slotCell } from './csv-layout.js';
import type { OutputLayout, SinkStyle } from './layout.js';
import { neutraliseFormula, stripEscapes } from './sanitize.js';
import { createTextWriter } from './stream-write.js';

export type Delimiter = ',' | '\t';

const NEEDS_QUOTES: Record<Delimiter, RegExp> = { ',': /[",\r\n]/, '\t': /[\t"\r\n]/ };

/**
 * One CSV (or TSV) line, quoted as csv-stringify does with its defaults. Written out here because
 * a stringifier per row (csv-stringify's sync API) cost more than the rest of the sink together.
 */
export function csvLine(cells: readonly string[], delimiter: Delimiter = ','): string {
  const needsQuotes = NEEDS_QUOTES[delimiter];
  let line = '';
  for (let i = 0; i < cells.length; i++) {
    const cell = cells[i] ?? '';
    if (i > 0) line += delimiter;
    line += needsQuotes.test(cell) ? `"${cell.replaceAll('"', '""')}"` : cell;
  }
  return `${line}\n`;
}

export function createCsvSink(out: Writable, layout: OutputLayout, style: SinkStyle = {}, delimiter: Delimiter = ','): OpeningSink {
  const plan = csvPlan(layout);
  const writer = createTextWriter(out);
  // Only service text is made safe (no escape sequences, no formulas): the user's input columns
  // and our own input/number cells pass through as they are. --raw-csv writes it as sent.
  const service = style.rawCsv ? (cell: string) => cell : (cell: string) => neutraliseFormula(stripEscapes(cell));
  // The header is owed until begin (or the first write, or end, so an empty run still yields a
  // valid file with its header), unless we are appending to a file that has it.
  let headerOwed = !layout.appending;
  const header = () => {
    if (!headerOwed) return '';
    headerOwed = false;
    return csvLine(planHeader(plan), delimiter);
  };

  return {
    begin: () => writer.flush(header()),
    write(record: OutputRecord): Promise<void> | undefined {
      const v = recordValues(plan, record);
      const cells: string[] = [];
      for (const c of v.inputCells) cells.push(c);
      for (const slot of plan.slots) {
        const c = slotCell(slot, v);
        cells.push(slot.of === 'field' || slot.of === 'error' ? service(c) : c);
      }
      return writer.write(header() + csvLine(cells, delimiter));
    },
    end(): Promise<void> {
      return writer.flush(header());
    },
  };
}
