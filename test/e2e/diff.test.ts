// `numintel diff`, the program run in this process (it reads and writes files, nothing a process
// of its own would change): hand-made outputs whose changes are known (ported, flagged,
// renamed, placeholder names, added, removed, failed), any mix of formats and stdin, -o csv and
// jsonl, --only, usage errors; and two enrich runs against sandboxes of different seeds, whose
// changes are counted again here from the two files.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseCsv } from 'csv-parse/sync';
import { beforeAll, describe, expect, it } from 'vitest';
import { startSandbox } from '../../src/sandbox/index.js';
import { runCliInProcess } from '../support/cli.js';
import { sandboxEnv } from '../support/sandbox.js';
import { tempDir } from '../support/tmp.js';

interface Lrn { lrn: string; at: string; carrier: string; type: string; msg: string }
interface Trust { spam: boolean; robo: boolean; scam: boolean; score: number; level: string }

function record(number: string, lrn: Lrn | null, cnam: string | null, trust: Trust | null): Record<string, unknown> {
  return {
    input: number,
    number,
    ok: lrn !== null && cnam !== null && trust !== null,
    results: {
      lrn: lrn && { lrn: lrn.lrn, lrn_activated_at: lrn.at, enhanced_lrn_data: { carrier: lrn.carrier, carrier_type: lrn.type, state: 'NJ', timezone: '-0500' }, messaging: { provider: lrn.msg, enabled: true } },
      cnam: cnam === null ? null : { number, cnam, spam_type: 'NONE' },
      trust: trust && { phone_number: number, is_spam: trust.spam, is_robocall: trust.robo, is_scam: trust.scam, spam_type: null, reputation_score: trust.score, trust_level: trust.level },
    },
    errors: { lrn: lrn ? null : { code: 'server_error', message: 'the service failed' }, cnam: cnam === null ? { code: 'server_error', message: 'the service failed' } : null, trust: trust ? null : { code: 'server_error', message: 'the service failed' } },
  };
}

const L = (over: Partial<Lrn> = {}): Lrn => ({ lrn: '12015550000', at: '2020-01-01T00:00:00-05:00', carrier: 'Verizon Wireless', type: 'WIRELESS', msg: 'Verizon Wireless', ...over });
const T = (over: Partial<Trust> = {}): Trust => ({ spam: false, robo: false, scam: false, score: 80, level: 'high', ...over });

// number → [before, after]; undefined = not in that file.
const CASES: [string, Record<string, unknown> | undefined, Record<string, unknown> | undefined][] = [
  ['12015550101', record('12015550101', L(), 'SMITH JOHN', T()), record('12015550101', L(), 'SMITH JOHN', T({ score: 75 }))],
  ['12015550102', record('12015550102', L(), 'SMITH JOHN', T()), record('12015550102', L({ lrn: '12015559999', carrier: 'T-Mobile USA' }), 'SMITH JOHN', T())],
  ['12015550103', record('12015550103', L(), 'SMITH JOHN', T()), record('12015550103', L({ at: '2025-06-01T00:00:00-05:00' }), 'SMITH JOHN', T())],
  ['12015550104', record('12015550104', L(), 'SMITH JOHN', T()), record('12015550104', L(), 'SMITH JOHN', T({ robo: true, score: 5, level: 'low' }))],
  ['12015550105', record('12015550105', L(), 'SMITH JOHN', T({ spam: true })), record('12015550105', L(), 'SMITH JOHN', T())],
  ['12015550106', record('12015550106', L(), 'SMITH JOHN', T()), record('12015550106', L(), 'Smith  John', T())],
  ['12015550107', record('12015550107', L(), 'SMITH JOHN', T()), record('12015550107', L(), 'DOE JANE', T())],
  ['12015550108', record('12015550108', L(), 'WIRELESS CALLER', T()), record('12015550108', L(), 'SMITH JOHN', T())],
  ['12015550109', record('12015550109', L(), 'CELL PHONE', T()), record('12015550109', L(), 'UNAVAILABLE', T())],
  ['12015550110', record('12015550110', L(), 'SMITH JOHN', T()), record('12015550110', L(), 'JERSEY CITY NJ', T())],
  ['12015550111', record('12015550111', L({ type: 'WIRELESS' }), 'SMITH JOHN', T()), record('12015550111', L({ type: 'mobile' }), 'SMITH JOHN', T())],
  ['12015550112', record('12015550112', L({ type: 'LANDLINE' }), 'SMITH JOHN', T()), record('12015550112', L({ type: 'VOIP', msg: 'Bandwidth' }), 'SMITH JOHN', T())],
  ['12015550113', record('12015550113', L(), 'SMITH JOHN', T()), undefined],
  ['12015550114', undefined, record('12015550114', L(), 'SMITH JOHN', T())],
  ['12015550115', record('12015550115', L(), 'SMITH JOHN', T()), record('12015550115', L(), null, T())],
  ['12015550116', record('12015550116', L(), 'SMITH JOHN', T()), record('12015550116', L({ at: '2019-01-01T00:00:00-05:00' }), 'SMITH JOHN', T({ score: 70, level: 'medium' }))],
];
const EXPECTED: Record<string, string> = {
  '12015550102': 'ported;carrier',
  '12015550103': 'ported',
  '12015550104': 'flagged;trust_level;score',
  '12015550105': 'unflagged',
  '12015550107': 'caller_name',
  '12015550112': 'line_type;messaging',
  '12015550114': 'added',
  '12015550115': 'failed',
  '12015550116': 'trust_level;score',
  '12015550113': 'removed',
};

