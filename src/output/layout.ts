// What a sink needs to know about the run before the first record arrives.
import type { LookupDescriptor, LookupOptions } from '../core/lookups.js';
import type { FieldSelection } from './fields.js';

export const OUTPUT_FORMATS = ['table', 'json', 'jsonl', 'csv', 'tsv', 'xlsx'] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

export interface OutputLayout {
  /** `single`: one lookup command (LookupRecord); `enrich`: several lookups per row (EnrichRecord). */
  readonly mode: 'single' | 'enrich';
  /** The lookups of the run, in column order; exactly one for `single`. */
  readonly lookups: readonly LookupDescriptor[];
  readonly options: LookupOptions;
  /** The CSV input's header, or null for list/argument input. */
  readonly inputColumns: readonly string[] | null;
  /** The index in inputColumns of the column the numbers come from (a table shows the number instead). */
  readonly numberColumn?: number;
  /** --fields: the result fields kept, per lookup (all when absent). */
  readonly fields?: FieldSelection;
  /** CSV/TSV: each lookup's error column is followed by `cached` and `fetched_at` (--cache-columns). */
  readonly cacheColumns?: boolean;
  /** Resume: the output already holds the CSV header / the json opening, so do not write them. */
  readonly appending?: boolean;
}

export interface SinkStyle {
  /** Colour in the table. The CLI decides (TTY, NO_COLOR, TERM=dumb, --no-color, CLICOLOR_FORCE). */
  readonly color?: boolean;
  /** --raw-csv: do not neutralise formula-like cells (CSV, TSV and xlsx). */
  readonly rawCsv?: boolean;
  /** Terminal columns, for the table's layout choice; 80 when unknown. */
  readonly width?: number;
}
