// The concurrency limit belongs to the client: every run and call sharing one gate has at most its
// limit of requests in flight together, each run gets its turn, and answers from a store take no slot.
import { describe, expect, it } from 'vitest';
import { LRN } from '../../../src/core/lookups.js';
import type { LookupRecord } from '../../../src/core/records.js';
import { newRunStats } from '../../../src/core/run.js';
import { prng } from '../../../src/core/prng.js';
import { ConcurrencyGate } from '../../../src/pipeline/dispatch/gate.js';
import { Session } from '../../../src/pipeline/session.js';
import { newRunDedup } from '../../../src/pipeline/dedup/run-dedup.js';
import { MemoryAnswerStore, NO_STORE } from '../../../src/store/answer-store.js';
import { harness, runAll, type Harness } from '../fakes.js';
import { numbers } from '../../support/numbers.js';

/** A second run on the same fakes: its own stats, the same transport and clock. */
const beside = (h: Harness): Harness => ({ ...h, stats: newRunStats(h.clock.now()) });

describe('the concurrency gate', () => {
  it('two bulk runs at once never have more than the limit in flight together, and both advance', async () => {
    const rnd = prng(3);
    const h = harness({ latency: () => 10 + Math.floor(rnd() * 40) });
    const gate = new ConcurrencyGate(4);
    const [a, b] = await Promise.all([
      runAll(h, numbers(200), {}, { rates: { lrn: 0 }, gate }),
      runAll(beside(h), numbers(200, 1000), {}, { rates: { lrn: 0 }, gate }),
    ]);
    expect(a.records).toHaveLength(200);
    expect(b.records).toHaveLength(200);
    expect(h.transport.calls).toHaveLength(400);
    expect(h.transport.maxInFlight).toBe(4);
    expect(gate.inFlight).toBe(0);
    // Turns, not one run after the other: the second run's sends are spread over the whole time.
    const sends = h.transport.log.filter((e) => e.type === 'send').map((e) => Number(e.number) >= Number(numbers(1, 1000)[0]));
    expect(sends.slice(0, 100).filter(Boolean).length).toBeGreaterThan(30);
    expect(sends.slice(0, 100).filter((x) => !x).length).toBeGreaterThan(30);
  });

  it('(without a shared gate each run has its own limit: twice as many in flight)', async () => {
    const h = harness({ latency: () => 20 });
    await Promise.all([runAll(h, numbers(100), {}, { rates: { lrn: 0 }, concurrency: 4 }), runAll(beside(h), numbers(100, 1000), {}, { rates: { lrn: 0 }, concurrency: 4 })]);
    expect(h.transport.maxInFlight).toBe(8);
  });

  it('a session: parallel lookup() calls and two bulk runs together stay within the limit', async () => {
    const rnd = prng(5);
    const h = harness({ latency: () => 5 + Math.floor(rnd() * 30) });
    const gate = new ConcurrencyGate(3);
    const session = new Session({ transport: h.transport, clock: h.clock, answers: NO_STORE, dedup: newRunDedup, gate, rates: { lrn: 0 }, random: prng(1) }, (stopped) => new Error(stopped.reason));
    const singles = Promise.all(numbers(60, 2000).map((n) => session.lookup(LRN, n, {})));
    const [x, y, records] = await Promise.all([
      runAll(beside(h), numbers(100), {}, { rates: { lrn: 0 }, gate }),
      runAll(beside(h), numbers(100, 1000), {}, { rates: { lrn: 0 }, gate }),
      singles,
    ]);
    session.close();
    expect(x.records).toHaveLength(100);
    expect(y.records).toHaveLength(100);
    expect(records.every((r: LookupRecord) => r.ok)).toBe(true);
    expect(h.transport.calls).toHaveLength(260);
    expect(h.transport.maxInFlight).toBe(3);
    expect(gate.inFlight).toBe(0);
  });

  it('an answer from the store takes no slot: a cached run finishes while another holds every slot', async () => {
    const h = harness({ latency: (call) => (call.number === numbers(1)[0] ? 10_000 : 1) });
    const gate = new ConcurrencyGate(1);
    const store = new MemoryAnswerStore();
    const cachedNumbers = numbers(20, 500);
    const slot = store.slot('lrn', {});
    for (const n of cachedNumbers) slot.put(n, { lrn: n }, h.clock.now());
    const slow = runAll(h, numbers(1), {}, { rates: { lrn: 0 }, gate });
    const cached = await runAll(beside(h), cachedNumbers, {}, { rates: { lrn: 0 }, gate, answers: store });
    expect(cached.records).toHaveLength(cachedNumbers.length);
    expect(cached.records.every((r) => (r as LookupRecord).cached)).toBe(true);
    // Done while the slow lookup still held the only slot.
    expect(gate.inFlight).toBe(1);
    expect(h.transport.calls).toHaveLength(1);
    await slow;
    expect(gate.inFlight).toBe(0);
  });
});
