import { setImmediate as tick } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { LRN } from '../../src/core/lookups.js';
import type { OutputRecord } from '../../src/core/records.js';
import { createSink } from '../../src/output/sink.js';
import type { OutputLayout } from '../../src/output/layout.js';
import { Collect, LRN_RESULT, enriched, failed, ok } from './helpers.js';

const layout: OutputLayout = { mode: 'single', lookups: [LRN], options: {}, inputColumns: null };

async function run(format: 'json' | 'jsonl', records: OutputRecord[], l: OutputLayout = layout): Promise<string> {
  const out = new Collect();
  const sink = await createSink(format, out, l);
  for (const r of records) await sink.write(r);
  await sink.end();
  expect(out.writableEnded).toBe(false); // end() finishes the format, not the stream
  return out.text;
}

const many: OutputRecord[] = [
  ok('lrn', '(201) 555-0123', '12015550123', LRN_RESULT),
  failed('lrn', 'abc', null, { code: 'invalid_number', message: 'not a U.S. number' }),
  ok('lrn', '2015550124', '12015550124', { lrn: '12015550001', lrn_activated_at: null }),
];

describe('jsonl', () => {
  it('writes one JSON.stringify(record) per line, keys in the record’s own order', async () => {
    const record = { input: 'x', number: '12015550123', lookup: 'lrn', ok: true, result: { b: 1, a: 2 }, error: null, cached: false, fetched_at: null, row: { z: '1', a: '2' } } as OutputRecord;
    const text = await run('jsonl', [record, many[1]!]);
    const lines = text.split('\n');
    expect(lines).toHaveLength(3);
    expect(lines[2]).toBe('');
    expect(lines[0]).toBe(
      '{"input":"x","number":"12015550123","lookup":"lrn","ok":true,"result":{"b":1,"a":2},"error":null,"cached":false,"fetched_at":null,"row":{"z":"1","a":"2"}}',
    );
    expect(JSON.parse(lines[1]!)).toEqual(many[1]);
  });

  it('writes nothing for an empty run', async () => {
    expect(await run('jsonl', [])).toBe('');
  });

  it('keeps enrich records as they are', async () => {
    const r = enriched('a', '12015550123', { lrn: LRN_RESULT }, { lrn: null });
    expect(JSON.parse(await run('jsonl', [r]))).toEqual(r);
  });
});

describe('json', () => {
  it.each([0, 1, 3])('is one valid array for %i records', async (n) => {
    const records = many.slice(0, n);
    const text = await run('json', records);
    expect(JSON.parse(text)).toEqual(records);
    expect(text.endsWith('\n')).toBe(true);
  });

  it('writes `[]` when empty and streams items as they come: the first on the next turn, those right behind it in one write', async () => {
    expect(await run('json', [])).toBe('[]\n');
    const out = new Collect();
    const sink = await createSink('json', out, layout);
    // The `[` is out before any record: a file cut short still starts as JSON.
    expect(out.text).toBe('[');
    await sink.write(many[0]!);
    await tick();
    expect(out.text).toBe(`[\n${JSON.stringify(many[0])}`);
    await sink.write(many[1]!);
    await tick();
    await sink.write(many[2]!);
    await tick();
    expect(out.chunks).toHaveLength(2);
    await new Promise((resolve) => setTimeout(resolve, 80));
    expect(out.chunks).toHaveLength(3);
    await sink.end();
    expect(out.text).toBe(`[\n${[many[0], many[1], many[2]].map((r) => JSON.stringify(r)).join(',\n')}\n]\n`);
  });

  it('continues an existing array when appending', async () => {
    const text = await run('json', [many[2]!], { ...layout, appending: true });
    expect(text).toBe(`,\n${JSON.stringify(many[2])}\n]\n`);
    expect(JSON.parse(`[\n${JSON.stringify(many[0])}${text}`)).toEqual([many[0], many[2]]);
  });
});
