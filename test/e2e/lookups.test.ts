// The lookup commands end to end: the real CLI against the real sandbox over loopback HTTPS, every
// record compared with what the sandbox answers to a direct REST call for the same number.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LOOKUP_CASES as CASES, restResult } from './harness.js';
import { fileSandbox, sandboxEnv, sandboxStats, startTlsSandbox } from '../support/sandbox.js';
import { jsonl, parseCsv, runCli, timeless } from '../support/cli.js';
import { tempDir } from '../support/tmp.js';

const RECORD_KEYS = ['input', 'number', 'lookup', 'ok', 'result', 'error', 'cached', 'fetched_at'];
const NUMBERS = ['12015550123', '13125550188', '14155550142'];

// Over HTTPS, trusted through NODE_EXTRA_CA_CERTS (sandboxEnv), as a user with a private CA would.
const ctx = fileSandbox({ tls: true });

describe('records (jsonl, the default when piped)', () => {
  it('each command and option gives the exact record shape and the REST result, envelope removed', async () => {
    const runs = await Promise.all(CASES.map((c) => runCli([c.kind, ...c.flags, ...NUMBERS], { env: ctx.env })));
    for (const [i, c] of CASES.entries()) {
      const run = runs[i]!;
      expect(run.code, `${c.kind} ${c.flags.join(' ')}: ${run.stderr}`).toBe(0);
      const records = jsonl(run.stdout);
      expect(records.map((r) => r.input)).toEqual(NUMBERS);
      for (const r of records) {
        expect(Object.keys(r)).toEqual(RECORD_KEYS);
        expect(r).toMatchObject({ number: r.input, lookup: c.kind, ok: true, error: null });
        const result = r.result as Record<string, unknown>;
        expect(result).toEqual(await restResult(ctx.sb, c.kind, r.number as string, c.opts));
        if (c.kind === 'lrn') {
          expect('enhanced_lrn_data' in result).toBe(c.opts.enhanced === true);
          expect('messaging' in result).toBe(c.opts.messaging === true);
        }
        if (c.kind === 'cnam') expect('spam_type' in result).toBe(c.opts.spam === true);
      }
    }
  });

  it('the same result whichever transport (REST or GraphQL) was used', async () => {
    const args = ['--enhanced', '--messaging', NUMBERS[0]!];
    const [rest, graphql, trust] = await Promise.all([
      runCli(['lrn', ...args], { env: ctx.env }),
      runCli(['lrn', ...args, '--transport', 'graphql'], { env: ctx.env }),
      runCli(['trust', NUMBERS[0]!, '--transport', 'graphql'], { env: ctx.env }),
    ]);
    expect(graphql.code).toBe(0);
    expect(jsonl(timeless(graphql.stdout))).toEqual(jsonl(timeless(rest.stdout)));
    expect(jsonl(trust.stdout)[0]!.result).toEqual(await restResult(ctx.sb, 'trust', NUMBERS[0]!));
  });
});

describe('numbers', () => {
  const FORMS = ['12015550123', '2015550123', '+1 (201) 555-0123', '201.555.0123', '201-555-0123 x12'];
  const INVALID = ['123', '(123) 555-0101', '+44 20 7946 0958'];

  it('normalises every common form, refuses invalid ones with a reason and never sends them (exit 4)', async () => {
    const own = await startTlsSandbox();
    try {
      const [lrn, cnam] = await Promise.all([
        runCli(['lrn', ...FORMS, ...INVALID], { env: sandboxEnv(own) }),
        runCli(['cnam', ...INVALID, ...FORMS], { env: sandboxEnv(own) }),
      ]);
      expect(lrn.code).toBe(4);
      expect(cnam.code).toBe(4);
      const records = jsonl(lrn.stdout);
      expect(records.map((r) => r.input)).toEqual([...FORMS, ...INVALID]);
      for (const r of records.slice(0, FORMS.length)) {
        expect(r).toMatchObject({ number: '12015550123', ok: true, error: null });
      }
      for (const r of [...records.slice(FORMS.length), ...jsonl(cnam.stdout).slice(0, INVALID.length)]) {
        expect(Object.keys(r)).toEqual(RECORD_KEYS);
        expect(r).toMatchObject({ number: null, ok: false, result: null });
        const error = r.error as { code: string; message: string; status?: number };
        expect(error.code).toBe('invalid_number');
        expect(error.message.length).toBeGreaterThan(5);
        expect(error.status).toBeUndefined();
      }
      const stats = await sandboxStats(own);
      // The five forms are one number: looked up once per command; the invalid ones never.
      expect(stats.requests).toMatchObject({ lrn: 1, cnam: 1, total: 2 });
      expect(stats.invalid).toBe(0);
      expect(lrn.stderr).toMatch(/invalid: 3/);
    } finally {
      await own.close();
    }
  });

  it('--no-validate sends what was given, and the service decides', async () => {
    const own = await startTlsSandbox();
    try {
      const run = await runCli(['lrn', '--no-validate', ...INVALID], { env: sandboxEnv(own) });
      expect(run.code).toBe(4);
      const records = jsonl(run.stdout);
      expect(records.map((r) => r.input)).toEqual(INVALID);
      for (const r of records) expect(String(r.number)).toBe(String(r.input).replace(/\D/g, '').replace(/^(\d{10})$/, '1$1'));
      // The service, not numintel, refused the short and the foreign number.
      expect(records[0]!.error).toMatchObject({ code: 'invalid_number', status: 400 });
      expect(records[2]!.error).toMatchObject({ code: 'invalid_number', status: 400 });
      const stats = await sandboxStats(own);
      expect(stats.requests.lrn).toBe(INVALID.length);
      expect(stats.invalid).toBe(2);
    } finally {
      await own.close();
    }
  });
});

