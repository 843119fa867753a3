import { describe, expect, it } from 'vitest';
import { CNAM, LRN } from '../../../src/core/lookups.js';
import type { LookupRecord } from '../../../src/core/records.js';
import { LookupCache } from '../../../src/pipeline/dedup/dedup.js';
import { cacheKey, type CacheKey, type Finished, type RunDedup } from '../../../src/store/answer-store.js';
import { harness, invalid, ok, runAll, serverError } from '../fakes.js';
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
      const finished = new Map<string, Finished>();
      const k = (i: number, key: CacheKey) => `${i}:${key}`;
      return {
        inFlight: (i, key) => pending.get(k(i, key)),
        finished: (i, key) => finished.get(k(i, key)),
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

  it('enrich dedups each kind on its own', async () => {
    const h = harness();
    await runAll(h, ['12015551000', '12015551000', '12015551001'], { mode: 'enrich', lookups: [LRN, CNAM] });
    expect(h.transport.calls.map((c) => `${c.kind}:${c.number}`).sort()).toEqual(['cnam:12015551000', 'cnam:12015551001', 'lrn:12015551000', 'lrn:12015551001']);
    expect(h.stats.duplicates).toBe(2);
  });

  it('the cache hands out independent copies of a stored result', () => {
    const cache = new LookupCache<object>(1);
    const one = cacheKey('1');
    const two = cacheKey('2');
    cache.start(0, one, {});
    expect(cache.inFlight(0, one)).toBeDefined();
    cache.finish(0, one, { result: { a: 1 }, error: null, fetchedAt: 5, cached: false });
    expect(cache.inFlight(0, one)).toBeUndefined();
    const a = cache.finished(0, one);
    (a?.result as { a: number }).a = 2;
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
