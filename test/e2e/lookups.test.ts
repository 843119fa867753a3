// The lookup commands end to end: the real CLI against the real sandbox over loopback, every
// record compared with what the sandbox answers to a direct REST call for the same number.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import {
  jsonl,
  parseCsv,
  requireBuiltCli,
  restResult,
  runCli,
  sandboxEnv,
  sandboxStats,
  tempDir,
  type Kind,
} from './harness.js';

const RECORD_KEYS = ['input', 'number', 'lookup', 'ok', 'result', 'error'];
const NUMBERS = ['12015550123', '13125550188', '14155550142'];

interface Case {
  kind: Kind;
  flags: string[];
  opts: { enhanced?: boolean; messaging?: boolean; spam?: boolean };
}

const CASES: Case[] = [
  { kind: 'lrn', flags: [], opts: {} },
  { kind: 'lrn', flags: ['--enhanced'], opts: { enhanced: true } },
  { kind: 'lrn', flags: ['--messaging'], opts: { messaging: true } },
  { kind: 'lrn', flags: ['--enhanced', '--messaging'], opts: { enhanced: true, messaging: true } },
  { kind: 'cnam', flags: [], opts: {} },
  { kind: 'cnam', flags: ['--spam'], opts: { spam: true } },
  { kind: 'trust', flags: [], opts: {} },
];

/** The CSV columns and cells a REST result flattens to, by the contract's rules (not numintel's code). */
function flatten(kind: Kind, result: Record<string, unknown>): Record<string, string> {
  const out: Record<string, string> = {};
  const put = (name: string, v: unknown) => (out[name] = v === null || v === undefined ? '' : String(v));
  for (const [k, v] of Object.entries(result)) {
    if (k === 'enhanced_lrn_data') for (const [sk, sv] of Object.entries(v as object)) put(sk, sv);
    else if (k === 'messaging') for (const [sk, sv] of Object.entries(v as object)) put(`messaging_${sk}`, sv);
    // CNAM's own `number` would collide with the added `number` column.
    else put(kind === 'cnam' && k === 'number' ? 'cnam_number' : k, v);
  }
  return out;
}

let sb: Sandbox;
let env: Record<string, string | undefined>;
beforeAll(async () => {
  requireBuiltCli();
  sb = await startSandbox({ port: 0 });
  env = sandboxEnv(sb);
});
afterAll(() => sb.close());

describe('records (jsonl, the default when piped)', () => {
  it('each command and option gives the exact record shape and the REST result, envelope removed', async () => {
    const runs = await Promise.all(CASES.map((c) => runCli([c.kind, ...c.flags, ...NUMBERS], { env })));
    for (const [i, c] of CASES.entries()) {
      const run = runs[i]!;
      expect(run.code, `${c.kind} ${c.flags.join(' ')}: ${run.stderr}`).toBe(0);
      const records = jsonl(run.stdout);
      expect(records.map((r) => r.input)).toEqual(NUMBERS);
      for (const r of records) {
        expect(Object.keys(r)).toEqual(RECORD_KEYS);
        expect(r).toMatchObject({ number: r.input, lookup: c.kind, ok: true, error: null });
        const result = r.result as Record<string, unknown>;
        expect(result).toEqual(await restResult(sb, c.kind, r.number as string, c.opts));
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
      runCli(['lrn', ...args], { env }),
      runCli(['lrn', ...args, '--transport', 'graphql'], { env }),
      runCli(['trust', NUMBERS[0]!, '--transport', 'graphql'], { env }),
    ]);
    expect(graphql.code).toBe(0);
    expect(jsonl(graphql.stdout)).toEqual(jsonl(rest.stdout));
    expect(jsonl(trust.stdout)[0]!.result).toEqual(await restResult(sb, 'trust', NUMBERS[0]!));
  });
});

