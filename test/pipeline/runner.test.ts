import { describe, expect, it } from 'vitest';
import { CNAM, LRN, TRUST } from '../../src/core/lookups.js';
import type { EnrichRecord, LookupRecord, OutputRecord } from '../../src/core/records.js';
import { runPipeline } from '../../src/pipeline/runner.js';
import { newRunDedup } from '../../src/pipeline/dedup/run-dedup.js';
import { queueAhead } from '../../src/pipeline/order/reorder.js';
import { batchedSource, harness, invalid, ok, runAll, source, type Harness } from './fakes.js';
import { idle } from '../support/clock.js';
import { numbers } from '../support/numbers.js';
import { prng } from '../../src/core/prng.js';

/** The records left in `it`, the fake clock moved on by `stepMs` while each is awaited. */
async function restOnFakeTime<T>(it: AsyncIterator<T>, h: Harness, stepMs: number): Promise<T[]> {
  const records: T[] = [];
  for (;;) {
    const next = it.next();
    await h.clock.advance(stepMs);
    const r = await next;
    if (r.done) return records;
    records.push(r.value);
  }
}

describe('runner: order and completeness', () => {
  it('writes every row exactly once, in input order, whatever the latencies', async () => {
    const rnd = prng(7);
    const h = harness({ latency: () => Math.floor(rnd() * 300) });
    const inputs = numbers(500);
    const { records, outcome } = await runAll(h, inputs, {}, { rates: { lrn: 0 }, concurrency: 16 });
    expect(records.map((r) => r.input)).toEqual(inputs);
    expect(h.transport.calls).toHaveLength(500);
    expect(new Set(h.transport.calls.map((c) => c.number)).size).toBe(500);
    expect(h.transport.maxInFlight).toBe(16);
    expect(outcome).toEqual({ stopped: null, rowsWritten: 500 });
    expect(h.stats).toMatchObject({ rows: 500, written: 500, requests: 500, lookups: 500, duplicates: 0, failed: 0 });
  });

  it('builds single records in the contract key order, row last', async () => {
    const h = harness({ script: { '12015551000': [ok({ lrn: '12015550000' })] } });
    const items = source(['(201) 555-1000'], () => ({ name: 'Ann', phone: '(201) 555-1000' }));
    const { records } = await runAll(h, items);
    const rec = records[0] as LookupRecord;
    expect(Object.keys(rec)).toEqual(['input', 'number', 'lookup', 'ok', 'result', 'error', 'cached', 'fetched_at', 'row']);
    expect(rec).toEqual({ input: '(201) 555-1000', number: '12015551000', lookup: 'lrn', ok: true, result: { lrn: '12015550000' }, error: null, cached: false, fetched_at: '2023-11-14T22:13:20.000Z', row: { name: 'Ann', phone: '(201) 555-1000' } });
  });

  it('never sends an invalid or empty number and explains why', async () => {
    const h = harness();
    const { records } = await runAll(h, ['12015551000', '123', '', '12015551001']);
    expect(h.transport.calls.map((c) => c.number)).toEqual(['12015551000', '12015551001']);
    const bad = records[1] as LookupRecord;
    expect(Object.keys(bad)).toEqual(['input', 'number', 'lookup', 'ok', 'result', 'error', 'cached', 'fetched_at']);
    expect(bad).toMatchObject({ number: null, ok: false, result: null, error: { code: 'invalid_number', message: expect.stringContaining('too short') } });
    expect((records[2] as LookupRecord).error).toMatchObject({ code: 'invalid_number', message: expect.stringMatching(/^empty/) });
    expect(h.stats.invalid).toBe(2);
  });

  it('turns a service "invalid" answer into invalid_number with its message and status', async () => {
    const h = harness({ script: { '12015551000': [invalid('bad format')] } });
    const { records } = await runAll(h, ['12015551000']);
    expect((records[0] as LookupRecord).error).toEqual({ code: 'invalid_number', message: 'bad format', status: 400 });
    expect(h.transport.calls).toHaveLength(1);
  });

  it('enrich: one record per row with results and errors per kind, each kind sent once', async () => {
    const h = harness({ script: { 'cnam:12015551000': [invalid('no cnam')] } });
    const { records } = await runAll(h, ['12015551000', '12015551001'], { mode: 'enrich', lookups: [LRN, CNAM, TRUST], options: { spam: true } });
    const [a, b] = records as EnrichRecord[];
    expect(Object.keys(a ?? {})).toEqual(['input', 'number', 'ok', 'results', 'errors', 'cached', 'fetched_at']);
    expect(Object.keys(a?.results ?? {})).toEqual(['lrn', 'cnam', 'trust']);
    expect(a).toMatchObject({ ok: false, results: { cnam: null, trust: { kind: 'trust' } }, errors: { lrn: null, cnam: { code: 'invalid_number' }, trust: null } });
    expect(b?.ok).toBe(true);
    expect(h.transport.calls).toHaveLength(6);
    expect(h.transport.calls.find((c) => c.kind === 'cnam')?.opts).toEqual({ spam: true });
    expect(h.transport.calls.find((c) => c.kind === 'lrn')?.opts).toEqual({});
  });
});

