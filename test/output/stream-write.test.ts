import { Writable } from 'node:stream';
import { setImmediate as tick } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { OutputClosedError, createTextWriter, isOutputClosed, whenGone } from '../../src/output/stream-write.js';
import { Collect } from './helpers.js';

/**
 * Turns and time move only when the test says so: `turn()` runs the flushes due now (those deferred
 * to the next turn, or whose delay has passed); `advance(ms)` moves the clock, then runs a turn.
 */
function manualTurns() {
  let time = 0;
  let queue: { fn: () => void; at: number }[] = [];
  const turn = () => {
    const due = queue.filter((e) => e.at <= time);
    queue = queue.filter((e) => e.at > time);
    for (const e of due) e.fn();
  };
  return {
    defer: (fn: () => void, delayMs: number) => {
      const entry = { fn, at: time + delayMs };
      queue.push(entry);
      return () => {
        queue = queue.filter((e) => e !== entry);
      };
    },
    now: () => time,
    get scheduled() {
      return queue.length;
    },
    turn,
    advance(ms: number) {
      time += ms;
      turn();
    },
  };
}

/**
 * Standard output to a pipe whose reader left, as Node makes it: every write fails with EPIPE at
 * once, and destroy undoes itself (Node's `dummyDestroy` for stdout and stderr), so the stream never
 * reads as destroyed, ended or errored by the time anyone looks; it only emits 'error' and 'close'.
 */
function stdoutToAClosedPipe() {
  const stream = new Writable({
    decodeStrings: false,
    write(_chunk: unknown, _enc, cb) {
      cb(Object.assign(new Error('write EPIPE'), { code: 'EPIPE' }));
    },
    destroy(err, cb) {
      cb(err);
      (this as Writable & { _undestroy(): void })._undestroy();
      process.nextTick(() => this.emit('close'));
    },
    emitClose: false,
  });
  // main.ts's own listener: without one, the error would be thrown.
  stream.on('error', () => {});
  return stream;
}

/** A stream whose writes complete only when released; it records each chunk it was given. */
function heldStream(highWaterMark: number) {
  const held: (() => void)[] = [];
  const chunks: string[] = [];
  let consumed = 0;
  const stream = new Writable({
    highWaterMark,
    decodeStrings: false,
    write(chunk: unknown, _enc, cb) {
      const text = String(chunk);
      chunks.push(text);
      held.push(() => {
        consumed += text.length;
        cb();
      });
    },
  });
  return {
    stream,
    chunks,
    get consumed() {
      return consumed;
    },
    releaseOne: () => held.shift()?.(),
    releaseAll: () => {
      while (held.length > 0) held.shift()?.();
    },
  };
}

