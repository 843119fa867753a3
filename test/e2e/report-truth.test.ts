// The report's figures against an independent count over 1,500 rows enriched against the sandbox:
// caller names (real, placeholder, none), shares that add up, the cost table, and the numbers to
// act on (which, in what order, how many, with the columns that say who a row is).
import { writeFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Report } from '../../src/report/report.js';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { parseCsv, runCliInProcess } from '../support/cli.js';
import { sandboxEnv } from '../support/sandbox.js';
import { numbersIn } from '../support/numbers.js';
import { tempDir } from '../support/tmp.js';

const PRICES = { lrn: 0.0005, cnam: 0.006, trust: 0.002 };
const LIMIT = 25;
const DAY = 86_400_000;
// The sandbox's names that say no name is known (src/sandbox/names.ts), and its place labels: a city and a state's code.
const SANDBOX_PLACEHOLDERS = new Set(['WIRELESS CALLER', 'CELL PHONE', 'UNAVAILABLE', 'UNKNOWN NAME']);
const STATES = new Set(
  `AL AK AZ AR CA CO CT DE DC FL GA HI ID IL IN IA KS KY LA ME MD MA MI MN MS MO MT NE NV NH NJ NM NY NC ND OH OK OR PA PR RI SC SD TN TX UT VT VA WA WV WI WY`.split(' '),
);
const isPlaceholder = (name: string) => SANDBOX_PLACEHOLDERS.has(name) || (/^[A-Z .]+ [A-Z]{2}$/.test(name) && STATES.has(name.slice(-2)));

let rows: Record<string, string>[];
let report: Report;
let asOf: number;
let sb: Sandbox | undefined;
afterAll(() => sb?.close());

beforeAll(async () => {
  // The sandbox's data without its rate limits: 4,500 lookups at its 50 cnam a second would take 30 s.
  sb = await startSandbox({ port: 0, limits: { lrn: 0, cnam: 0, trust: 0 } });
  const dir = tempDir('numintel-report-truth-');
  const input = join(dir, 'leads.csv');
  const numbers = ['201', '212', '305', '415', '702', '312'].flatMap((npa) => numbersIn(npa, 250));
  // A few repeats: each number is one row of the list, at its first row.
  const list = [...numbers, numbers[7] as string, numbers[603] as string];
  writeFileSync(input, `name,company,phone\n${list.map((n, i) => `Person ${i + 1},Company ${i % 97},${n}`).join('\n')}\n`);
  const out = join(dir, 'leads.enriched.csv');
  const run = await runCliInProcess(['enrich', input, '--enhanced', '--messaging', '--spam', '--rate', '0', '-o', out, '-q'], { env: sandboxEnv(sb) });
  expect(run.stderr).toBe('');
  const [header, ...cells] = parseCsv(readFileSync(out, 'utf8'));
  rows = cells.map((c) => Object.fromEntries((header as string[]).map((h, i) => [h, c[i] ?? ''])));
  // The day after the latest activation of a ported number: the last 30 days hold some.
  const ported = rows.filter((r) => r.lrn_lrn !== '' && r.lrn_lrn !== r.number).map((r) => Date.parse(r.lrn_lrn_activated_at ?? ''));
  asOf = Math.max(...ported.filter((t) => !Number.isNaN(t))) + DAY;
  const rep = await runCliInProcess(['report', out, '-f', 'json', '--as-of', new Date(asOf).toISOString().slice(0, 10), '--price', 'lrn=0.0005,cnam=0.006,trust=0.002', '--act-on-limit', String(LIMIT)]);
  expect(rep.stderr).toBe('');
  expect(rep.code).toBe(0);
  report = JSON.parse(rep.stdout) as Report;
  asOf = Date.parse(`${report.as_of}T00:00:00Z`);
}, 120_000);

