// JSON Lines sink: one record per line, keys in the order the runner built them.
import type { Writable } from 'node:stream';
import type { OutputRecord } from '../core/records.js';
import type { RecordSink } from '../core/run.js';
import { createTextWriter } from './stream-write.js';

export function createJsonlSink(out: Writable): RecordSink {
  const writer = createTextWriter(out);
  return {
    write: (record: OutputRecord) => writer.write(`${JSON.stringify(record)}\n`),
    end: () => writer.flush(),
  };
}
