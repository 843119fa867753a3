import { Writable } from 'node:stream';
import { setImmediate as tick, setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { LRN } from '../../src/core/lookups.js';
import type { RecordSink } from '../../src/core/run.js';
import type { OutputLayout } from '../../src/output/layout.js';
import { createSink } from '../../src/output/sink.js';
import { OutputClosedError, isOutputClosed } from '../../src/output/stream-write.js';
import { LRN_RESULT, ok } from './helpers.js';

/** A stream with highWaterMark 1 that completes each write only when the test says so. */
function slowStream() {
  const pending: (() => void)[] = [];
  const written: string[] = [];
  const stream = new Writable({
    highWaterMark: 1,
    decodeStrings: false,
    write(chunk: unknown, _enc, cb) {
      written.push(String(chunk));
      pending.push(() => cb());
    },
  });
  const release = () => {
    while (pending.length > 0) pending.shift()?.();
  };
  return { stream, written, release };
}

const layout: OutputLayout = { mode: 'single', lookups: [LRN], options: {}, inputColumns: null };
const record = ok('lrn', '1', '12015550123', LRN_RESULT);

describe('backpressure', () => {
  it.each(['jsonl', 'json', 'csv'] as const)('%s: write waits for drain when the stream is full', async (format) => {
    const { stream, written, release } = slowStream();
    // The CSV header and JSON's `[` go out as the sink opens, and the sink waits until they are taken.
    let opened: RecordSink | undefined;
    void createSink(format, stream, layout).then((s) => (opened = s));
    // Bounded: the CSV writer loads on first use, which takes a few milliseconds.
    for (let turn = 0; turn < 500 && !opened; turn++) {
      await sleep(5);
      release();
    }
    const sink = opened as RecordSink;
    written.splice(0);
    let settled = false;
    // A promise when the stream is full (nothing when it is not, which would settle at once).
    const p = Promise.resolve(sink.write(record)).then(() => {
      settled = true;
    });
    await tick();
    await tick();
    expect(written).toHaveLength(1);
    expect(settled).toBe(false);
    release();
    await p;
    expect(settled).toBe(true);
  });

  it('rejects writes to a stream that is already gone', async () => {
    const { stream } = slowStream();
    stream.destroy();
    const sink = await createSink('jsonl', stream, layout);
    await expect(sink.write(record)).rejects.toBeInstanceOf(OutputClosedError);
    expect(isOutputClosed(new Error('other'))).toBe(false);
  });
});