let dir: string;
let before: string;
let after: string;

beforeAll(() => {
  dir = tempDir('numintel-diff-');
  before = join(dir, 'before.jsonl');
  after = join(dir, 'after.json');
  writeFileSync(before, CASES.flatMap(([, b]) => (b ? [`${JSON.stringify(b)}\n`] : [])).join(''));
  writeFileSync(after, JSON.stringify(CASES.flatMap(([, , a]) => (a ? [a] : []))));
});

interface Figures { matched: number; unchanged: number; changed: number; kinds: Record<string, number>; numbers: Record<string, string[]>; flags: Record<string, { flagged: number; unflagged: number }> }

// Each test writes files of its own names and reads the two above: they run side by side.
describe.concurrent('numintel diff', () => {
  it('finds every known change and invents none: jsonl before, json after, rows in the after file order then the removed', async () => {
    const r = await runCliInProcess(['diff', before, after, '-f', 'jsonl']);
    expect(r.code).toBe(0);
    const rows = r.stdout.trim().split('\n').map((l) => JSON.parse(l) as Record<string, string>);
    expect(Object.fromEntries(rows.map((row) => [row.number, row.changes]))).toEqual(EXPECTED);
    expect(rows.map((row) => row.number)).toEqual(Object.keys(EXPECTED).sort().filter((n) => n !== '12015550113').concat('12015550113'));
    const ported = rows.find((row) => row.number === '12015550102')!;
    expect(ported).toEqual({ number: '12015550102', changes: 'ported;carrier', input: '12015550102', lrn_before: '12015550000', lrn_after: '12015559999', carrier_before: 'Verizon Wireless', carrier_after: 'T-Mobile USA' });
    expect(rows.find((row) => row.number === '12015550104')).toMatchObject({ is_robocall_before: 'false', is_robocall_after: 'true', reputation_score_before: '80', reputation_score_after: '5' });
    expect(rows.find((row) => row.number === '12015550115')).toMatchObject({ error_before: '', error_after: 'cnam: server_error' });
    // The summary goes to stderr when the rows take stdout.
    expect(r.stderr).toMatch(/matched 14, unchanged 6, changed 10/);
  });

  it('-f json: every figure; --score-delta moves the threshold', async () => {
    const r = await runCliInProcess(['diff', before, after, '-f', 'json', '--score-delta', '5']);
    expect(r.code).toBe(0);
    const f = JSON.parse(r.stdout) as Figures;
    expect(f.kinds).toEqual({ ported: 2, carrier: 1, line_type: 1, messaging: 1, caller_name: 1, flagged: 1, unflagged: 1, trust_level: 2, score: 3, added: 1, removed: 1, failed: 1 });
    expect(f.numbers.score).toEqual(['12015550101', '12015550104', '12015550116']);
    expect([f.matched, f.unchanged, f.changed]).toEqual([14, 5, 11]);
    // Per flag: robocall turned on for 104, spam off for 105.
    expect(f.flags).toEqual({ is_spam: { flagged: 0, unflagged: 1 }, is_robocall: { flagged: 1, unflagged: 0 }, is_scam: { flagged: 0, unflagged: 0 } });
    const text = await runCliInProcess(['diff', before, after]);
    expect(text.stdout).toMatch(/ unflagged +1 +12015550105\n +is_spam \+0 -1, is_robocall \+1 -0\n/);
  });

  it('a CSV from stdin against JSON lines; -o changes.csv with --only: the before and after columns side by side', async () => {
    // The after file as enrich writes CSV (its columns, a few rows written out here).
    const header = 'input,number,lrn_lrn,lrn_lrn_activated_at,lrn_carrier,lrn_carrier_type,lrn_messaging_provider,lrn_messaging_enabled,lrn_error,cnam_number,cnam_cnam,cnam_spam_type,cnam_error,trust_phone_number,trust_is_spam,trust_is_robocall,trust_is_scam,trust_spam_type,trust_reputation_score,trust_trust_level,trust_error';
    const row = (n: string, lrn: string, cnam: string, spam: string) => `${n},${n},${lrn},2020-01-01T00:00:00-05:00,Verizon Wireless,WIRELESS,Verizon Wireless,true,,${n},${cnam},NONE,,${n},${spam},false,false,,80,high,`;
    const csv = `${header}\n${row('12015550101', '12015550000', 'SMITH JOHN', 'false')}\n${row('12015550102', '12015557777', 'SMITH JOHN', 'false')}\n${row('12015550105', '12015550000', 'SMITH JOHN', 'false')}\n`;
    const out = join(dir, 'changes.csv');
    const r = await runCliInProcess(['diff', before, '-', '-o', out, '--only', 'ported'], { stdin: csv });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/ported +1 +12015550102/);
    const rows = parseCsv(readFileSync(out, 'utf8'), { columns: true }) as Record<string, string>[];
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ number: '12015550102', changes: 'ported', lrn_before: '12015550000', lrn_after: '12015557777', cnam_before: '', cnam_after: '', input: '12015550102' });
    expect(Object.keys(rows[0]!).at(-1)).toBe('input');
    // Without --only the other kinds come too (the removed numbers of the before file among them).
    const all = await runCliInProcess(['diff', before, '-', '-o', join(dir, 'all.jsonl')], { stdin: csv });
    const kinds = readFileSync(join(dir, 'all.jsonl'), 'utf8').trim().split('\n').map((l) => (JSON.parse(l) as { changes: string }).changes);
    expect(all.code).toBe(0);
    expect(kinds.filter((k) => k === 'removed')).toHaveLength(12);
    expect(kinds).toContain('unflagged');
  });

  it('failed: a lookup of any kind that failed in one run and answered in the other, either way round; not one that failed in both', async () => {
    const n = (i: number) => String(12015550300 + i);
    const pairs: [Record<string, unknown>, Record<string, unknown>, string | undefined][] = [
      [record(n(1), null, 'SMITH JOHN', T()), record(n(1), L(), 'SMITH JOHN', T()), 'failed'],
      [record(n(2), L(), 'SMITH JOHN', T()), record(n(2), null, 'SMITH JOHN', T()), 'failed'],
      [record(n(3), L(), null, T()), record(n(3), L(), 'SMITH JOHN', T()), 'failed'],
      [record(n(4), L(), 'SMITH JOHN', T()), record(n(4), L(), null, T()), 'failed'],
      [record(n(5), L(), 'SMITH JOHN', null), record(n(5), L(), 'SMITH JOHN', T({ spam: true })), 'failed'],
      [record(n(6), L(), 'SMITH JOHN', T({ spam: true })), record(n(6), L(), 'SMITH JOHN', null), 'failed'],
      // lrn failed before, cnam after: each failed in one run only.
      [record(n(7), null, 'SMITH JOHN', T()), record(n(7), L(), null, T()), 'failed'],
      // The same lookup failed in both runs: no change.
      [record(n(8), null, 'SMITH JOHN', T()), record(n(8), null, 'SMITH JOHN', T()), undefined],
    ];
    const b = join(dir, 'failed-before.jsonl');
    const a = join(dir, 'failed-after.csv');
    writeFileSync(b, pairs.map(([x]) => `${JSON.stringify(x)}\n`).join(''));
    // The after run as enrich's CSV, from its JSON records (a failed lookup: empty fields, its error).
    const header = 'input,number,lrn_lrn,lrn_lrn_activated_at,lrn_carrier,lrn_carrier_type,lrn_messaging_provider,lrn_error,cnam_cnam,cnam_error,trust_is_spam,trust_is_robocall,trust_is_scam,trust_reputation_score,trust_trust_level,trust_error';
    const csvOf = (r: Record<string, unknown>) => {
      const res = r.results as { lrn: Record<string, unknown> | null; cnam: Record<string, unknown> | null; trust: Record<string, unknown> | null };
      const lrn = res.lrn ? [res.lrn.lrn, res.lrn.lrn_activated_at, 'Verizon Wireless', 'WIRELESS', 'Verizon Wireless', ''] : ['', '', '', '', '', 'server_error: the service failed'];
      const cnam = res.cnam ? [res.cnam.cnam, ''] : ['', 'server_error: the service failed'];
      const t = res.trust;
      const trust = t ? [t.is_spam, t.is_robocall, t.is_scam, t.reputation_score, t.trust_level, ''] : ['', '', '', '', '', 'server_error: the service failed'];
      return [r.input, r.number, ...lrn, ...cnam, ...trust].join(',');
    };
    writeFileSync(a, `${header}\n${pairs.map(([, y]) => csvOf(y)).join('\n')}\n`);
    const r = await runCliInProcess(['diff', b, a, '-f', 'jsonl']);
    expect(r.code, r.stderr).toBe(0);
    const rows = r.stdout.trim().split('\n').map((l) => JSON.parse(l) as Record<string, string>);
    const expected = Object.fromEntries(pairs.flatMap(([x, , kinds]) => (kinds ? [[x.number as string, kinds]] : [])));
    expect(Object.fromEntries(rows.map((row) => [row.number, row.changes]))).toEqual(expected);
    expect(rows.find((row) => row.number === n(2))).toMatchObject({ error_before: '', error_after: 'lrn: server_error' });
    expect(rows.find((row) => row.number === n(7))).toMatchObject({ error_before: 'lrn: server_error', error_after: 'cnam: server_error' });
    expect(r.stderr).toMatch(/matched 8, unchanged 1, changed 7/);
  });

  it('--only narrows the rows to each kind in turn, and the summary to its kinds', async () => {
    const all = JSON.parse((await runCliInProcess(['diff', before, after, '-f', 'json'])).stdout) as Figures;
    for (const kind of Object.keys(all.kinds)) {
      const r = await runCliInProcess(['diff', before, after, '-f', 'jsonl', '--only', kind]);
      expect(r.code, kind).toBe(0);
      const rows = r.stdout.trim() === '' ? [] : r.stdout.trim().split('\n').map((l) => (JSON.parse(l) as { changes: string }).changes.split(';'));
      expect(rows.length, kind).toBe(all.kinds[kind]);
      expect(rows.length, kind).toBeGreaterThan(0);
      for (const kinds of rows) expect(kinds).toContain(kind);
      const listed = r.stderr.split('\n').slice(3).filter((l) => /^ {2}[a-z_]+ +\d/.test(l)).map((l) => l.trim().split(/ +/)[0]);
      expect(listed, kind).toEqual([kind]);
    }
    const two = await runCliInProcess(['diff', before, after, '-f', 'jsonl', '--only', 'ported,removed']);
    expect(two.stdout.trim().split('\n')).toHaveLength(all.kinds.ported! + all.kinds.removed!);
  });

  it('the changes file keeps the after file\'s input columns whole: its own columns named apart from them', async () => {
    // An enrich run of a list with columns `number` and `changes`: enrich named its own column numintel_number.
    const header = 'number,changes,numintel_number,lrn_lrn,lrn_carrier,lrn_error';
    const b = join(dir, 'named-before.csv');
    const a = join(dir, 'named-after.csv');
    writeFileSync(b, `${header}\n(201) 555-0401,row one,12015550401,12015550000,Verizon Wireless,\n(201) 555-0402,row two,12015550402,12015550000,Verizon Wireless,\n`);
    writeFileSync(a, `${header}\n(201) 555-0401,row one,12015550401,12015559999,T-Mobile USA,\n(201) 555-0402,row two,12015550402,12015550000,Verizon Wireless,\n`);
    const csvOut = join(dir, 'named.csv');
    expect((await runCliInProcess(['diff', b, a, '-o', csvOut])).code).toBe(0);
    const text = readFileSync(csvOut, 'utf8');
    expect(text.split('\n')[0]).toBe('numintel_number,numintel_changes,lrn_before,lrn_after,carrier_before,carrier_after,error_before,error_after,number,changes');
    const [row] = parseCsv(text, { columns: true }) as Record<string, string>[];
    expect(row).toEqual({ numintel_number: '12015550401', numintel_changes: 'ported;carrier', lrn_before: '12015550000', lrn_after: '12015559999', carrier_before: 'Verizon Wireless', carrier_after: 'T-Mobile USA', error_before: '', error_after: '', number: '(201) 555-0401', changes: 'row one' });
    const r = await runCliInProcess(['diff', b, a, '-f', 'jsonl']);
    expect(JSON.parse(r.stdout)).toEqual({ numintel_number: '12015550401', numintel_changes: 'ported;carrier', lrn_before: '12015550000', lrn_after: '12015559999', carrier_before: 'Verizon Wireless', carrier_after: 'T-Mobile USA', number: '(201) 555-0401', changes: 'row one' });
  });

  it('usage errors exit 2: stdin twice, an unknown kind, an -o name of no known form, a missing file', async () => {
    for (const args of [['diff', '-', '-'], ['diff', before, after, '--only', 'moved'], ['diff', before, after, '-o', join(dir, 'x.txt')], ['diff', before], ['diff', join(dir, 'none.csv'), after]]) {
      const r = await runCliInProcess(args, { stdin: '' });
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr).toMatch(/^numintel: /);
    }
  });

  it('two enrich runs against sandboxes of different seeds: the changes counted here from the two files', async () => {
    const numbers = Array.from({ length: 60 }, (_, i) => String(12015550200 + i));
    writeFileSync(join(dir, 'list.csv'), `name,phone\n${numbers.map((n, i) => `"Person, ${i}",${n}`).join('\n')}\n`);
    // The two runs side by side, each against its own sandbox.
    const runs = await Promise.all(
      [1, 2].map(async (seed) => {
        const sb = await startSandbox({ port: 0, seed });
        try {
          const out = join(dir, `run${seed}.csv`);
          const r = await runCliInProcess(['enrich', '-i', join(dir, 'list.csv'), '--column', 'phone', '--lookups', 'lrn,cnam,trust', '--enhanced', '--messaging', '--spam', '--no-cache', '-q', '-o', out], { env: sandboxEnv(sb) });
          expect(r.code, r.stderr).toBe(0);
          return out;
        } finally {
          await sb.close();
        }
      }),
    );
    const r = await runCliInProcess(['diff', runs[0]!, runs[1]!, '-f', 'json']);
    expect(r.code, r.stderr).toBe(0);
    const f = JSON.parse(r.stdout) as Figures;
    const [b, a] = runs.map((p) => new Map((parseCsv(readFileSync(p, 'utf8'), { columns: true }) as Record<string, string>[]).map((row) => [row.number!, row])));
    let ported = 0;
    let flagged = 0;
    let unflagged = 0;
    let level = 0;
    for (const n of numbers) {
      const x = b!.get(n)!;
      const y = a!.get(n)!;
      if (x.lrn_lrn !== y.lrn_lrn || Date.parse(y.lrn_lrn_activated_at!) > Date.parse(x.lrn_lrn_activated_at!)) ported++;
      const flags = ['trust_is_spam', 'trust_is_robocall', 'trust_is_scam'];
      if (flags.some((k) => x[k] === 'false' && y[k] === 'true')) flagged++;
      if (flags.some((k) => x[k] === 'true' && y[k] === 'false')) unflagged++;
      if (x.trust_trust_level !== y.trust_trust_level) level++;
    }
    expect(f.matched).toBe(60);
    expect(f.kinds).toMatchObject({ ported, flagged, unflagged, trust_level: level, added: 0, removed: 0, failed: 0 });
    expect(ported).toBeGreaterThan(0);
    // The changed rows end with the after file's input columns.
    const changes = join(dir, 'seeds.csv');
    expect((await runCliInProcess(['diff', runs[0]!, runs[1]!, '-o', changes])).code).toBe(0);
    const rows = parseCsv(readFileSync(changes, 'utf8'), { columns: true }) as Record<string, string>[];
    expect(rows).toHaveLength(f.changed);
    expect(Object.keys(rows[0]!).slice(-2)).toEqual(['name', 'phone']);
    for (const row of rows) expect(row.name).toBe(`Person, ${numbers.indexOf(row.phone!)}`);
    // The same run against itself: nothing changed.
    const self = JSON.parse((await runCliInProcess(['diff', runs[0]!, runs[0]!, '-f', 'json'])).stdout) as Figures;
    expect([self.changed, self.unchanged]).toEqual([0, 60]);
  }, 60_000);
});
