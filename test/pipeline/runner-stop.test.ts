import { describe, expect, it } from 'vitest';
import { runPipeline, type RunDeps } from '../../src/pipeline/runner.js';
import { newRunDedup } from '../../src/pipeline/dedup/run-dedup.js';
import { LRN } from '../../src/core/lookups.js';
import { harness, refused, runAll, serverError, source, type Harness } from './fakes.js';
import { numbers } from '../support/numbers.js';
import { prng } from '../../src/core/prng.js';
import { MemoryAnswerStore } from '../../src/store/answer-store.js';

const plan = { mode: 'single', lookups: [LRN], options: {}, validate: true } as const;

/** A run of `inputs` on the harness, no rate limit, read record by record by the test. */
const start = (h: Harness, inputs: string[], deps: Partial<RunDeps> = {}) =>
  runPipeline(source(inputs), plan, { transport: h.transport, clock: h.clock, stats: h.stats, dedup: newRunDedup, rates: { lrn: 0 }, ...deps });

describe('runner: stopping', () => {
  it('a refused key stops dispatch at once, writes the finished prefix, not the refused row', async () => {
    const rnd = prng(3);
    const inputs = numbers(300);
    const bad = inputs[40] as string;
    const h = harness({ latency: () => 5 + Math.floor(rnd() * 50), script: { [bad]: [refused(402)] } });
    const { records, outcome } = await runAll(h, inputs, {}, { rates: { lrn: 0 }, concurrency: 8 });

    const fatalAt = h.transport.log.findIndex((e) => e.attempt === 'fatal');
    expect(fatalAt).toBeGreaterThan(0);
    expect(h.transport.log.slice(fatalAt).some((e) => e.type === 'send')).toBe(false);
    expect(outcome.stopped).toEqual({ reason: 'refused', error: { code: 'payment_required', message: 'HTTP 402', status: 402 } });
    // The written rows are a prefix of the input, ending before the refused row.
    expect(records.map((r) => r.input)).toEqual(inputs.slice(0, records.length));
    expect(records.length).toBeLessThanOrEqual(40);
    // Every row that was answered before the stop point is written (in-flight ones were drained).
    const answered = new Set(h.transport.log.filter((e) => e.type === 'answer').map((e) => e.number));
    const firstUnanswered = inputs.findIndex((n) => !answered.has(n) || n === bad);
    expect(records.length).toBe(firstUnanswered);
    expect(h.stats.written).toBe(records.length);
  });

  it('an abort signal stops like a refusal, with outcome interrupted', async () => {
    const h = harness({ latency: () => 20 });
    const ac = new AbortController();
    const inputs = numbers(1000);
    const handle = start(h, inputs, { signal: ac.signal });
    const seen: string[] = [];
    let sentAtAbort = 0;
    for await (const r of handle.records) {
      seen.push(r.input);
      if (seen.length === 50) {
        ac.abort();
        sentAtAbort = h.transport.calls.length;
      }
    }
    expect(h.transport.calls.length).toBe(sentAtAbort);
    expect(seen).toEqual(inputs.slice(0, seen.length));
    expect(seen.length).toBeLessThan(1000);
    expect(handle.outcome()).toEqual({ stopped: { reason: 'interrupted' }, rowsWritten: seen.length });
  });

  it('says at the stop how many requests are still in flight, and counts only what was sent', async () => {
    // Slow answers for all but the first rows: when the interrupt comes, 8 requests are out.
    const inputs = numbers(400);
    const h = harness({ latency: (c) => (inputs.indexOf(c.number) < 8 ? 5 : 1000) });
    const ac = new AbortController();
    const events: { reason: string; inFlight: number }[] = [];
    const handle = start(h, inputs, {
      concurrency: 8,
      signal: ac.signal,
      onEvent: (e) => e.type === 'stopped' && events.push({ reason: e.reason, inFlight: e.inFlight }),
    });
    const seen: string[] = [];
    for await (const r of handle.records) {
      seen.push(r.input);
      if (seen.length === 8) ac.abort();
    }
    expect(events).toEqual([{ reason: 'interrupted', inFlight: 8 }]);
    // The 8 in flight were drained and written; the rows read and queued behind them never left.
    expect(seen).toEqual(inputs.slice(0, 16));
    expect(h.stats.rows).toBeGreaterThan(16);
    expect(h.stats).toMatchObject({ requests: 16, lookups: 16, retries: 0 });
  });

  it('a second interrupt (quit) abandons what is in flight and ends after the finished rows', async () => {
    const inputs = numbers(50);
    // Rows 0 and 1 answer in 10 ms, every other row takes a minute.
    const h = harness({ latency: (c) => (c.number === inputs[0] || c.number === inputs[1] ? 10 : 60_000) });
    const interrupt = new AbortController();
    const quit = new AbortController();
    const handle = start(h, inputs, {
      concurrency: 4,
      signal: interrupt.signal,
      quit: quit.signal,
      drainMs: 120_000,
    });
    const seen: string[] = [];
    const started = h.clock.now();
    for await (const r of handle.records) {
      seen.push(r.input);
      if (seen.length === 2) {
        interrupt.abort();
        // The user gives up waiting for the minute-long answers.
        void h.clock.sleep(1000).then(() => quit.abort());
      }
    }
    expect(seen).toEqual(inputs.slice(0, 2));
    expect(h.clock.now() - started).toBeLessThan(2000);
    expect(handle.outcome()).toEqual({ stopped: { reason: 'interrupted' }, rowsWritten: 2 });
  });

  it('a closed consumer: nothing more is sent, what is in flight finishes into the answer store within closedDrainMs, the rest is abandoned', async () => {
    const inputs = numbers(400);
    // The first 8 answer at once; of the 8 in flight at the close, 6 answer in 300 ms, 2 never.
    const slow = new Set(inputs.slice(8, 16));
    const never = new Set(inputs.slice(14, 16));
    const h = harness({ latency: (c) => (never.has(c.number) ? 600_000 : slow.has(c.number) ? 300 : 5) });
    const answers = new MemoryAnswerStore();
    const closed = new AbortController();
    const handle = start(h, inputs, {
      concurrency: 8,
      answers,
      closed: closed.signal,
      closedDrainMs: 1000,
    });
    const seen: string[] = [];
    let sentAtClose = -1;
    let closedAt = 0;
    for await (const r of handle.records) {
      seen.push(r.input);
      if (seen.length === 8) {
        closed.abort();
        sentAtClose = h.transport.calls.length;
        closedAt = h.clock.now();
      }
    }
    expect(sentAtClose).toBe(16);
    expect(h.transport.calls).toHaveLength(16);
    // The six that answered were yielded (for the consumer to drop) and kept; the two that did not, abandoned after the drain.
    expect(seen).toEqual(inputs.slice(0, 14));
    expect(h.clock.now() - closedAt).toBeGreaterThanOrEqual(1000);
    expect(h.clock.now() - closedAt).toBeLessThan(1100);
    expect(answers.size).toBe(14);
    expect(handle.outcome()).toEqual({ stopped: { reason: 'closed' }, rowsWritten: 14 });
  });

  it('an already aborted signal sends nothing', async () => {
    const h = harness();
    const ac = new AbortController();
    ac.abort();
    const { records, outcome } = await runAll(h, numbers(10), {}, { signal: ac.signal });
    expect(records).toEqual([]);
    expect(h.transport.calls).toEqual([]);
    expect(outcome.stopped?.reason).toBe('interrupted');
  });

  it('in-flight requests get drainMs to finish, then the run ends without them', async () => {
    const inputs = numbers(3);
    const h = harness({ latency: (c) => (c.number === inputs[1] ? 60_000 : 10), script: { [inputs[2] as string]: [refused()] } });
    const started = h.clock.now();
    const { records, outcome } = await runAll(h, inputs, {}, { drainMs: 2000 });
    expect(records.map((r) => r.input)).toEqual([inputs[0]]);
    expect(outcome.stopped?.reason).toBe('refused');
    expect(h.clock.now() - started).toBeLessThan(2100);
  });

  it('the breaker stops after N consecutive rows that failed after their retries', async () => {
    const inputs = numbers(500);
    const script = Object.fromEntries(inputs.slice(100).map((n) => [n, [serverError(503)]]));
    const h = harness({ latency: () => 5, script });
    let sentAtTrip = -1;
    const onEvent = (e: { type: string }) => {
      if (e.type === 'stopped') sentAtTrip = h.transport.calls.length;
    };
    const { records, outcome } = await runAll(h, inputs, {}, { retries: 1, breakerThreshold: 10, concurrency: 4, rates: { lrn: 0 }, onEvent });
    expect(outcome.stopped).toEqual({ reason: 'breaker', error: { code: 'server_error', message: 'HTTP 503', status: 503 } });
    expect(records.length).toBeGreaterThanOrEqual(100);
    expect(records.length).toBeLessThan(120);
    expect(h.transport.calls.length).toBe(sentAtTrip);
    expect(h.transport.calls.length).toBeLessThan(400);
    expect(records.slice(100).every((r) => !r.ok)).toBe(true);
  });

  it('invalid numbers never trip the breaker', async () => {
    const h = harness();
    const { outcome, records } = await runAll(h, [...Array.from({ length: 30 }, () => '123'), '12015551000'], {}, { breakerThreshold: 5 });
    expect(outcome.stopped).toBeNull();
    expect(records).toHaveLength(31);
  });

  it('cancel(): what has no request on the wire is given up at once, the requests in flight finish, every row is written in order', async () => {
    const inputs = numbers(6);
    const [first, , slow, failing] = inputs as [string, string, string, string];
    // Two slots. Row 0 fails at 100 ms and rests before its retry (≈249 ms of backoff); rows 2
    // and 3 go out then, row 3 answering at 200 ms with an error worth a retry, row 2 at 3100 ms:
    // later than a stopped run's drain (closedDrainMs, 1 s), which a cancelled one does not cut.
    const h = harness({ auto: false, latency: (c) => (c.number === slow ? 3000 : 100), script: { [first]: [serverError()], [failing]: [serverError()] } });
    const handle = start(h, inputs, { concurrency: 2, random: () => 0.999 });
    const records = (async () => {
      const out = [];
      for await (const r of handle.records) out.push(r);
      return out;
    })();
    await h.clock.advance(150);
    expect(h.transport.calls.map((c) => c.number)).toEqual(inputs.slice(0, 4));
    const given = { code: 'not_attempted', message: 'given up' } as const;
    // Row 0 waits for its retry, rows 4 and 5 for a slot: none of them is on the wire.
    expect(handle.cancel(given).sort()).toEqual([0, 4, 5]);
    await h.clock.advance(5000);
    const written = await records;
    expect(written.map((r) => [r.input, 'error' in r ? (r.error?.code ?? 'ok') : '?'])).toEqual([
      [inputs[0], 'not_attempted'],
      [inputs[1], 'ok'],
      [inputs[2], 'ok'],
      // Its answer asked for another try, which a cancelled run does not send.
      [inputs[3], 'not_attempted'],
      [inputs[4], 'not_attempted'],
      [inputs[5], 'not_attempted'],
    ]);
    expect(h.transport.calls).toHaveLength(4);
    expect(handle.outcome().stopped).toEqual({ reason: 'closed' });
    expect(handle.cancel(given)).toEqual([]);
  });
});
