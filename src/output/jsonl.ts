// JSON Lines sink: one record per line, keys in the order the runner built them.
import type { Writable } from 'node:stream';
import type { OutputRecord } from '../core/records.js';
import type { RecordSink } from '../core/run.js';
import { writeText } from './stream-write.js';

export function createJsonlSink(out: Writable): RecordSink {
  return {
    write: (record: OutputRecord) => writeText(out, `${JSON.stringify(record)}\n`),
    end: () => Promise.resolve(),
  };
}
