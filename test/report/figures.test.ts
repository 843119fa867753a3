// Every figure of the report against outputs whose answers are known (fixture.ts), whichever form
// the output takes: CSV (list or CSV input, whose columns clash with numintel's), JSON lines, JSON;
// enrich or a single lookup.
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { LookupKind } from '../../src/core/lookups.js';
import type { OutputRecord } from '../../src/core/records.js';
import type { OutputFormat } from '../../src/output/sink.js';
import { ReportAccumulator } from '../../src/report/accumulator.js';
import { readOutput } from '../../src/report/reader.js';
import type { Report } from '../../src/report/report.js';
import * as F from './fixture.js';

async function reportOf(text: string, prices?: Partial<Record<LookupKind, number>>, chunk = 7): Promise<Report> {
  const acc = new ReportAccumulator({ asOf: F.AS_OF, source: 'file', prices });
  // Small chunks: rows, quoted cells and UTF-8 characters are cut anywhere.
  const bytes = Buffer.from(text);
  const chunks: Buffer[] = [];
  for (let i = 0; i < bytes.length; i += chunk) chunks.push(bytes.subarray(i, i + chunk));
  const read = await readOutput(Readable.from(chunks), 'fixture', (row) => acc.add(row));
  const report = acc.finish();
  report.source.format = read.format;
  return report;
}

function expectLrn(r: Report): void {
  expect(r.line_type).toEqual(F.LINE_TYPE);
  expect(r.porting).toEqual(F.PORTING);
  expect(r.carriers).toEqual(F.CARRIERS);
  expect(r.states?.all).toEqual(F.STATES);
  expect(r.states?.base).toBe(8);
  expect(Object.fromEntries(r.time_zones?.top.map((z) => [z.name, z.count]) ?? [])).toEqual(F.ZONES);
  expect(r.time_zones?.top.map((z) => z.label)).toEqual(['-0500 Eastern', '-0600 Central', '-0800 Pacific']);
  const { providers, ...messaging } = r.messaging ?? { providers: undefined };
  expect(messaging).toEqual(F.MESSAGING);
  expect(Object.fromEntries(providers?.top.map((p) => [p.name, p.count]) ?? [])).toEqual(F.PROVIDERS);
  expect(providers?.base).toBe(6);
}

function expectCnam(r: Report): void {
  expect(r.cnam).toEqual(F.CNAM);
}

function expectTrust(r: Report): void {
  const { score, ...rest } = r.trust ?? { score: undefined };
  const { score: want, ...wantRest } = F.TRUST;
  expect(rest).toEqual(wantRest);
  expect(score?.base).toBe(want.base);
  expect(score?.mean).toBe(want.mean);
  expect(score?.histogram.map((h) => h.count)).toEqual(want.histogram);
  expect(score?.histogram[0]).toEqual({ from: 0, to: 9, count: 1 });
  expect(score?.histogram[9]).toEqual({ from: 90, to: 100, count: 3 });
}

const FORMATS: OutputFormat[] = ['csv', 'jsonl', 'json'];
const INPUT_COLUMNS = ['name', 'number', 'state', 'city'];

describe('the report of an enrich output', () => {
  for (const format of FORMATS) {
    for (const csvInput of [false, true]) {
      it(`${format}${csvInput ? ' (CSV input whose columns clash)' : ''}: every section's figures`, async () => {
        const records = csvInput ? F.withInputRow(F.RECORDS) : F.RECORDS;
        const r = await reportOf(await F.written(records, format, F.ALL_KINDS, csvInput ? INPUT_COLUMNS : null));
        expect(r.source).toEqual({ format, lookups: ['lrn', 'cnam', 'trust'] });
        expect(r.input).toEqual(F.INPUT);
        // JSON records always say whether each answer was cached; a CSV only with --cache-columns.
        expect(r.lookups).toEqual(F.lookupFigures(format !== 'csv'));
        expect(r.cost).toBeUndefined();
        expect(r.act_on).toMatchObject({ ...F.ACT_ON, limit: 20, more: 0, columns: [] });
        expect(r.act_on?.rows).toEqual(F.ACT_ON.rows.map((row) => ({ ...row, inputs: [] })));
        expectLrn(r);
        expectCnam(r);
        expectTrust(r);
      });
    }
  }

  it('the cost of the billed lookups at the given prices', async () => {
    const r = await reportOf(await F.written(F.RECORDS, 'csv', F.ALL_KINDS), { lrn: 0.0005, cnam: 0.006 });
    expect(r.lookups.lrn?.cost).toBe(0.0035);
    expect(r.lookups.cnam?.cost).toBe(0.042);
    expect(r.lookups.trust?.cost).toBeUndefined();
    expect(r.cost).toEqual({
      currency: 'USD',
      lines: [
        { lookup: 'lrn', billed: 7, price: 0.0005, amount: 0.0035 },
        { lookup: 'cnam', billed: 7, price: 0.006, amount: 0.042 },
        { lookup: 'trust', billed: 7, price: null, amount: null },
      ],
      total: 0.0455,
    });
  });
});

