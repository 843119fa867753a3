// --fields on every format, in-process against the built-in sandbox: only the chosen result fields
// are written; input, number and errors stay; an unknown name is exit 2 with the known ones.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'csv-parse/sync';
import { runInProcess } from '../support/world.js';
import { tempDir } from '../support/tmp.js';

const NUMBERS = ['2015550123', '5125550182', '123-456-7890'];
const lines = (text: string) => text.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);

describe('--fields', () => {
  it('jsonl and json: each record holds what --fields names, in its order, values as the service sent them', async () => {
    for (const format of ['jsonl', 'json']) {
      const r = await runInProcess(['lrn', '--enhanced', '--messaging', ...NUMBERS, '--sandbox', '-q', '-f', format, '--fields', 'number,carrier_type,lrn,messaging_enabled,error']);
      expect(r.code).toBe(4);
      const records = format === 'json' ? (JSON.parse(r.stdout) as Record<string, unknown>[]) : lines(r.stdout);
      expect(records.map((x) => Object.keys(x))).toEqual(records.map(() => ['number', 'carrier_type', 'lrn', 'messaging_enabled', 'error']));
      expect(records[0]).toMatchObject({ number: '12015550123', carrier_type: expect.any(String), lrn: expect.stringMatching(/^1\d{10}$/), messaging_enabled: expect.any(Boolean), error: null });
      expect(records[2]).toMatchObject({ number: null, carrier_type: null, lrn: null, error: { code: 'invalid_number' } });
    }
  });

  it('the example of the request: --fields number,carrier,carrier_type,is_spam (enrich), in every format and order', async () => {
    const args = ['enrich', '--enhanced', '2015550123', '--sandbox', '-q', '--fields', 'number,carrier,carrier_type,is_spam'];
    const csv = await runInProcess([...args, '-f', 'csv']);
    expect(csv.code, csv.stderr).toBe(0);
    expect(parse(csv.stdout)).toEqual([['number', 'lrn_carrier', 'lrn_carrier_type', 'trust_is_spam'], ['12015550123', expect.any(String), expect.any(String), 'false']]);
    const jsonl = await runInProcess([...args, '-f', 'jsonl']);
    expect(Object.keys(lines(jsonl.stdout)[0]!)).toEqual(['number', 'lrn_carrier', 'lrn_carrier_type', 'trust_is_spam']);
    expect(lines(jsonl.stdout)[0]).toMatchObject({ number: '12015550123', trust_is_spam: false });
    const reordered = await runInProcess(['lrn', '--enhanced', '2015550123', '--sandbox', '-q', '-f', 'csv', '--fields', 'carrier,input,number,lrn']);
    expect((parse(reordered.stdout) as string[][])[0]).toEqual(['carrier', 'input', 'number', 'lrn']);
  });

  it('csv: only what it names, and the error column only when named', async () => {
    const r = await runInProcess(['cnam', '--spam', ...NUMBERS, '--sandbox', '-q', '-f', 'csv', '--fields', 'spam_type']);
    expect(parse(r.stdout)).toEqual([['spam_type'], [expect.any(String)], [expect.any(String)], ['']]);
    const e = await runInProcess(['cnam', '--spam', ...NUMBERS, '--sandbox', '-q', '-f', 'csv', '--fields', 'input,spam_type,error']);
    const rows = parse(e.stdout) as string[][];
    expect(rows[0]).toEqual(['input', 'spam_type', 'error']);
    expect(rows).toHaveLength(4);
    expect(rows[3]?.[2]).toMatch(/^invalid_number: /);
  });

  it('csv input: its columns always stay, then what --fields names; `number` keeps its clash-free name', async () => {
    const r = await runInProcess(['lrn', '--sandbox', '-q', '-f', 'csv', '--fields', 'lrn,number,input'], { stdin: 'name,number\nA,2015550123\n' });
    expect(r.code, r.stderr).toBe(0);
    expect(parse(r.stdout)).toEqual([['name', 'number', 'lrn', 'numintel_number'], ['A', '2015550123', expect.any(String), '12015550123']]);
  });

  it('enrich: unprefixed names pick every lookup that has them, prefixed ones one lookup, `error` every error column', async () => {
    const r = await runInProcess(['enrich', '--sandbox', '--spam', '-q', '-f', 'csv', '--fields', 'spam_type,trust_is_spam,error'], { stdin: 'phone\n2015550123\n' });
    expect((parse(r.stdout) as string[][])[0]).toEqual(['phone', 'cnam_spam_type', 'trust_spam_type', 'trust_is_spam', 'lrn_error', 'cnam_error', 'trust_error']);
    const one = await runInProcess(['enrich', '--sandbox', '-q', '-f', 'csv', '--fields', 'trust_error,number'], { stdin: 'phone\n2015550123\n' });
    expect((parse(one.stdout) as string[][])[0]).toEqual(['phone', 'trust_error', 'number']);
  });

  it('enrich: a lookup --fields names no field of is said once (it is still paid for), and only then', async () => {
    const warning = /^numintel: warning: --fields names no field of lrn: it is still looked up \(and billed\) for every number, to write only its error column; leave it out of --lookups to save those lookups$/m;
    const run = await runInProcess(['enrich', '--sandbox', '--lookups', 'lrn,trust', '-f', 'jsonl', '--fields', 'is_spam,error'], { stdin: 'phone\n2015550123\n5125550182\n' });
    expect(run.code).toBe(0);
    expect(run.stderr.match(new RegExp(warning, 'gm'))).toHaveLength(1);
    const row = (phone: string) => ({ trust_is_spam: false, lrn_error: null, trust_error: null, row: { phone } });
    expect(lines(run.stdout)).toEqual([row('2015550123'), row('5125550182')]);
    const bare = await runInProcess(['enrich', '--sandbox', '--lookups', 'lrn,trust', '-f', 'jsonl', '--fields', 'is_spam'], { stdin: 'phone\n2015550123\n' });
    expect(bare.stderr).toMatch(/^numintel: warning: --fields names no field of lrn: it is still looked up \(and billed\) for every number, and nothing of it is written; leave it out/m);
    const dry = await runInProcess(['enrich', '--sandbox', '--lookups', 'lrn,cnam,trust', '--dry-run', '--fields', 'is_spam'], { stdin: 'phone\n2015550123\n' });
    expect(dry.code).toBe(0);
    expect(dry.stderr).toMatch(/^numintel: warning: --fields names no field of lrn and cnam: they are still looked up \(and billed\) for every number, and nothing of them is written; leave them out of --lookups/m);
    // Every lookup with a field of its own, or one lookup: nothing to say.
    for (const args of [['enrich', '--lookups', 'lrn,trust', '--fields', 'lrn,is_spam'], ['trust', '--fields', 'is_spam'], ['trust', '--fields', 'number,error']]) {
      const r = await runInProcess([...args, '--sandbox', '-f', 'jsonl'], { stdin: 'phone\n2015550123\n' });
      expect(r.code).toBe(0);
      expect(r.stderr).not.toMatch(/warning/);
    }
  });

  it('table: only the chosen columns, in their order, under their labels; the error column is the status', async () => {
    const heads = async (fields: string, columns = 120) => {
      const r = await runInProcess(['lrn', '--enhanced', '2015550123', '2015550124', '--sandbox', '--fields', fields], { stdoutTTY: true, columns, env: { NO_COLOR: '1' } });
      expect(r.code, r.stderr).toBe(0);
      return r.stdout;
    };
    const cellsOf = (line: string) => line.split('│').map((c) => c.trim()).filter(Boolean);
    expect(cellsOf((await heads('carrier,state')).split('\n')[1]!)).toEqual(['carrier', 'state']);
    expect(cellsOf((await heads('state,number,status,carrier')).split('\n')[1]!)).toEqual(['state', 'number', 'status', 'carrier']);
    expect(cellsOf((await heads('number,error')).split('\n')[3]!)).toEqual(['12015550123', 'ok']);
    // Too narrow for a row: one box per record, a line per named column, in order.
    const boxes = (await heads('rate_center,number,carrier,status', 30)).split('\n').map(cellsOf).filter((c) => c.length === 2);
    expect(boxes.map((c) => c[0])).toEqual(['rate center', 'number', 'carrier', 'status', 'rate center', 'number', 'carrier', 'status']);
  });

  it('--resume continues a csv, tsv or jsonl file written with --fields that holds the input (a list\'s first in csv); one without it is refused', async () => {
    const dir = tempDir('numintel-fields-resume-');
    const list = join(dir, 'leads.txt');
    writeFileSync(list, '2015550123\n5125550182\n123\n2015550124\n');
    const csvInput = join(dir, 'leads.csv');
    writeFileSync(csvInput, 'phone\n2015550123\n5125550182\n123\n2015550124\n');
    const stamp = (text: string) => text.replace(/\d{4}-\d\d-\d\dT[\d:.]+Z/g, '…');
    for (const [ext, args] of [
      ['csv', ['lrn', '--enhanced', '--fields', 'input,carrier,error', '-i', list]],
      ['tsv', ['lrn', '--enhanced', '--cache-columns', '--fields', 'input,carrier,error', '-i', list]],
      ['jsonl', ['lrn', '--enhanced', '--fields', 'carrier,input,error', '-i', list]],
      ['jsonl', ['enrich', '--enhanced', '--spam', '--fields', 'lrn_lrn,is_spam,error', '-i', csvInput]],
      ['jsonl', ['enrich', '--fields', 'number', '-i', csvInput]],
    ] as const) {
      const out = join(dir, `out-${args[0]}-${args.length}.${ext}`);
      const full = await runInProcess([...args, '--sandbox', '-q', '-o', out]);
      expect(full.code, full.stderr).toBe(4);
      const whole = readFileSync(out, 'utf8');
      const kept = ext === 'jsonl' ? 1 : 2;
      writeFileSync(out, `${whole.split('\n').slice(0, kept).join('\n')}\n`);
      const resumed = await runInProcess([...args, '--sandbox', '-q', '-o', out, '--resume']);
      expect(resumed.code, `${args.join(' ')}: ${resumed.stderr}`).toBe(4);
      expect(stamp(readFileSync(out, 'utf8'))).toBe(stamp(whole));
    }
    for (const [fields, file, says] of [
      ['carrier,input', 'out2.csv', /--resume with --fields needs the input in the first column/],
      ['carrier,number', 'out2.jsonl', /--resume with --fields needs the input, to match/],
    ] as const) {
      const r = await runInProcess(['lrn', '--enhanced', '--fields', fields, '-i', list, '--sandbox', '-q', '-o', join(dir, file), '--resume']);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(says);
    }
    // Another --fields than the file's: refused, the file as it was.
    const out = join(dir, 'out-lrn-6.jsonl');
    const before = readFileSync(out, 'utf8');
    const other = await runInProcess(['lrn', '--enhanced', '--fields', 'input,carrier', '-i', list, '--sandbox', '-q', '-o', out, '--resume']);
    expect(other.code).toBe(2);
    expect(other.stderr).toMatch(/its records differ from what this command writes/);
    expect(readFileSync(out, 'utf8')).toBe(before);
  });

  it.each([
    { fields: 'carier', extra: ['--enhanced'], says: 'unknown field "carier" in --fields (did you mean "carrier"?)' },
    { fields: 'LRN', extra: [], says: 'unknown field "LRN" in --fields (did you mean "lrn"?)' },
    { fields: 'Carrier_Type', extra: ['--enhanced'], says: 'unknown field "Carrier_Type" in --fields (did you mean "carrier_type"?)' },
    { fields: 'carrier', extra: [], says: 'field "carrier" in --fields comes only with --enhanced' },
    { fields: ',', extra: [], says: '--fields names no field' },
  ])('$fields → exit 2: $says, nothing sent', async ({ fields, extra, says }) => {
    const r = await runInProcess(['lrn', ...extra, '2015550123', '--sandbox', '--fields', fields]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(says);
    expect(r.stderr).toMatch(/lrn, lrn_activated_at/);
  });

  it.each([
    { lookups: 'trust', fields: 'carrier', says: 'field "carrier" in --fields belongs to the lrn lookup, which --lookups leaves out\nadd lrn to --lookups, or choose from trust_phone_number, trust_is_spam' },
    { lookups: 'trust,cnam', fields: 'lrn_lrn', says: 'field "lrn_lrn" in --fields belongs to the lrn lookup, which --lookups leaves out' },
    // enrich's columns are prefixed, with one lookup too: the names offered are those columns.
    { lookups: 'trust', fields: 'nope', says: 'the fields of this run: trust_phone_number, trust_is_spam, trust_is_robocall' },
    { lookups: 'trust', fields: 'is_spm', says: 'unknown field "is_spm" in --fields (did you mean "is_spam"?)' },
  ])('enrich --lookups $lookups --fields $fields → exit 2: $says', async ({ lookups, fields, says }) => {
    const r = await runInProcess(['enrich', '--lookups', lookups, '--sandbox', '--fields', fields], { stdin: '2015550123\n' });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(says);
  });
});