describe('numbers', () => {
  const FORMS = ['12015550123', '2015550123', '+1 (201) 555-0123', '201.555.0123', '201-555-0123 x12'];
  const INVALID = ['123', '(123) 555-0101', '+44 20 7946 0958'];

  it('normalises every common form, refuses invalid ones with a reason and never sends them (exit 4)', async () => {
    const own = await startSandbox({ port: 0 });
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
    const own = await startSandbox({ port: 0 });
    try {
      const run = await runCli(['lrn', '--no-validate', ...INVALID], { env: sandboxEnv(own) });
      expect(run.code).toBe(4);
      const records = jsonl(run.stdout);
      expect(records.map((r) => r.input)).toEqual(INVALID);
      for (const r of records) {
        expect(String(r.number)).toMatch(/^\d+$/);
        expect(String(r.number).endsWith(String(r.input).replace(/\D/g, '').slice(-7))).toBe(true);
        expect(r.error).toMatchObject({ code: 'invalid_number', status: 400 });
      }
      const stats = await sandboxStats(own);
      expect(stats.requests.lrn).toBe(INVALID.length);
      expect(stats.invalid).toBe(INVALID.length);
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
      runCli(['trust', ...NUMBERS], { env }),
      runCli(['trust', '-i', list], { env }),
      runCli(['trust', '-i', '-'], { env, stdin: text }),
      runCli(['trust'], { env, stdin: text }),
    ]);
    for (const run of [args, file, dash, piped]) {
      expect(run.code, run.stderr).toBe(0);
      expect(jsonl(run.stdout).map((r) => [r.input, r.number, r.ok])).toEqual(NUMBERS.map((n) => [n, n, true]));
    }
    expect(jsonl(file.stdout)).toEqual(jsonl(args.stdout));
  });

  it('numbers both as arguments and with -i is a usage error (exit 2) and sends nothing', async () => {
    const own = await startSandbox({ port: 0 });
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

describe('formats', () => {
  it('-f json is one valid array of the jsonl records, and [] for no input', async () => {
    const [json, lines, empty] = await Promise.all([
      runCli(['cnam', '--spam', '-f', 'json', ...NUMBERS, '123'], { env }),
      runCli(['cnam', '--spam', ...NUMBERS, '123'], { env }),
      runCli(['cnam', '-f', 'json'], { env, stdin: '' }),
    ]);
    expect(json.code).toBe(4);
    const parsed = JSON.parse(json.stdout) as unknown;
    expect(parsed).toEqual(jsonl(lines.stdout));
    expect(empty.code).toBe(0);
    expect(JSON.parse(empty.stdout)).toEqual([]);
  });

  it('-f csv: a header that depends only on command and options, flattened results, `code: message` errors', async () => {
    for (const c of CASES) {
      const [ok, bad] = await Promise.all([
        runCli([c.kind, ...c.flags, '-f', 'csv', ...NUMBERS, '123'], { env }),
        runCli([c.kind, ...c.flags, '-f', 'csv', '123'], { env }),
      ]);
      const rows = parseCsv(ok.stdout);
      const header = rows[0]!;
      const expected = flatten(c.kind, await restResult(sb, c.kind, NUMBERS[0]!, c.opts));
      expect(header).toEqual(['input', 'number', ...Object.keys(expected), 'error']);
      expect(parseCsv(bad.stdout)[0]).toEqual(header);
      if (c.opts.messaging) expect(header.filter((h) => h.startsWith('messaging_'))).toHaveLength(5);
      for (const [i, n] of NUMBERS.entries()) {
        const cells = Object.fromEntries(header.map((h, j) => [h, rows[i + 1]![j]]));
        expect(cells).toEqual({ input: n, number: n, ...flatten(c.kind, await restResult(sb, c.kind, n, c.opts)), error: '' });
      }
      const invalid = rows[NUMBERS.length + 1]!;
      const error = (jsonl((await runCli([c.kind, '123'], { env })).stdout)[0]!.error as { message: string }).message;
      expect(invalid[0]).toBe('123');
      expect(invalid.slice(1, -1).every((cell) => cell === '')).toBe(true);
      expect(invalid.at(-1)).toBe(`invalid_number: ${error}`);
    }
  });

  it('CSV leaves normal service values alone (a timezone like -0500 stays a value), with or without --raw-csv', async () => {
    const args = ['lrn', '--enhanced', '-f', 'csv', ...NUMBERS];
    const [safe, raw] = await Promise.all([runCli(args, { env }), runCli([...args, '--raw-csv'], { env })]);
    expect(raw.code).toBe(0);
    expect(raw.stdout).toBe(safe.stdout);
    const rows = parseCsv(safe.stdout);
    const tz = rows[0]!.indexOf('timezone');
    for (const row of rows.slice(1)) expect(row[tz]).toMatch(/^[+-]\d{4}$/);
  });

  it('-f table is readable, plain unless CLICOLOR_FORCE=1, and NO_COLOR / --no-color win', async () => {
    const args = ['lrn', '-f', 'table', NUMBERS[0]!, '123'];
    const [plain, forced, noColor, flag] = await Promise.all([
      runCli(args, { env }),
      runCli(args, { env: { ...env, CLICOLOR_FORCE: '1' } }),
      runCli(args, { env: { ...env, CLICOLOR_FORCE: '1', NO_COLOR: '1' } }),
      runCli([...args, '--no-color'], { env: { ...env, CLICOLOR_FORCE: '1' } }),
    ]);
    expect(plain.code).toBe(4);
    expect(plain.stdout).not.toContain('\x1b');
    expect(forced.stdout).toContain('\x1b[');
    expect(noColor.stdout).not.toContain('\x1b');
    expect(flag.stdout).not.toContain('\x1b');
    const result = await restResult(sb, 'lrn', NUMBERS[0]!);
    for (const text of [NUMBERS[0]!, String(result.lrn), String(result.lrn_activated_at), 'lrn_activated_at', 'invalid_number']) {
      expect(plain.stdout).toContain(text);
    }
    // Every line of the table is a line of the box, nothing else mixed in.
    for (const line of plain.stdout.trimEnd().split('\n')) expect(line).toMatch(/^[┌├│└].*[┐┤│┘]$/);
    // The summary and progress never go to stdout.
    expect(plain.stdout).not.toMatch(/rows:|lookups sent/);
  });

  it('-o <file>: nothing on stdout, format from the extension unless -f says otherwise', async () => {
    const dir = tempDir();
    const path = (name: string) => join(dir, name);
    const runs = await Promise.all([
      runCli(['lrn', ...NUMBERS, '-o', path('out.csv')], { env }),
      runCli(['lrn', ...NUMBERS, '-o', path('out.json')], { env }),
      runCli(['lrn', ...NUMBERS, '-o', path('out.jsonl')], { env }),
      runCli(['lrn', ...NUMBERS, '-o', path('other.csv'), '-f', 'jsonl'], { env }),
      runCli(['lrn', ...NUMBERS], { env }),
    ]);
    for (const run of runs) expect(run.code, run.stderr).toBe(0);
    for (const run of runs.slice(0, 4)) expect(run.stdout).toBe('');
    const read = (name: string) => readFileSync(path(name), 'utf8');
    const expected = jsonl(runs[4]!.stdout);
    expect(parseCsv(read('out.csv')).slice(1).map((r) => r.slice(0, 3))).toEqual(
      expected.map((r) => [r.input, r.number, (r.result as { lrn: string }).lrn]),
    );
    expect(JSON.parse(read('out.json'))).toEqual(expected);
    expect(jsonl(read('out.jsonl'))).toEqual(expected);
    expect(jsonl(read('other.csv'))).toEqual(expected);
  });

  it('output order is input order even when answers arrive out of order', async () => {
    const own = await startSandbox({ port: 0, jitterMs: 40 });
    try {
      const numbers = Array.from({ length: 40 }, (_, i) => `1212555${String(1000 + i * 37).padStart(4, '0')}`).reverse();
      const run = await runCli(['cnam', '--concurrency', '16', '-i', '-'], { env: sandboxEnv(own), stdin: numbers.join('\n') });
      expect(run.code, run.stderr).toBe(0);
      expect(jsonl(run.stdout).map((r) => r.input)).toEqual(numbers);
    } finally {
      await own.close();
    }
  });
});