describe('the report of a single lookup output', () => {
  for (const format of FORMATS) {
    for (const kind of F.ALL_KINDS) {
      for (const csvInput of [false, true]) {
        it(`${kind} ${format}${csvInput ? ' (CSV input)' : ''}: its own sections and no other`, async () => {
          const single = F.singleRecords(kind);
          const records: OutputRecord[] = csvInput ? F.withInputRow(single) : single;
          const r = await reportOf(await F.written(records, format, [kind], csvInput ? INPUT_COLUMNS : null));
          expect(r.source.lookups).toEqual([kind]);
          expect(r.input).toEqual(F.INPUT);
          expect(r.lookups).toEqual({ [kind]: F.lookupFigures(format !== 'csv')[kind] });
          if (kind === 'lrn') expectLrn(r);
          else expect(r.line_type ?? r.porting ?? r.carriers ?? r.states ?? r.messaging).toBeUndefined();
          if (kind === 'cnam') expectCnam(r);
          else expect(r.cnam).toBeUndefined();
          if (kind === 'trust') expectTrust(r);
          else expect(r.trust).toBeUndefined();
        });
      }
    }
  }
});

describe('outputs the reader must take as they come', () => {
  it('a CSV written over several resumed runs, and two outputs put one after the other (the header again)', async () => {
    const csv = await F.written(F.RECORDS, 'csv', F.ALL_KINDS);
    const [header, ...lines] = csv.trimEnd().split('\n');
    const resumed = `${header}\n${lines.slice(0, 5).join('\n')}\n${lines.slice(5).join('\n')}\n`;
    expect((await reportOf(resumed)).input).toEqual(F.INPUT);
    const twice = await reportOf(csv + csv);
    expect(twice.input.rows).toBe(24);
    expect(twice.input.duplicates).toBe(1 + 9 + 1);
  });

  it('an interrupted JSON-lines file: its torn last line is counted apart, not as a row', async () => {
    const jsonl = await F.written(F.RECORDS, 'jsonl', F.ALL_KINDS);
    const r = await reportOf(`${jsonl}{"input":"201555`);
    expect(r.input).toEqual(F.INPUT);
    const acc = new ReportAccumulator({ asOf: F.AS_OF, source: 'file' });
    expect((await readOutput(Readable.from([`${jsonl}{"input":"2`]), 'x', (row) => acc.add(row))).unreadable).toBe(1);
  });

  it('a JSON array as jq pretty-prints it, and CRLF line ends with a BOM', async () => {
    const pretty = JSON.stringify(F.RECORDS, null, 2);
    expect((await reportOf(pretty)).input).toEqual(F.INPUT);
    const csv = await F.written(F.RECORDS, 'csv', F.ALL_KINDS);
    const r = await reportOf(`\uFEFF${csv.replace(/\n/g, '\r\n')}`);
    expect(r.input).toEqual(F.INPUT);
    expect(r.carriers).toEqual(F.CARRIERS);
  });

  it('answers from the cache: counted, and not billed (JSON `cached`, CSV `cached` columns)', async () => {
    const at = '2026-01-30T00:00:00Z';
    const records = F.RECORDS.map((r, i) => ({ ...r, cached: { lrn: i < 3, cnam: i < 3, trust: i < 3 }, fetched_at: { lrn: at, cnam: at, trust: at } }));
    const r = await reportOf(await F.written(records, 'jsonl', F.ALL_KINDS));
    // rows 1-3 answered from the cache for every kind
    expect(r.lookups.lrn).toMatchObject({ answered: 8, cached: 3, billed: 4 });
    expect(r.lookups.trust).toMatchObject({ answered: 8, cached: 3, billed: 4 });
    const csv = await F.written(F.singleRecords('lrn'), 'csv', ['lrn']);
    const [header, ...lines] = csv.trimEnd().split('\n');
    const withCache = [`${header},cached,fetched_at`, ...lines.map((l, i) => `${l},${i < 2 ? 'true' : 'false'},2026-01-30T00:00:00Z`)].join('\n');
    expect((await reportOf(withCache)).lookups.lrn).toMatchObject({ answered: 8, cached: 2, billed: 5 });
  });

  it('what is not a numintel output is refused with a reason', async () => {
    await expect(reportOf('name,phone\nA,2015550123\n')).rejects.toThrow(/not a numintel output/);
    await expect(reportOf('   \n')).rejects.toThrow(/empty/);
  });
});