describe('text writer', () => {
  it('joins the texts of one turn into one write, in order, and schedules one flush per turn', async () => {
    const out = new Collect();
    const turns = manualTurns();
    const writer = createTextWriter(out, turns);
    // Room in the stream: nothing to wait for (no promise, no turn of the event loop a row).
    for (const t of ['a', 'b', 'c']) expect(writer.write(t)).toBeUndefined();
    expect(out.chunks).toEqual([]);
    expect(turns.scheduled).toBe(1);
    turns.turn();
    expect(out.chunks).toEqual(['abc']);
    turns.advance(60);
    await writer.write('d');
    turns.turn();
    expect(out.chunks).toEqual(['abc', 'd']);
  });

  it('joins the texts that keep coming within lingerMs of the last write into one write, with one wakeup', async () => {
    const out = new Collect();
    const turns = manualTurns();
    const writer = createTextWriter(out, { ...turns, lingerMs: 50 });
    await writer.write('a');
    turns.turn();
    expect(out.chunks).toEqual(['a']);
    for (let i = 0; i < 4; i++) {
      turns.advance(10);
      await writer.write(String(i));
      expect(turns.scheduled).toBe(1);
    }
    // 40 ms after the first write: nothing more yet.
    expect(out.chunks).toEqual(['a']);
    turns.advance(10);
    expect(out.chunks).toEqual(['a', '0123']);
    expect(turns.scheduled).toBe(0);
  });

  it('waits no more than lingerMs when the clock was set back since the last write', async () => {
    const out = new Collect();
    let clock = 1_000_000;
    const delays: number[] = [];
    let pending: (() => void) | undefined;
    const writer = createTextWriter(out, {
      lingerMs: 50,
      now: () => clock,
      defer: (fn, delayMs) => {
        delays.push(delayMs);
        pending = fn;
        return () => (pending = undefined);
      },
    });
    await writer.write('a');
    pending?.();
    expect(out.chunks).toEqual(['a']);
    clock -= 3_600_000; // an hour back
    await writer.write('b');
    expect(delays).toEqual([0, 50]);
    pending?.();
    expect(out.chunks).toEqual(['a', 'b']);
  });

  it('writes rows that keep coming in a few large writes, not one per row', async () => {
    const out = new Collect();
    const writer = createTextWriter(out, { lingerMs: 20 });
    const rows = Array.from({ length: 2000 }, (_, i) => `row ${i}\n`);
    for (const [i, r] of rows.entries()) {
      await writer.write(r);
      if (i % 10 === 0) await tick();
    }
    await writer.flush();
    expect(out.text).toBe(rows.join(''));
    expect(out.chunks.length).toBeLessThan(50);
  });

  it('shows a lone text on the next event-loop turn without waiting for more', async () => {
    const out = new Collect();
    const writer = createTextWriter(out);
    await writer.write('first row\n');
    await tick();
    expect(out.text).toBe('first row\n');
  });

  it('writes at once when the queue reaches the chunk size', async () => {
    const out = new Collect();
    const turns = manualTurns();
    const writer = createTextWriter(out, { ...turns, chunkSize: 8 });
    await writer.write('1234');
    expect(out.chunks).toEqual([]);
    await writer.write('5678');
    expect(out.chunks).toEqual(['12345678']);
    turns.turn();
    expect(out.chunks).toEqual(['12345678']);
  });

  it('flush writes the queue and a closing text, and leaves no write behind', async () => {
    const out = new Collect();
    const turns = manualTurns();
    const writer = createTextWriter(out, turns);
    await writer.write('[1');
    await writer.write(',2');
    await writer.flush(']\n');
    expect(out.chunks).toEqual(['[1,2]\n']);
    // The turn scheduled before the flush finds nothing left to write.
    turns.turn();
    expect(out.chunks).toEqual(['[1,2]\n']);
    expect(out.writableEnded).toBe(false);
  });

  it('does not resolve a write while the stream is over its highWaterMark', async () => {
    const slow = heldStream(100);
    const writer = createTextWriter(slow.stream, manualTurns());
    const text = 'x'.repeat(30);
    for (let i = 0; i < 3; i++) await writer.write(text);
    expect(slow.chunks).toEqual([]);
    let settled = false;
    const fourth = Promise.resolve(writer.write(text)).then(() => (settled = true));
    expect(slow.chunks).toEqual([text.repeat(4)]);
    await tick();
    await tick();
    expect(settled).toBe(false);
    slow.releaseAll();
    await fourth;
    expect(settled).toBe(true);
  });

  it('keeps what it accepted within the highWaterMark against a slow reader, in order', async () => {
    const hwm = 200;
    const slow = heldStream(hwm);
    const writer = createTextWriter(slow.stream);
    let producing = true;
    // The reader takes one chunk per turn until the producer is done.
    const reader = (async () => {
      for (let i = 0; producing && i < 100_000; i++) {
        slow.releaseOne();
        await tick();
      }
    })();
    let accepted = 0;
    let worst = 0;
    const texts = Array.from({ length: 500 }, (_, i) => `row ${String(i).padStart(5, '0')} ${'.'.repeat(i % 23)}\n`);
    for (const t of texts) {
      await writer.write(t);
      accepted += t.length;
      worst = Math.max(worst, accepted - slow.consumed);
    }
    await writer.flush();
    producing = false;
    await reader;
    slow.releaseAll();
    expect(slow.chunks.join('')).toBe(texts.join(''));
    expect(slow.chunks.length).toBeLessThan(texts.length);
    expect(worst).toBeLessThan(hwm + 40);
  });

  it('rejects writes to a stream that is already gone', async () => {
    const out = new Collect();
    out.destroy();
    const writer = createTextWriter(out);
    await expect(writer.write('x')).rejects.toBeInstanceOf(OutputClosedError);
    const ended = new Collect();
    ended.end();
    await expect(createTextWriter(ended).write('x')).rejects.toBeInstanceOf(OutputClosedError);
  });

  it('reports text queued for a stream that closed before the turn as lost', async () => {
    const out = new Collect();
    const turns = manualTurns();
    const writer = createTextWriter(out, turns);
    await writer.write('row\n');
    out.destroy();
    turns.turn();
    expect(out.chunks).toEqual([]);
    await expect(writer.flush()).rejects.toBeInstanceOf(OutputClosedError);
  });

  it("hears a closed pipe on Node's stdout, which never reads as destroyed: the next write and flush reject", async () => {
    const out = stdoutToAClosedPipe();
    const heard: (Error | undefined)[] = [];
    whenGone(out, (err) => heard.push(err));
    const writer = createTextWriter(out);
    // Small writes to a pipe written synchronously: nothing ever waits for a drain.
    await writer.write('row 1\n');
    await tick();
    await tick();
    expect({ destroyed: out.destroyed, ended: out.writableEnded, errored: out.errored, needDrain: out.writableNeedDrain }).toEqual({
      destroyed: false,
      ended: false,
      errored: null,
      needDrain: false,
    });
    expect(heard.map((e) => isOutputClosed(e))).toEqual([true]);
    await expect(writer.write('row 2\n')).rejects.toBeInstanceOf(OutputClosedError);
    await expect(writer.flush('\n]\n')).rejects.toBeInstanceOf(OutputClosedError);
  });

  it('rejects instead of hanging when the stream closes or errors while a write waits', async () => {
    const a = heldStream(1);
    const waiting = createTextWriter(a.stream).write('x');
    a.stream.destroy();
    await expect(waiting).rejects.toBeInstanceOf(OutputClosedError);

    const b = heldStream(1);
    const erroring = Promise.resolve(createTextWriter(b.stream).write('x'));
    b.stream.destroy(Object.assign(new Error('write EPIPE'), { code: 'EPIPE' }));
    expect(isOutputClosed(await erroring.catch((e: unknown) => e))).toBe(true);

    const c = heldStream(1);
    const writer = createTextWriter(c.stream);
    const first = writer.write('x');
    c.stream.destroy();
    await expect(first).rejects.toBeInstanceOf(OutputClosedError);
    await expect(writer.flush('\n]\n')).rejects.toBeInstanceOf(OutputClosedError);
  });
});
