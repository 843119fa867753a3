// JSON sink: one array streamed item by item, one record per line, never held in memory.
// `[]` when there are no records. When appending (resume), the existing file is expected to hold
// `[` and at least one record with its closing `]` removed by the caller, so every record here
// continues the array with `,` and end() closes it.
import type { Writable } from 'node:stream';
import type { OutputRecord } from '../core/records.js';
import type { RecordSink } from '../core/run.js';
import { createTextWriter } from './stream-write.js';

export function createJsonSink(out: Writable, appending = false): RecordSink {
  const writer = createTextWriter(out);
  let opened = appending;
  return {
    write(record: OutputRecord): Promise<void> {
      const lead = opened ? ',\n' : '[\n';
      opened = true;
      return writer.write(lead + JSON.stringify(record));
    },
    end(): Promise<void> {
      return writer.flush(opened ? '\n]\n' : '[]\n');
    },
  };
}