describe('input sources', () => {
  it('arguments, -i <list file> with blank lines and comments, -i -, and piped stdin give the same records', async () => {
    const dir = tempDir();
    const list = join(dir, 'numbers.txt');
    const text = `# leads\r\n\r\n${NUMBERS[0]}\r\n   \n# another comment\n${NUMBERS[1]}\n\n${NUMBERS[2]}`;
    writeFileSync(list, text);
    const [args, file, dash, piped] = await Promise.all([
      runCli(['trust', ...NUMBERS], { env: ctx.env }),
      runCli(['trust', '-i', list], { env: ctx.env }),
      runCli(['trust', '-i', '-'], { env: ctx.env, stdin: text }),
      runCli(['trust'], { env: ctx.env, stdin: text }),
    ]);
    for (const run of [args, file, dash, piped]) {
      expect(run.code, run.stderr).toBe(0);
      expect(jsonl(run.stdout).map((r) => [r.input, r.number, r.ok])).toEqual(NUMBERS.map((n) => [n, n, true]));
    }
    expect(jsonl(timeless(file.stdout))).toEqual(jsonl(timeless(args.stdout)));
  });

  it('CSV input: the number column is found, rows ride along, CSV out by default with input columns first', async () => {
    const dir = tempDir();
    const csv = join(dir, 'leads.csv');
    writeFileSync(csv, `name,Phone Number,number\r\nAlice,(201) 555-0123,a1\r\n"Bob, Jr.",123,b2\r\n`);
    const [asCsv, asJsonl, quiet] = await Promise.all([
      runCli(['cnam', '-i', csv], { env: ctx.env }),
      runCli(['cnam', '-i', csv, '-f', 'jsonl'], { env: ctx.env }),
      runCli(['cnam', '-i', csv, '-q'], { env: ctx.env }),
    ]);
    expect(asCsv.code).toBe(4);
    const rows = parseCsv(asCsv.stdout);
    expect(rows[0]!.slice(0, 3)).toEqual(['name', 'Phone Number', 'number']);
    expect(rows[0]!.at(-1)).toBe('error');
    expect(rows[1]!.slice(0, 3)).toEqual(['Alice', '(201) 555-0123', 'a1']);
    expect(rows[1]).toContain('12015550123');
    expect(rows[2]!.slice(0, 3)).toEqual(['Bob, Jr.', '123', 'b2']);
    const records = jsonl(asJsonl.stdout);
    expect(records.map((r) => [r.input, r.number])).toEqual([['(201) 555-0123', '12015550123'], ['123', null]]);
    expect(records[1]!.row).toEqual({ name: 'Bob, Jr.', 'Phone Number': '123', number: 'b2' });
    expect(records[0]!.result).toEqual(await restResult(ctx.sb, 'cnam', '12015550123'));
    expect(asCsv.stderr).toMatch(/rows: 2/);
    expect(quiet.stderr).toBe('');
    expect(timeless(quiet.stdout)).toBe(timeless(asCsv.stdout));
  });

  it('numbers both as arguments and with -i is a usage error (exit 2) and sends nothing', async () => {
    const own = await startTlsSandbox();
    try {
      const dir = tempDir();
      writeFileSync(join(dir, 'n.txt'), `${NUMBERS[0]}\n`);
      const run = await runCli(['lrn', NUMBERS[1]!, '-i', join(dir, 'n.txt')], { env: sandboxEnv(own) });
      expect(run.code).toBe(2);
      expect(run.stdout).toBe('');
      expect(run.stderr).toMatch(/^numintel: .*(argument|input)/m);
      expect((await sandboxStats(own)).requests.total).toBe(0);
    } finally {
      await own.close();
    }
  });
});
