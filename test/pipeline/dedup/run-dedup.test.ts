import { describe, expect, it } from 'vitest';
import { CNAM, LRN } from '../../../src/core/lookups.js';
import type { LookupRecord, Result } from '../../../src/core/records.js';
import { SpillingRunDedup, newRunDedup } from '../../../src/pipeline/dedup/run-dedup.js';
import { runPipeline } from '../../../src/pipeline/runner.js';
import { cacheKey, MemoryAnswerStore, type AnswerStore, type CacheKey, type Finished, type Kept, type RunDedup } from '../../../src/store/answer-store.js';
import { harness, invalid, ok, runAll, serverError, source } from '../fakes.js';
import { numbers } from '../../support/numbers.js';

describe('dedup: never pay twice', () => {
  it('concurrent duplicates share one request', async () => {
    const h = harness({ latency: () => 100, script: { '12015551000': [ok({ lrn: 'X' })] } });
    const inputs = ['12015551000', '(201) 555-1000', '201.555.1000', '12015551001'];
    const { records } = await runAll(h, inputs);
    expect(h.transport.callsOf('12015551000')).toHaveLength(1);
    expect(records.slice(0, 3).map((r) => (r as LookupRecord).result)).toEqual([{ lrn: 'X' }, { lrn: 'X' }, { lrn: 'X' }]);
    expect(records.slice(0, 3).map((r) => r.input)).toEqual(inputs.slice(0, 3));
    expect(h.stats).toMatchObject({ lookups: 2, duplicates: 2, requests: 2 });
  });

  it('later duplicates reuse the finished result', async () => {
    const h = harness({ latency: () => 10 });
    const inputs = [...numbers(300), ...numbers(300)];
    const { records } = await runAll(h, inputs, {}, { concurrency: 2, window: 4, rates: { lrn: 0 } });
    expect(h.transport.calls).toHaveLength(300);
    expect(h.stats).toMatchObject({ lookups: 300, duplicates: 300, written: 600 });
    expect((records[450] as LookupRecord).result).toEqual((records[150] as LookupRecord).result);
  });

  it('keeps invalid answers, but retries a failure for a later duplicate', async () => {
    const h = harness({ script: { '12015551000': [invalid()], '12015551001': [serverError(), ok({ lrn: 'late' })] } });
    const pad = numbers(20, 100);
    const inputs = ['12015551000', '12015551001', ...pad, '12015551000', '12015551001'];
    const { records } = await runAll(h, inputs, {}, { retries: 0, window: 4, concurrency: 1 });
    expect(h.transport.callsOf('12015551000')).toHaveLength(1);
    expect(h.transport.callsOf('12015551001')).toHaveLength(2);
    expect((records[1] as LookupRecord).error?.code).toBe('server_error');
    expect((records[23] as LookupRecord).result).toEqual({ lrn: 'late' });
    expect((records[22] as LookupRecord).error?.code).toBe('invalid_number');
  });

  it('is the dedup the caller gives: a plain Map one joins and reuses answers the same way, and is closed', async () => {
    const made: number[] = [];
    let closed = 0;
    const log: string[] = [];
    const mapDedup = <P>(lookups: number): RunDedup<P> => {
      made.push(lookups);
      const pending = new Map<string, P>();
      const finished = new Map<string, Finished | Kept>();
      const k = (i: number, key: CacheKey) => `${i}:${key}`;
      return {
        inFlight: (i, key) => pending.get(k(i, key)),
        finished: (i, key) => finished.get(k(i, key)),
        finishKept: (i, key, cached) => {
          pending.delete(k(i, key));
          finished.set(k(i, key), { kept: true, cached });
        },
        start: (i, key, p) => void pending.set(k(i, key), p),
        finish: (i, key, answer) => {
          log.push(`finish ${key}`);
          pending.delete(k(i, key));
          if (answer) finished.set(k(i, key), answer);
        },
        forget: (i, key) => void pending.delete(k(i, key)),
        close: () => void (closed += 1),
      };
    };
    const h = harness({ latency: () => 50 });
    const inputs = ['12015551000', '2015551000', '12015551001', ...numbers(10, 100), '12015551000'];
    const { records } = await runAll(h, inputs, {}, { dedup: mapDedup, window: 4 });
    expect(made).toEqual([1]);
    expect(closed).toBe(1);
    expect(h.transport.callsOf('12015551000')).toHaveLength(1);
    expect(log.filter((l) => l === 'finish 12015551000')).toHaveLength(1);
    expect(records.map((r) => (r as LookupRecord).ok)).toEqual(inputs.map(() => true));
    expect(h.stats).toMatchObject({ lookups: 12, duplicates: 2 });
  });

  // With an answer store that keeps what it is given (the persistent cache), the dedup remembers
  // only that a lookup ended, and a duplicate's answer is read back from the store.
  it('with an answer store: duplicates of a fetched answer and of a cached one, read back from the store, as without one', async () => {
    const h = harness({ latency: () => 10 });
    const answers = new MemoryAnswerStore();
    const hit = numbers(1, 900)[0] as string;
    answers.slot('lrn', {}).put(hit, { lrn: 'from the cache' }, 1_000);
    const fresh = numbers(40, 100);
    const inputs = [hit, ...fresh, hit, ...fresh];
    const { records } = await runAll(h, inputs, {}, { answers, concurrency: 4, window: 8, rates: { lrn: 0 } });
    expect(h.transport.calls).toHaveLength(40);
    expect(h.stats).toMatchObject({ lookups: 40, cacheHits: 1, duplicates: 41, written: 82 });
    const at = (i: number) => records[i] as LookupRecord;
    expect(at(41)).toEqual(at(0));
    expect(at(0)).toMatchObject({ result: { lrn: 'from the cache' }, cached: true, fetched_at: new Date(1_000).toISOString() });
    for (let i = 1; i <= 40; i++) {
      expect(at(i + 41)).toEqual(at(i));
      expect(at(i)).toMatchObject({ ok: true, cached: false });
    }
  });

  it("with a library user's own answer store, without kept(): the run keeps its own copy, duplicates still pay once", async () => {
    const h = harness({ latency: () => 10 });
    const held = new Map<string, { result: Result; fetchedAt: number }>();
    const hit = numbers(1, 900)[0] as string;
    held.set(hit, { result: { lrn: 'from the cache' }, fetchedAt: 1_000 });
    const own: AnswerStore = {
      slot: () => ({
        get: (n) => held.get(n),
        has: (n) => held.has(n),
        put: (n, result, fetchedAt) => void held.set(n, { result, fetchedAt }),
      }),
      close: async () => held.clear(),
    };
    const fresh = numbers(10, 100);
    const inputs = [hit, ...fresh, hit, ...fresh];
    const { records } = await runAll(h, inputs, {}, { answers: own, window: 4, rates: { lrn: 0 } });
    expect(h.transport.calls).toHaveLength(10);
    expect(h.stats).toMatchObject({ cacheHits: 1, duplicates: 11 });
    for (let i = 0; i <= 10; i++) expect(records[i + 11]).toEqual(records[i]);
  });

  it('with an answer store that lost a kept answer since, the duplicate is looked up again rather than left without one', async () => {
    const h = harness({ latency: () => 10 });
    const answers = new MemoryAnswerStore();
    const n = numbers(1, 100)[0] as string;
    const inputs = [n, ...numbers(20, 200), n];
    const handle = runPipeline(source(inputs), { mode: 'single', lookups: [LRN], options: {}, validate: true }, {
      transport: h.transport,
      clock: h.clock,
      stats: h.stats,
      dedup: newRunDedup,
      answers,
      window: 4,
      rates: { lrn: 0 },
    });
    const records: LookupRecord[] = [];
    for await (const r of handle.records) {
      records.push(r as LookupRecord);
      // Another process clears the cache once the first row is out.
      if (records.length === 1) await answers.close();
    }
    expect(h.transport.callsOf(n)).toHaveLength(2);
    expect(records.at(-1)).toMatchObject({ ok: true, input: n });
  });

  it('enrich dedups each kind on its own', async () => {
    const h = harness();
    await runAll(h, ['12015551000', '12015551000', '12015551001'], { mode: 'enrich', lookups: [LRN, CNAM] });
    expect(h.transport.calls.map((c) => `${c.kind}:${c.number}`).sort()).toEqual(['cnam:12015551000', 'cnam:12015551001', 'lrn:12015551000', 'lrn:12015551001']);
    expect(h.stats.duplicates).toBe(2);
  });

  it('remembers answers the store keeps as ended only, apart for a fetched and a cached one, whole numbers and others alike', () => {
    const cache = new SpillingRunDedup<object>(2);
    const whole = cacheKey('12015550123');
    const other = cacheKey('0201555');
    cache.start(0, whole, {});
    cache.finishKept(0, whole, false);
    expect(cache.inFlight(0, whole)).toBeUndefined();
    cache.finishKept(1, whole, true);
    cache.finishKept(0, other, true);
    expect(cache.finished(0, whole)).toEqual({ kept: true, cached: false });
    expect(cache.finished(1, whole)).toEqual({ kept: true, cached: true });
    expect(cache.finished(0, other)).toEqual({ kept: true, cached: true });
    expect(cache.finished(1, other)).toBeUndefined();
    expect(cache.finished(0, cacheKey('12015550124'))).toBeUndefined();
    expect(cache.size).toBe(3);
    cache.close();
    expect(cache.finished(0, whole)).toBeUndefined();
  });

  it('the cache hands out independent copies of a stored result', () => {
    const cache = new SpillingRunDedup<object>(1);
    const one = cacheKey('1');
    const two = cacheKey('2');
    cache.start(0, one, {});
    expect(cache.inFlight(0, one)).toBeDefined();
    cache.finish(0, one, { result: { a: 1 }, error: null, fetchedAt: 5, cached: false });
    expect(cache.inFlight(0, one)).toBeUndefined();
    const a = cache.finished(0, one) as Finished;
    (a.result as { a: number }).a = 2;
    expect(cache.finished(0, one)).toEqual({ result: { a: 1 }, error: null, fetchedAt: 5, cached: false });
    cache.finish(0, two, undefined);
    expect(cache.finished(0, two)).toBeUndefined();
    expect(cache.size).toBe(1);
  });
});

