// CSV sink: RFC 4180 quoting by csv-stringify (fields with the delimiter, a quote, CR or LF are
// quoted, quotes doubled), `\n` line ends, UTF-8 without BOM. One row per record.
import type { Writable } from 'node:stream';
import { stringify } from 'csv-stringify/sync';
import type { OutputRecord } from '../core/records.js';
import type { RecordSink } from '../core/run.js';
import { csvPlan, planHeader, recordValues } from './csv-layout.js';
import type { OutputLayout, SinkStyle } from './layout.js';
import { neutraliseFormula } from './sanitize.js';
import { writeText } from './stream-write.js';

const CSV_OPTIONS = { record_delimiter: '\n' } as const;

export function csvLine(cells: readonly string[]): string {
  return stringify([cells], CSV_OPTIONS);
}

export function createCsvSink(out: Writable, layout: OutputLayout, style: SinkStyle = {}): RecordSink {
  const plan = csvPlan(layout);
  // Only service text is neutralised: the user's input columns and our own input/number cells
  // pass through as they are.
  const service = style.rawCsv ? (cell: string) => cell : neutraliseFormula;
  // The header is owed until the first write (or end, so an empty run still yields a valid file
  // with its header), unless we are appending to a file that has it.
  let headerOwed = !layout.appending;
  const header = () => {
    if (!headerOwed) return '';
    headerOwed = false;
    return csvLine(planHeader(plan));
  };

  return {
    write(record: OutputRecord): Promise<void> {
      const v = recordValues(plan, layout, record);
      const cells = plan.inputColumns ? [...v.inputCells] : [v.input];
      cells.push(v.number);
      for (const g of v.groups) cells.push(...g.fields.map(service), service(g.error));
      return writeText(out, header() + csvLine(cells));
    },
    end(): Promise<void> {
      return writeText(out, header());
    },
  };
}
