// JSON sink: one array streamed item by item, one record per line, never held in memory.
// `[]` when there are no records. The `[` goes out at begin, so a file cut short by a crash still
// starts as JSON. When appending (resume), the existing file is expected to hold
// `[` and at least one record with its closing `]` removed by the caller, so every record here
// continues the array with `,` and end() closes it.
import type { Writable } from 'node:stream';
import type { OutputRecord } from '../core/records.js';
import type { OpeningSink } from '../core/run.js';
import { createTextWriter } from './stream-write.js';

/** `shape`: what a record becomes when written (--fields), else the record as it is. */
export function createJsonSink(out: Writable, appending = false, shape?: (record: OutputRecord) => unknown): OpeningSink {
  const writer = createTextWriter(out);
  let begun = appending;
  let records = appending;
  const open = () => {
    if (begun) return '';
    begun = true;
    return '[';
  };
  return {
    begin: () => writer.flush(open()),
    write(record: OutputRecord): Promise<void> | undefined {
      const lead = records ? ',\n' : '\n';
      records = true;
      return writer.write(open() + lead + JSON.stringify(shape ? shape(record) : record));
    },
    end(): Promise<void> {
      return writer.flush(open() + (records ? '\n]\n' : ']\n'));
    },
  };
}
