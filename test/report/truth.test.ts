// The parts of the report that keep it honest: caller-name placeholders, bars as long as their
// share of the whole, money in one format, and the bounded list of numbers to act on.
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { ActOnList, maskOf, REASON_BIT, type ActCandidate } from '../../src/report/act-on.js';
import { ReportAccumulator } from '../../src/report/accumulator.js';
import { CALLER_NAME_PLACEHOLDERS, callerNameClass } from '../../src/report/caller-names.js';
import { recordFacts } from '../../src/report/facts.js';
import { readOutput } from '../../src/report/reader.js';
import { renderHtml } from '../../src/report/render-html.js';
import type { ActReason } from '../../src/report/report.js';
import { moneyFormat } from '../../src/report/view.js';
import * as F from './fixture.js';

describe('caller names', () => {
  it('placeholders in any case, spacing or punctuation; place labels; none; real names', () => {
    for (const name of ['UNAVAILABLE', 'wireless caller', ' Cell-Phone ', 'Unknown  Caller', 'PRIVATE', 'anonymous', 'Toll Free', 'NOT FOUND', 'name unavailable', 'N/A', 'JERSEY CITY NJ', 'Chicago, IL']) {
      expect(callerNameClass(name), name).toBe('placeholder');
    }
    for (const name of [undefined, '', '   ', '--']) expect(callerNameClass(name), String(name)).toBe('none');
    for (const name of ['SMITH JOHN', 'ACME CORP', 'AT&T', 'BLUE SKY DENTAL', 'CELL PHONE REPAIR', 'KIM AUTO BODY']) expect(callerNameClass(name), name).toBe('real');
    // The list holds the sandbox's generic names (src/sandbox/names.ts).
    for (const name of ['WIRELESS CALLER', 'CELL PHONE', 'UNAVAILABLE', 'UNKNOWN NAME']) expect(CALLER_NAME_PLACEHOLDERS.has(name)).toBe(true);
  });
});

describe('bars', () => {
  it('in the HTML, as wide as the share of the whole: five reasons at 20% each draw a fifth each', () => {
    const acc = new ReportAccumulator({ asOf: F.AS_OF, source: 'jsonl' });
    for (const r of F.RECORDS) {
      const facts = recordFacts(r);
      if (facts) acc.add(facts);
    }
    const html = renderHtml(acc.finish());
    const table = /<table class="chart" data-chart="line_type"[\s\S]*?<\/table>/.exec(html)?.[0] ?? '';
    const widths = [...table.matchAll(/<rect x="0" y="1" width="([\d.]+)"/g)].map((m) => Number(m[1]));
    expect(widths).toEqual([37.5, 25, 12.5, 12.5, 12.5]);
  });
});

describe('money', () => {
  it('every price and amount with the same decimals: the currency\u2019s own two more, or what the finest price needs', () => {
    const usd = moneyFormat('USD', [0.0005, 0.006]);
    expect([usd(0.0005), usd(0.006), usd(0.1445), usd(1234.5)]).toEqual(['$0.0005', '$0.0060', '$0.1445', '$1,234.5000']);
    const fine = moneyFormat('USD', [0.00045]);
    expect(fine(0.00045)).toBe('$0.00045');
    expect(fine(1)).toBe('$1.00000');
    const yen = moneyFormat('JPY', [1.5]);
    expect(yen(1.5)).toBe('\u00a51.50');
    expect(moneyFormat('EUR', [0.01])(0.01)).toBe('\u20ac0.0100');
  });
});

describe('the numbers to act on', () => {
  const REASONS: ActReason[] = ['scam', 'robocall', 'spam', 'low_trust', 'ported_30d'];
  const WEIGHT = { scam: 16, robocall: 8, spam: 4, low_trust: 2, ported_30d: 1 };

  it('keeps the most severe (then lowest score, then first row) of many, only `limit` at a time', () => {
    let seed = 7;
    const rand = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    const all: ActCandidate[] = Array.from({ length: 5000 }, (_, i) => ({
      row: i + 1,
      number: String(12015550000 + i),
      mask: maskOf(REASONS.filter(() => rand() < 0.25)),
      score: Math.floor(rand() * 100),
    }));
    const list = new ActOnList(20);
    for (const c of all) list.add(c);
    const a = list.finish(new Set(REASONS));
    const has = (c: ActCandidate, r: ActReason) => (c.mask & REASON_BIT[r]) !== 0;
    const w = (c: ActCandidate) => REASONS.filter((r) => has(c, r)).reduce((n, r) => n + WEIGHT[r], 0);
    const want = all.filter((c) => c.mask !== 0).sort((x, y) => w(y) - w(x) || (x.score ?? 0) - (y.score ?? 0) || x.row - y.row);
    expect(a.total).toBe(want.length);
    expect(a.rows.map((r) => r.row)).toEqual(want.slice(0, 20).map((c) => c.row));
    expect(a.more).toBe(want.length - 20);
    for (const r of REASONS) expect(a.by_reason[r]).toBe(want.filter((c) => has(c, r)).length);
    // A limit of 0 lists none and still counts them all.
    const none = new ActOnList(0);
    for (const c of all) none.add(c);
    expect(none.finish(new Set(REASONS))).toMatchObject({ total: want.length, rows: [], more: want.length });
  });

  it('with the input columns that say who a row is: not the phone column, not a list\u2019s own input', async () => {
    const csv = await F.written(F.withInputRow(F.RECORDS), 'csv', F.ALL_KINDS, ['name', 'number', 'state', 'city']);
    const acc = new ReportAccumulator({ asOf: F.AS_OF, source: 'file', actOnLimit: 2 });
    await readOutput(Readable.from([csv]), 'fixture', (row) => acc.add(row), { inputs: true });
    const a = acc.finish().act_on!;
    expect(a.columns).toEqual(['name', 'state']);
    expect(a.rows.map((r) => [r.row, r.number, ...r.inputs])).toEqual([
      [5, '13105550005', 'Person 5', 'ZZ'],
      [3, '12125550003', 'Person 3', 'ZZ'],
    ]);
    expect(a.more).toBe(1);
    // A list input (no CSV columns): the number alone says which.
    const list = new ReportAccumulator({ asOf: F.AS_OF, source: 'file' });
    await readOutput(Readable.from([await F.written(F.RECORDS, 'jsonl', F.ALL_KINDS)]), 'fixture', (row) => list.add(row), { inputs: true });
    expect(list.finish().act_on?.columns).toEqual([]);
  });

  it('ported in the 30 days before the report\u2019s day, not after it moves on', () => {
    const at = (asOf: number) => {
      const acc = new ReportAccumulator({ asOf, source: 'jsonl' });
      for (const r of F.singleRecords('lrn')) {
        const facts = recordFacts(r);
        if (facts) acc.add(facts);
      }
      return acc.finish().act_on!;
    };
    // Row 2: ported, activated 2026-01-10T05:00Z.
    expect(at(F.AS_OF).rows.map((r) => [r.row, r.reasons, r.ported_days_ago])).toEqual([[2, ['ported_30d'], 20]]);
    expect(at(Date.parse('2026-02-09T05:00:00Z')).rows.map((r) => r.ported_days_ago)).toEqual([30]);
    expect(at(Date.parse('2026-02-09T05:00:01Z')).total).toBe(0);
    expect(Object.keys(at(F.AS_OF).by_reason)).toEqual(['ported_30d']);
  });
});
