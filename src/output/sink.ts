// One entry point for every output format.
import type { Writable } from 'node:stream';
import type { RecordSink } from '../core/run.js';
import { createCsvSink } from './csv.js';
import { createJsonSink } from './json.js';
import { createJsonlSink } from './jsonl.js';
import type { OutputFormat, OutputLayout, SinkStyle } from './layout.js';
import { createTableSink } from './table.js';

export type { OutputFormat, OutputLayout, SinkStyle } from './layout.js';

/**
 * A sink writing records to `out` in `format`. `write` resolves once `out` takes more (backpressure);
 * `end` finishes the format (json's `]`, the CSV header of an empty run, the table's last chunk)
 * and leaves `out` open.
 */
export function createSink(format: OutputFormat, out: Writable, layout: OutputLayout, style: SinkStyle = {}): RecordSink {
  switch (format) {
    case 'jsonl':
      return createJsonlSink(out);
    case 'json':
      return createJsonSink(out, layout.appending ?? false);
    case 'csv':
      return createCsvSink(out, layout, style);
    case 'table':
      return createTableSink(out, layout, style);
  }
}
