// JSON Lines sink: one record per line, keys in the order the runner built them.
import type { Writable } from 'node:stream';
import type { OutputRecord } from '../core/records.js';
import type { RecordSink } from '../core/run.js';
import { createTextWriter } from './stream-write.js';

/** `shape`: what a record becomes when written (--fields), else the record as it is. */
export function createJsonlSink(out: Writable, shape?: (record: OutputRecord) => unknown): RecordSink {
  const writer = createTextWriter(out);
  return {
    write: (record: OutputRecord) => writer.write(`${JSON.stringify(shape ? shape(record) : record)}\n`),
    end: () => writer.flush(),
  };
}
