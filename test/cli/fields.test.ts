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
  it('jsonl and json: results hold only the chosen fields, sub-objects included; the envelope stays', async () => {
    for (const format of ['jsonl', 'json']) {
      const r = await runInProcess(['lrn', '--enhanced', '--messaging', ...NUMBERS, '--sandbox', '-q', '-f', format, '--fields', 'lrn,carrier_type,messaging_provider']);
      expect(r.code).toBe(4);
      const records = format === 'json' ? (JSON.parse(r.stdout) as Record<string, unknown>[]) : lines(r.stdout);
      expect(records.map((x) => Object.keys(x))).toEqual(records.map(() => ['input', 'number', 'lookup', 'ok', 'result', 'error', 'cached', 'fetched_at']));
      for (const x of records.slice(0, 2)) {
        const result = x.result as Record<string, Record<string, unknown>>;
        expect(Object.keys(result)).toEqual(['lrn', 'enhanced_lrn_data', 'messaging']);
        expect(Object.keys(result.enhanced_lrn_data!)).toEqual(['carrier_type']);
        expect(Object.keys(result.messaging!)).toEqual(['provider']);
      }
      expect(records[2]).toMatchObject({ ok: false, result: null, error: { code: 'invalid_number' } });
    }
  });

  it('csv: the input, the number, the chosen columns and the error column', async () => {
    const r = await runInProcess(['cnam', '--spam', ...NUMBERS, '--sandbox', '-q', '-f', 'csv', '--fields', 'spam_type']);
    const rows = parse(r.stdout) as string[][];
    expect(rows[0]).toEqual(['input', 'number', 'spam_type', 'error']);
    expect(rows).toHaveLength(4);
    expect(rows[3]?.[3]).toMatch(/^invalid_number: /);
  });

  it('enrich: unprefixed names pick every lookup that has them, prefixed ones one lookup', async () => {
    const r = await runInProcess(['enrich', '--sandbox', '--spam', '-q', '-f', 'csv', '--fields', 'spam_type,trust_is_spam'], { stdin: 'phone\n2015550123\n' });
    expect((parse(r.stdout) as string[][])[0]).toEqual(['phone', 'number', 'lrn_error', 'cnam_spam_type', 'cnam_error', 'trust_is_spam', 'trust_spam_type', 'trust_error']);
  });

  it('enrich: a lookup --fields names no field of is said once (it is still paid for), and only then', async () => {
    const warning = /^numintel: warning: --fields names no field of lrn: it is still looked up \(and billed\) for every number, to write only its error column; leave it out of --lookups to save those lookups$/m;
    const run = await runInProcess(['enrich', '--sandbox', '--lookups', 'lrn,trust', '-f', 'jsonl', '--fields', 'is_spam'], { stdin: 'phone\n2015550123\n5125550182\n' });
    expect(run.code).toBe(0);
    expect(run.stderr.match(new RegExp(warning, 'gm'))).toHaveLength(1);
    expect(lines(run.stdout).map((x) => x.results)).toEqual([{ lrn: {}, trust: { is_spam: false } }, { lrn: {}, trust: { is_spam: false } }]);
    const dry = await runInProcess(['enrich', '--sandbox', '--lookups', 'lrn,cnam,trust', '--dry-run', '--fields', 'is_spam'], { stdin: 'phone\n2015550123\n' });
    expect(dry.code).toBe(0);
    expect(dry.stderr).toMatch(/^numintel: warning: --fields names no field of lrn and cnam: they are still looked up \(and billed\) for every number, to write only their error columns; leave them out of --lookups/m);
    // Every lookup with a field of its own, or one lookup: nothing to say.
    for (const args of [['enrich', '--lookups', 'lrn,trust', '--fields', 'lrn,is_spam'], ['trust', '--fields', 'is_spam']]) {
      const r = await runInProcess([...args, '--sandbox', '-f', 'jsonl'], { stdin: 'phone\n2015550123\n' });
      expect(r.code).toBe(0);
      expect(r.stderr).not.toMatch(/warning/);
    }
  });

  it('table: only the chosen columns beside input, number and status', async () => {
    const r = await runInProcess(['lrn', '--enhanced', '2015550123', '--sandbox', '--fields', 'carrier,state'], { stdoutTTY: true, columns: 120, env: { NO_COLOR: '1' } });
    const head = r.stdout.split('\n')[1]!;
    expect(head.split('│').map((c) => c.trim()).filter(Boolean)).toEqual(['input', 'number', 'carrier', 'state', 'status']);
  });

  it('--resume continues a jsonl file whose --fields left an option\'s part out (lrn --enhanced, enrich)', async () => {
    const dir = tempDir('numintel-fields-resume-');
    const input = join(dir, 'leads.csv');
    writeFileSync(input, 'phone\n2015550123\n5125550182\n2015550124\n');
    const stamp = (text: string) => text.replace(/"fetched_at":("[^"]*"|\{[^}]*\})/g, '"fetched_at":…');
    for (const args of [
      ['lrn', '--enhanced', '--messaging', '--fields', 'lrn'],
      ['enrich', '--enhanced', '--spam', '--fields', 'lrn_lrn,is_spam'],
    ]) {
      const out = join(dir, `${args[0]}.jsonl`);
      const full = await runInProcess([...args, '-i', input, '--sandbox', '-q', '-o', out]);
      expect(full.code, full.stderr).toBe(0);
      const whole = readFileSync(out, 'utf8');
      writeFileSync(out, `${whole.split('\n')[0]}\n`);
      const resumed = await runInProcess([...args, '-i', input, '--sandbox', '-q', '-o', out, '--resume']);
      expect(resumed.code, resumed.stderr).toBe(0);
      expect(stamp(readFileSync(out, 'utf8'))).toBe(stamp(whole));
    }
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