describe('runner: streaming', () => {
  it('hands the rows finished while an earlier one waited over in one batch, in input order', async () => {
    // The first row's answer comes last: the nine behind it finish first and wait for it, then all
    // ten are ready in the same turn. The rows of a later slow one come in a batch of their own.
    const inputs = numbers(12);
    const h = harness({ auto: false, latency: (call) => (call.number === inputs[0] ? 100 : call.number === inputs[10] ? 300 : 10) });
    const handle = runPipeline(source(inputs), { mode: 'single', lookups: [LRN], options: {}, validate: true }, { transport: h.transport, clock: h.clock, stats: h.stats, dedup: newRunDedup, rates: { lrn: 0 }, concurrency: 16 });
    const it = handle.batches[Symbol.asyncIterator]();
    const inputsOf = (r: IteratorResult<OutputRecord[]>) => (r.done ? null : r.value.map((record) => record.input));
    const first = it.next();
    await h.clock.advance(100);
    expect(inputsOf(await first)).toEqual(inputs.slice(0, 10));
    const second = it.next();
    await h.clock.advance(200);
    expect(inputsOf(await second)).toEqual(inputs.slice(10));
    expect((await it.next()).done).toBe(true);
    expect(handle.outcome()).toEqual({ stopped: null, rowsWritten: 12 });
  });

  it('pulls lazily: the first record comes out while the source is still waiting', async () => {
    const h = harness();
    let release: () => void = () => {};
    const gate = new Promise<void>((r) => (release = r));
    async function* slow() {
      yield { index: 0, input: '12015551000' };
      await gate;
      yield { index: 1, input: '12015551001' };
    }
    const handle = runPipeline(slow(), { mode: 'single', lookups: [LRN], options: {}, validate: true }, { transport: h.transport, clock: h.clock, stats: h.stats, dedup: newRunDedup });
    const it = handle.records[Symbol.asyncIterator]();
    const first = await it.next();
    expect(first.value).toMatchObject({ input: '12015551000', ok: true });
    release();
    expect((await it.next()).value).toMatchObject({ input: '12015551001' });
    expect((await it.next()).done).toBe(true);
  });

  it('reads at most a window ahead of a slow head row', async () => {
    const h = harness({ auto: false, latency: (c) => (c.number === '12015551000' ? 60_000 : 1) });
    const src = source(numbers(1000));
    const handle = runPipeline(src, { mode: 'single', lookups: [LRN], options: {}, validate: true }, { transport: h.transport, clock: h.clock, stats: h.stats, dedup: newRunDedup, rates: { lrn: 0 }, concurrency: 4, window: 50 });
    const it = handle.records[Symbol.asyncIterator]();
    const first = it.next();
    await h.clock.advance(30_000);
    expect(src.pulled).toBeLessThanOrEqual(51);
    expect(src.pulled).toBeGreaterThanOrEqual(50);
    expect(h.transport.calls.length).toBeLessThanOrEqual(50);
    await h.clock.advance(30_000);
    await first;
    let n = 1;
    for (;;) {
      const next = it.next();
      await h.clock.advance(1000);
      if ((await next).done) break;
      n++;
    }
    expect(n).toBe(1000);
  });

  it('admits rows as their requests can leave, not a whole window ahead: with every answer slow, it reads what is in flight and a queue behind it', async () => {
    const h = harness({ auto: false, latency: () => 10_000 });
    const src = source(numbers(1000));
    const handle = runPipeline(src, { mode: 'single', lookups: [LRN], options: {}, validate: true }, { transport: h.transport, clock: h.clock, stats: h.stats, dedup: newRunDedup, rates: { lrn: 0 }, concurrency: 4 });
    const it = handle.records[Symbol.asyncIterator]();
    const first = it.next();
    await h.clock.advance(5_000);
    // 4 in flight and queueAhead(4) = 32 queued behind them; the window (1,024) would allow them all.
    expect(h.transport.calls).toHaveLength(4);
    expect(h.stats.rows).toBe(4 + queueAhead(4));
    expect(src.pulled).toBeLessThanOrEqual(4 + queueAhead(4) + 1);
    // As the answers come, the queue is topped up: every row once, in order.
    await h.clock.advance(5_000);
    const records = [(await first).value, ...(await restOnFakeTime(it, h, 10_000))];
    expect(records.map((r) => r?.input)).toEqual(numbers(1000));
    expect(h.transport.calls).toHaveLength(1000);
  });

  it('reads rows that need no request of their own up to the window: duplicates of a lookup in flight are not held back by the queue', async () => {
    const h = harness({ auto: false, latency: () => 60_000 });
    const inputs = Array.from({ length: 1000 }, () => '12015551000');
    const src = source(inputs);
    const handle = runPipeline(src, { mode: 'single', lookups: [LRN], options: {}, validate: true }, { transport: h.transport, clock: h.clock, stats: h.stats, dedup: newRunDedup, rates: { lrn: 0 }, concurrency: 4, window: 200 });
    const it = handle.records[Symbol.asyncIterator]();
    const first = it.next();
    await h.clock.advance(30_000);
    expect(h.transport.calls).toHaveLength(1);
    expect(h.stats.rows).toBe(200);
    await h.clock.advance(30_000);
    const records = [(await first).value];
    for (;;) {
      const r = await it.next();
      if (r.done) break;
      records.push(r.value);
    }
    expect(records).toHaveLength(1000);
    expect(h.transport.calls).toHaveLength(1);
  });

  it('reads a batched source batch by batch: every row once, in order, at most a window (and a batch) ahead', async () => {
    const h = harness({ auto: false, latency: (c) => (c.number === '12015551000' ? 60_000 : 1) });
    const src = batchedSource(numbers(1000), 7);
    const handle = runPipeline(src, { mode: 'single', lookups: [LRN], options: {}, validate: true }, { transport: h.transport, clock: h.clock, stats: h.stats, dedup: newRunDedup, rates: { lrn: 0 }, concurrency: 4, window: 50 });
    const it = handle.records[Symbol.asyncIterator]();
    const first = it.next();
    await h.clock.advance(30_000);
    expect(h.stats.rows).toBe(50);
    expect(src.pulled).toBeLessThanOrEqual(50 + 7);
    expect(h.transport.calls.length).toBeLessThanOrEqual(50);
    await h.clock.advance(30_000);
    const records = [(await first).value, ...(await restOnFakeTime(it, h, 1000))];
    expect(records.map((r) => r?.input)).toEqual(numbers(1000));
    expect(h.transport.calls).toHaveLength(1000);
    expect(src.batchesRead).toBe(Math.ceil(1000 / 7));
  });

  it('stops sending when the consumer stops reading', async () => {
    const h = harness({ latency: () => 10 });
    const src = source(numbers(2000));
    const handle = runPipeline(src, { mode: 'single', lookups: [LRN], options: {}, validate: true }, { transport: h.transport, clock: h.clock, stats: h.stats, dedup: newRunDedup, rates: { lrn: 0 } });
    let seen = 0;
    for await (const _ of handle.records) if (++seen === 5) break;
    const sent = h.transport.calls.length;
    for (let i = 0; i < 20; i++) await h.clock.advance(1000);
    await idle();
    expect(h.transport.calls.length).toBe(sent);
    expect(sent).toBeLessThan(300);
    expect(handle.outcome()).toEqual({ stopped: { reason: 'closed' }, rowsWritten: 5 });
    expect(h.clock.pending).toBe(0);
  });
});
