// One entry point for every output format.
import type { Writable } from 'node:stream';
import type { OutputRecord } from '../core/records.js';
import type { OpeningSink, RecordSink } from '../core/run.js';
import { createJsonSink } from './json.js';
import { createJsonlSink } from './jsonl.js';
import type { OutputFormat, OutputLayout, SinkStyle } from './layout.js';

export type { OutputFormat, OutputLayout, SinkStyle } from './layout.js';

/**
 * A sink writing records to `out` in `format`. What a format writes before its first record (the
 * CSV header, JSON's `[`) is out before this resolves, before anything is looked up: an output file
 * cut short by a crash or a kill has it once a row could have been written.
 * `write` returns a promise to await only when `out` is full (backpressure);
 * `end` finishes the format (json's `]`, the CSV header of an empty run, the table's last chunk)
 * and leaves `out` open. The CSV and table writers (and their libraries) load only when asked for:
 * a script that runs numintel once per number should not pay for formats it does not use.
 */
export async function createSink(
  format: OutputFormat,
  out: Writable,
  layout: OutputLayout,
  style: SinkStyle = {},
): Promise<RecordSink> {
  switch (format) {
    case 'jsonl':
      return createJsonlSink(out, await shaper(layout));
    case 'json':
      return begun(createJsonSink(out, layout.appending ?? false, await shaper(layout)));
    case 'csv':
      return begun((await import('./csv.js')).createCsvSink(out, layout, style));
    case 'tsv':
      return begun((await import('./csv.js')).createCsvSink(out, layout, style, '\t'));
    case 'xlsx':
      return begun(await (await import('./xlsx.js')).createXlsxSink(out, layout, style));
    case 'table':
      return (await import('./table.js')).createTableSink(out, layout, style);
  }
}

/** With --fields, what a JSON record becomes (flat-records.ts, loaded only then). */
async function shaper(layout: OutputLayout): Promise<((record: OutputRecord) => unknown) | undefined> {
  return layout.fields ? (await import('./flat-records.js')).flatRecords(layout) : undefined;
}

async function begun(sink: OpeningSink): Promise<RecordSink> {
  await sink.begin();
  return sink;
}