describe('ResultCodec', () => {
  it('round-trips results of several shapes, keys in their order, values as sent', async () => {
    const { ResultCodec } = await import('../../../src/pipeline/dedup/result-codec.js');
    const codec = new ResultCodec();
    const samples = [
      { lrn: '12015550000', lrn_activated_at: null },
      { lrn: '1', lrn_activated_at: 'x', enhanced_lrn_data: { carrier: 'A', lata: '224' }, messaging: { enabled: true, list: [1, 2] } },
      { is_spam: false, reputation_score: 87, nested: { deeper: { n: 0 } }, after: 'z' },
    ];
    const encoded = samples.map((s) => codec.encode(s));
    expect(encoded.map((e) => codec.decode(e))).toEqual(samples);
    expect(Object.keys(codec.decode(encoded[1] as string))).toEqual(['lrn', 'lrn_activated_at', 'enhanced_lrn_data', 'messaging']);
    expect((encoded[0] as string).length).toBeLessThan(JSON.stringify(samples[0]).length);
  });

  it('round-trips any JSON object exactly, however its keys look: shapes that only a marker could tell apart stay apart', async () => {
    const { ResultCodec } = await import('../../../src/pipeline/dedup/result-codec.js');
    const { prng } = await import('../../../src/core/prng.js');
    const random = prng(11);
    const KEYS = ['a', 'b', 'a{', '}', '{', '__proto__', '', 'lrn'];
    const leaf = (): unknown => [null, 0, 1.5, 'x', '', true, false, [1, 'two'], []][Math.floor(random() * 9)];
    const object = (depth: number): Record<string, unknown> => {
      const text: string[] = [];
      const used = new Set<string>();
      for (let n = Math.floor(random() * 4); n > 0; n--) {
        const k = KEYS[Math.floor(random() * KEYS.length)] as string;
        if (used.has(k)) continue;
        used.add(k);
        const v = depth < 3 && random() < 0.3 ? object(depth + 1) : leaf();
        text.push(`${JSON.stringify(k)}:${JSON.stringify(v)}`);
      }
      // Through JSON.parse, as results arrive: `__proto__` is then an own key.
      return JSON.parse(`{${text.join(',')}}`) as Record<string, unknown>;
    };
    const codec = new ResultCodec();
    const samples = Array.from({ length: 3000 }, () => object(0));
    const encoded = samples.map((s) => codec.encode(s));
    for (const [i, e] of encoded.entries()) expect(JSON.stringify(codec.decode(e))).toBe(JSON.stringify(samples[i]));
    // The cases a textual marker would confuse.
    const pairs = [JSON.parse('{"a{":1,"}":2}'), JSON.parse('{"a":{}}'), JSON.parse('{"a":{"}":1}}'), JSON.parse('{"a":{},"}":1}')] as Record<string, unknown>[];
    const ids = pairs.map((p) => JSON.parse(codec.encode(p))[0]);
    expect(new Set(ids).size).toBe(pairs.length);
  });
});