describe('the report of 1,500 sandbox rows, against a count of its own', () => {
  it('caller names: real, placeholder and none, as many as the rows hold, shares summing to 1', () => {
    const names = rows.filter((r) => r.cnam_error === '').map((r) => r.cnam_cnam ?? '');
    const placeholders = names.filter(isPlaceholder).length;
    const none = names.filter((n) => n.trim() === '').length;
    const c = report.cnam!;
    expect(c.base).toBe(names.length);
    expect(c.placeholder).toBe(placeholders);
    expect(c.none).toBe(none);
    expect(c.real).toBe(names.length - placeholders - none);
    expect(placeholders / names.length).toBeGreaterThan(0.05);
    expect((c.real_share ?? 0) + (c.placeholder_share ?? 0) + (c.none_share ?? 0)).toBeCloseTo(1, 3);
    expect(Object.values(c.placeholder_names ?? {}).reduce((a, b) => a + b, 0)).toBe(placeholders);
    console.log(`placeholders: ${placeholders} of ${names.length} caller names (${((placeholders / names.length) * 100).toFixed(1)}%)`);
  });

  it('every chart\u2019s shares are of its base and, where the bars are parts of one whole, sum to 1', () => {
    const lt = report.line_type!;
    expect(lt.mobile + lt.landline + lt.voip + lt.toll_free + lt.other + lt.not_given).toBe(lt.base);
    const activated = Object.values(report.porting!.activated).reduce((a, b) => a + b, 0);
    expect(activated).toBe(report.porting!.base);
    const levels = Object.values(report.trust!.levels).reduce((a, b) => a + b, 0);
    expect(levels).toBe(report.trust!.base);
  });

  it('the cost table: billed lookups (distinct numbers answered) at their prices, and the total', () => {
    const cost = report.cost!;
    expect(cost.currency).toBe('USD');
    let total = 0;
    for (const kind of ['lrn', 'cnam', 'trust'] as const) {
      const answered = new Set(rows.filter((r) => r[`${kind}_error`] === '' && r.number !== '').map((r) => r.number));
      const line = cost.lines.find((l) => l.lookup === kind)!;
      expect(line.billed).toBe(answered.size);
      expect(line.price).toBe(PRICES[kind]);
      expect(line.amount).toBeCloseTo(answered.size * PRICES[kind], 6);
      total += answered.size * PRICES[kind];
    }
    expect(cost.total).toBeCloseTo(total, 6);
  });

  it('the numbers to act on: every one counted, the most severe first, capped, with name and company', () => {
    const seen = new Set<string>();
    const weight = { scam: 16, robocall: 8, spam: 4, low_trust: 2, ported_30d: 1 };
    const flagged: { row: number; number: string; reasons: string[]; score: number; inputs: string[] }[] = [];
    rows.forEach((r, i) => {
      if (r.number === '' || seen.has(r.number as string)) return;
      seen.add(r.number as string);
      const reasons = new Set<string>();
      const type = r.cnam_spam_type ?? '';
      if (r.trust_is_scam === 'true' || type === 'SCAM') reasons.add('scam');
      if (r.trust_is_robocall === 'true' || type === 'ROBOCALL') reasons.add('robocall');
      if (r.trust_is_spam === 'true' || type === 'SPAM') reasons.add('spam');
      if (r.trust_trust_level === 'low') reasons.add('low_trust');
      const activated = Date.parse(r.lrn_lrn_activated_at ?? '');
      if (r.lrn_lrn !== '' && r.lrn_lrn !== r.number && asOf - activated <= 30 * DAY) reasons.add('ported_30d');
      if (reasons.size === 0) return;
      const ordered = (['scam', 'robocall', 'spam', 'low_trust', 'ported_30d'] as const).filter((x) => reasons.has(x));
      flagged.push({ row: i + 1, number: r.number as string, reasons: ordered, score: Number(r.trust_reputation_score), inputs: [r.name as string, r.company as string] });
    });
    const w = (f: (typeof flagged)[number]) => f.reasons.reduce((n, x) => n + weight[x as keyof typeof weight], 0);
    flagged.sort((a, b) => w(b) - w(a) || a.score - b.score || a.row - b.row);
    const a = report.act_on!;
    expect(a.total).toBe(flagged.length);
    expect(a.by_reason.ported_30d).toBeGreaterThan(0);
    expect(a.limit).toBe(LIMIT);
    expect(a.columns).toEqual(['name', 'company']);
    expect(a.rows.map((r) => ({ row: r.row, number: r.number, reasons: r.reasons, score: r.score, inputs: r.inputs }))).toEqual(flagged.slice(0, LIMIT));
    expect(a.more).toBe(flagged.length - LIMIT);
    for (const reason of Object.keys(weight) as (keyof typeof weight)[]) expect(a.by_reason[reason]).toBe(flagged.filter((f) => f.reasons.includes(reason)).length);
  });
});
