import { describe, expect, it } from 'vitest';
import { CircuitBreaker } from '../../../src/pipeline/dispatch/breaker.js';
import { Notifier, ReorderWindow, windowSize } from '../../../src/pipeline/order/reorder.js';

describe('ReorderWindow', () => {
  it('keeps input order across wrap-around and refuses to overflow', () => {
    const w = new ReorderWindow<number>(3);
    const out: number[] = [];
    for (let i = 0; i < 10; i++) {
      if (w.full) out.push(w.shift() as number);
      w.push(i);
    }
    while (w.size) out.push(w.shift() as number);
    expect(out).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    w.push(1);
    w.push(2);
    w.push(3);
    expect(() => w.push(4)).toThrow(/overflow/);
    expect(w.peek()).toBe(1);
  });

  it('sizes the read-ahead from the concurrency', () => {
    expect(windowSize(16)).toBe(1024);
    expect(windowSize(500)).toBe(2000);
    expect(() => new ReorderWindow(0)).toThrow(/got 0/);
  });

  it('a notifier wakes the waiter there is; a notify nobody waits for is not kept', async () => {
    const n = new Notifier();
    let woke = 0;
    void n.wait().then(() => woke++);
    n.notify();
    // The extra notify finds no waiter: it must not wake the next wait() ahead of time.
    n.notify();
    await new Promise((done) => setImmediate(done));
    expect(woke).toBe(1);
    void n.wait().then(() => woke++);
    await new Promise((done) => setImmediate(done));
    expect(woke).toBe(1);
    n.notify();
    await new Promise((done) => setImmediate(done));
    expect(woke).toBe(2);
  });
});

describe('CircuitBreaker', () => {
  const down = { code: 'timeout', message: 't' } as const;
  it('trips on N consecutive transient failures; a good row resets; invalid rows are neutral', () => {
    const b = new CircuitBreaker(3);
    expect(b.record([down])).toBe(false);
    expect(b.record([down])).toBe(false);
    expect(b.record([null])).toBe(false);
    expect(b.record([down])).toBe(false);
    expect(b.record([{ code: 'invalid_number', message: 'x' }])).toBe(false);
    expect(b.record([down])).toBe(false);
    expect(b.record([null, down])).toBe(true);
    expect(new CircuitBreaker(0).record([down])).toBe(false);
  });
});
