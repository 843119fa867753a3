import { Writable } from 'node:stream';
import { setImmediate as tick } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { LRN } from '../../src/core/lookups.js';
import type { OutputLayout } from '../../src/output/layout.js';
import { createSink } from '../../src/output/sink.js';
import { OutputClosedError, isOutputClosed, writeText } from '../../src/output/stream-write.js';
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
    const sink = await createSink(format, stream, layout);
    let settled = false;
    const p = sink.write(record).then(() => {
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

  it('resolves at once when the stream has room', async () => {
    const roomy = new Writable({ highWaterMark: 1024, write: (_c, _e, cb) => cb() });
    let settled = false;
    void writeText(roomy, 'abc').then(() => (settled = true));
    await Promise.resolve();
    await Promise.resolve();
    expect(settled).toBe(true);
  });

  it('rejects instead of hanging when the stream closes or errors while we wait', async () => {
    const a = slowStream();
    const closed = writeText(a.stream, 'x');
    a.stream.destroy();
    await expect(closed).rejects.toBeInstanceOf(OutputClosedError);

    const b = slowStream();
    const errored = writeText(b.stream, 'x');
    b.stream.destroy(Object.assign(new Error('write EPIPE'), { code: 'EPIPE' }));
    const err = await errored.catch((e: unknown) => e);
    expect(isOutputClosed(err)).toBe(true);
  });

  it('rejects writes to a stream that is already gone', async () => {
    const { stream } = slowStream();
    stream.destroy();
    const sink = await createSink('jsonl', stream, layout);
    await expect(sink.write(record)).rejects.toBeInstanceOf(OutputClosedError);
    expect(isOutputClosed(new Error('other'))).toBe(false);
  });
});
