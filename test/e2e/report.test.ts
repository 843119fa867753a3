// `numintel report` as a user runs it: files and stdin, text on a pipe and with forced colour,
// -f json, --html, bad input; and `--report` on a real enrich run against the sandbox, whose page
// must hold the figures `report` gives for the file that run wrote.
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Report } from '../../src/report/report.js';
import { chartsFromHtml, chartsFromJson } from '../report/charts-from-json.js';
import { CARRIERS, INPUT, LINE_TYPE, PORTING, RECORDS, written } from '../report/fixture.js';
import { HAS_SCRIPT, CLI, cleanEnv, requireBuiltCli, runCli, runCliInProcess } from '../support/cli.js';
import { sandboxEnv, sandboxStats, startTlsSandbox } from '../support/sandbox.js';
import { tempDir } from '../support/tmp.js';

const AS_OF = '2026-01-31T00:00:00Z';
// oxlint-disable-next-line no-control-regex
const ANSI = /\x1b\[/;
let dir: string;
let csv: string;

beforeAll(async () => {
  requireBuiltCli();
  dir = tempDir('numintel-report-');
  csv = join(dir, 'leads.enriched.csv');
  writeFileSync(csv, await written(RECORDS, 'csv', ['lrn', 'cnam', 'trust']));
  writeFileSync(join(dir, 'leads.jsonl'), await written(RECORDS, 'jsonl', ['lrn', 'cnam', 'trust']));
});

describe('numintel report', () => {
  it('-f json: every figure, the same from CSV, JSON lines and stdin', async () => {
    const fromCsv = await runCliInProcess(['report', csv, '-f', 'json', '--as-of', AS_OF]);
    expect(fromCsv.stderr).toBe('');
    expect(fromCsv.code).toBe(0);
    const r = JSON.parse(fromCsv.stdout) as Report;
    expect(r.source).toEqual({ name: 'leads.enriched.csv', format: 'csv', lookups: ['lrn', 'cnam', 'trust'] });
    expect(r.as_of).toBe('2026-01-31');
    expect(r.input).toEqual(INPUT);
    expect(r.line_type).toEqual(LINE_TYPE);
    expect(r.porting).toEqual(PORTING);
    expect(r.carriers).toEqual(CARRIERS);
    const fromJsonl = JSON.parse((await runCliInProcess(['report', join(dir, 'leads.jsonl'), '-f', 'json', '--as-of', AS_OF])).stdout) as Report;
    const fromStdin = JSON.parse((await runCliInProcess(['report', '-', '-f', 'json', '--as-of', AS_OF], { stdin: readFileSync(csv, 'utf8') })).stdout) as Report;
    // JSON lines say whether each answer was cached (none here: 0); a CSV without --cache-columns cannot (null).
    const uncached = (rep: Report) => JSON.parse(JSON.stringify({ ...rep, source: null }).replaceAll('"cached":0', '"cached":null')) as unknown;
    expect(uncached(fromJsonl)).toEqual(uncached(r));
    expect({ ...fromStdin, source: null }).toEqual({ ...r, source: null });
    expect(fromStdin.source.name).toBeUndefined();
  });

  it('reads the TSV that -f tsv writes (quoted cells with tabs and line breaks too): the same figures as from the CSV', async () => {
    const rows = RECORDS.map((r, i) => ({ ...r, row: { name: `Person\t${i}, "the\nsecond"`, phone: r.input } }));
    const tsv = join(dir, 'leads.enriched.tsv');
    writeFileSync(tsv, await written(rows, 'tsv', ['lrn', 'cnam', 'trust'], ['name', 'phone']));
    expect(readFileSync(tsv, 'utf8')).toContain('"Person\t0, ""the\nsecond"""\t');
    const fromCsvCols = join(dir, 'leads.cols.csv');
    writeFileSync(fromCsvCols, await written(rows, 'csv', ['lrn', 'cnam', 'trust'], ['name', 'phone']));
    const t = await runCliInProcess(['report', tsv, '-f', 'json', '--as-of', AS_OF]);
    expect(t.stderr).toBe('');
    expect(t.code).toBe(0);
    const fromTsv = JSON.parse(t.stdout) as Report;
    expect(fromTsv.source).toEqual({ name: 'leads.enriched.tsv', format: 'tsv', lookups: ['lrn', 'cnam', 'trust'] });
    const fromCsv = JSON.parse((await runCliInProcess(['report', fromCsvCols, '-f', 'json', '--as-of', AS_OF])).stdout) as Report;
    expect({ ...fromTsv, source: null }).toEqual({ ...fromCsv, source: null });
    expect(fromTsv.input).toEqual(INPUT);
  });

  it('piped: plain text within COLUMNS, # bars, no colour; CLICOLOR_FORCE=1 colours it, NO_COLOR and --no-color win', async () => {
    const piped = await runCliInProcess(['report', csv, '--as-of', AS_OF], { env: { COLUMNS: '120' } });
    expect(piped.code).toBe(0);
    expect(piped.stdout).not.toMatch(ANSI);
    expect(piped.stdout).toMatch(/^ {4}mobile \(wireless\) +3 +37\.5% +#+$/m);
    for (const line of piped.stdout.split('\n')) expect([...line].length).toBeLessThanOrEqual(120);
    expect((await runCliInProcess(['report', csv], { env: { CLICOLOR_FORCE: '1' } })).stdout).toMatch(ANSI);
    expect((await runCliInProcess(['report', csv], { env: { CLICOLOR_FORCE: '1', NO_COLOR: '1' } })).stdout).not.toMatch(ANSI);
    expect((await runCliInProcess(['report', csv, '--no-color'], { env: { CLICOLOR_FORCE: '1' } })).stdout).not.toMatch(ANSI);
  });

  it('--html writes one page with the same figures; --price adds the cost', async () => {
    const html = join(dir, 'page.html');
    const run = await runCliInProcess(['report', csv, '--html', html, '--as-of', AS_OF, '--price', 'lrn=0.0005,cnam=0.006', '-f', 'json']);
    expect(run.code).toBe(0);
    const r = JSON.parse(run.stdout) as Report;
    expect(r.cost?.total).toBe(0.0455);
    expect(r.cost?.currency).toBe('USD');
    const page = readFileSync(html, 'utf8');
    expect(chartsFromHtml(page)).toEqual(chartsFromJson(r));
    expect(page).not.toContain('<script');
  });

  it('prices from the config (price.<lookup> of the profile, inheriting default) give the cost; --price wins', async () => {
    const config = tempDir('numintel-report-config-');
    writeFileSync(join(config, 'config.json'), JSON.stringify({ profiles: { default: { 'price.lrn': 0.0005 }, bulk: { 'price.cnam': 0.006 } } }), { mode: 0o600 });
    const env = { NUMINTEL_CONFIG_DIR: config };
    const cost = async (args: string[], opts: { env: Record<string, string> } = { env }) => (JSON.parse((await runCliInProcess(['report', csv, '-f', 'json', ...args], opts)).stdout) as Report).cost;
    expect(await cost([])).toEqual(await cost(['--price', 'lrn=0.0005'], { env: {} }));
    expect((await cost(['--profile', 'bulk']))?.total).toBe(0.0455);
    expect((await cost([], { env: { ...env, NUMINTEL_PROFILE: 'bulk' } }))?.total).toBe(0.0455);
    expect(await cost(['--profile', 'bulk', '--price', 'cnam=0'])).toEqual(await cost(['--price', 'lrn=0.0005,cnam=0'], { env: {} }));
    expect(await cost([], { env: {} })).toBeUndefined();
  });

  it('refuses what it cannot read, with exit 2 and the reason', async () => {
    const missing = await runCliInProcess(['report', join(dir, 'nope.csv')]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/cannot read .*nope\.csv: no such file/);
    // An unset shell variable: not "cannot read : it is a directory".
    const unnamed = await runCliInProcess(['report', '']);
    expect(unnamed.code).toBe(2);
    expect(unnamed.stderr).toBe('numintel: report needs the name of an output file (or - for standard input), and was given an empty one\n');
    const other = join(dir, 'other.csv');
    writeFileSync(other, 'name,phone\nA,2015550123\n');
    const notOurs = await runCliInProcess(['report', other]);
    expect(notOurs.code).toBe(2);
    expect(notOurs.stderr).toMatch(/not a numintel output/);
    const page = await runCliInProcess(['report', csv, '--html', join(dir, 'no-such-dir', 'page.html')]);
    expect(page.code).toBe(2);
    expect(page.stderr).toBe(`numintel: cannot write ${join(dir, 'no-such-dir', 'page.html')}: no such directory ${join(dir, 'no-such-dir')}\n`);
    const price = await runCliInProcess(['report', csv, '--price', 'lrn=cheap']);
    expect(price.code).toBe(2);
    expect(price.stderr).toMatch(/invalid price "lrn=cheap" in "lrn=cheap" from --price: not a price/);
  });

  it('a line past 1 MiB (JSON lines, CSV, on a file or a pipe) ends the read with a one-line error, exit 2, the line never held whole', async () => {
    const long = 'x'.repeat(3 << 20);
    const jsonlFile = join(dir, 'long-line.jsonl');
    writeFileSync(jsonlFile, `${readFileSync(join(dir, 'leads.jsonl'), 'utf8').split('\n')[0]}\n{"input":"${long}"}\n`);
    const csvFile = join(dir, 'long-line.csv');
    writeFileSync(csvFile, `${readFileSync(csv, 'utf8').split('\n').slice(0, 3).join('\n')}\n${long}`);
    const runs = [
      [await runCliInProcess(['report', jsonlFile]), 'long-line.jsonl', 2],
      [await runCliInProcess(['report', csvFile]), 'long-line.csv', 4],
      [await runCliInProcess(['report', '-'], { stdin: readFileSync(jsonlFile, 'utf8') }), 'standard input', 2],
    ] as const;
    for (const [run, label, line] of runs) {
      expect(run.code, run.stderr).toBe(2);
      expect(run.stdout).toBe('');
      expect(run.stderr).toMatch(new RegExp(`^numintel: .*${label.replace('.', '\\.')} is not a numintel output: its line ${line} runs on past 1,048,576 characters\n$`));
    }
  });

  it('a CSV or TSV whose last row was cut off mid-write: that row is unreadable, not counted with answers it never had', async () => {
    for (const format of ['csv', 'tsv'] as const) {
      const whole = await written(RECORDS, format, ['lrn', 'cnam', 'trust']);
      const lastRow = whole.trimEnd().split('\n').at(-1)!;
      // Cut inside the last row, a few cells before its end.
      const cut = join(dir, `cut.${format}`);
      writeFileSync(cut, whole.slice(0, whole.trimEnd().length - lastRow.length + Math.floor(lastRow.length / 2)));
      const r = JSON.parse((await runCliInProcess(['report', cut, '-f', 'json', '--as-of', AS_OF])).stdout) as Report;
      expect(r.input.rows, format).toBe(INPUT.rows - 1);
      expect(r.input.unreadable, format).toBe(1);
      // A whole last row without its line end is still a row.
      const unended = join(dir, `unended.${format}`);
      writeFileSync(unended, whole.trimEnd());
      const u = JSON.parse((await runCliInProcess(['report', unended, '-f', 'json', '--as-of', AS_OF])).stdout) as Report;
      expect(u.input, format).toEqual(INPUT);
    }
  });

  it('--as-of takes only a day that exists, written as an ISO date', async () => {
    for (const bad of ['2026-02-30', '2026-13-01', '1', 'yesterday']) {
      const r = await runCliInProcess(['report', csv, '-f', 'json', '--as-of', bad]);
      expect(r.code, bad).toBe(2);
      expect(r.stderr).toContain(`Expected a date such as 2026-01-31, got "${bad}"`);
      expect(r.stdout).toBe('');
    }
    for (const [good, day] of [['2028-02-29', '2028-02-29'], ['2026-01-31T12:00:00Z', '2026-01-31']]) {
      const r = await runCliInProcess(['report', csv, '-f', 'json', '--as-of', good!]);
      expect(r.code, good).toBe(0);
      expect((JSON.parse(r.stdout) as Report).as_of).toContain(day);
    }
  });
});

describe('--report on a lookup run', () => {
  it('enrich against the sandbox: the page holds what `report` finds in the file the run wrote', async () => {
    const out = join(dir, 'contacts.enriched.csv');
    const page = join(dir, 'run.html');
    const run = await runCliInProcess(['enrich', 'samples/contacts.csv', '--sandbox', '--enhanced', '--messaging', '--spam', '-o', out, '-q', '--report', page]);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(4); // the sample holds invalid numbers on purpose
    const r = JSON.parse((await runCliInProcess(['report', out, '-f', 'json'])).stdout) as Report;
    expect(r.input.rows).toBe(24);
    const html = readFileSync(page, 'utf8');
    expect(chartsFromHtml(html)).toEqual(chartsFromJson(r));
    expect(html).toContain('<p>contacts.csv \u00b7 run \u00b7 LRN, CNAM, Trust \u00b7 24 rows');
  });

  it('lrn to JSON lines: the same', async () => {
    const out = join(dir, 'numbers.jsonl');
    const page = join(dir, 'lrn.html');
    const run = await runCliInProcess(['lrn', '-i', 'samples/numbers.txt', '--sandbox', '--enhanced', '-o', out, '-q', '--report', page]);
    expect([0, 4]).toContain(run.code);
    const r = JSON.parse((await runCliInProcess(['report', out, '-f', 'json'])).stdout) as Report;
    expect(r.line_type?.base).toBeGreaterThan(0);
    expect(chartsFromHtml(readFileSync(page, 'utf8'))).toEqual(chartsFromJson(r));
  });

  it('enrich to TSV against a TLS sandbox (the built CLI): report reads the file the run wrote, as its --report page counted it', async () => {
    const sb = await startTlsSandbox();
    try {
      const out = join(dir, 'contacts.enriched.tsv');
      const page = join(dir, 'tsv.html');
      const run = await runCli(['enrich', 'samples/contacts.csv', '--enhanced', '--spam', '-o', out, '-q', '--report', page], { env: sandboxEnv(sb) });
      expect(run.stderr).toBe('');
      expect(run.code).toBe(4); // the sample holds invalid numbers on purpose
      const rep = await runCliInProcess(['report', out, '-f', 'json']);
      expect(rep.stderr).toBe('');
      expect(rep.code).toBe(0);
      const r = JSON.parse(rep.stdout) as Report;
      expect(r.source).toEqual({ name: 'contacts.enriched.tsv', format: 'tsv', lookups: ['lrn', 'cnam', 'trust'] });
      expect(r.input.rows).toBe(24);
      expect(chartsFromHtml(readFileSync(page, 'utf8'))).toEqual(chartsFromJson(r));
    } finally {
      await sb.close();
    }
  });

  it('a run over an empty list (TLS sandbox, the built CLI): its CSV and TSV, header only, report 0 rows as its --report page does', async () => {
    const sb = await startTlsSandbox();
    try {
      const empty = join(dir, 'empty.txt');
      writeFileSync(empty, '');
      for (const ext of ['csv', 'tsv']) {
        const out = join(dir, `empty.out.${ext}`);
        const page = join(dir, `empty.${ext}.html`);
        const run = await runCli(['lrn', '-i', empty, '-o', out, '-q', '--report', page], { env: sandboxEnv(sb) });
        expect(run.code).toBe(0);
        expect(readFileSync(out, 'utf8')).toMatch(/^input.number/);
        const rep = await runCliInProcess(['report', out, '-f', 'json']);
        expect(rep.stderr).toBe('');
        expect(rep.code).toBe(0);
        const r = JSON.parse(rep.stdout) as Report;
        expect(r.input.rows).toBe(0);
        // The header names the lookups that ran, as rows would.
        expect(r.source.lookups).toEqual(['lrn']);
        expect(r.lookups.lrn).toMatchObject({ rows: 0, answered: 0, billed: 0, failed: 0 });
        expect(readFileSync(page, 'utf8')).toContain('data-fact="lrn.billed"');
        expect(chartsFromHtml(readFileSync(page, 'utf8'))).toEqual(chartsFromJson(r));
        const text = await runCliInProcess(['report', out]);
        expect(text.code).toBe(0);
        expect(text.stdout).toContain(' · LRN · 0 rows');
      }
      const enriched = join(dir, 'empty.enriched.csv');
      expect((await runCli(['enrich', '-i', empty, '--lookups', 'cnam,trust', '-o', enriched, '-q'], { env: sandboxEnv(sb) })).code).toBe(0);
      expect((JSON.parse((await runCliInProcess(['report', enriched, '-f', 'json'])).stdout) as Report).source.lookups).toEqual(['cnam', 'trust']);
      // Nothing at all, or JSON lines that are no records, is still refused.
      const blank = join(dir, 'blank.jsonl');
      writeFileSync(blank, '');
      expect((await runCliInProcess(['report', blank])).code).toBe(2);
      const foreign = join(dir, 'foreign.jsonl');
      writeFileSync(foreign, '{"a":1}\n');
      expect((await runCliInProcess(['report', foreign])).code).toBe(2);
    } finally {
      await sb.close();
    }
  });

  it('--fields (TLS sandbox, the built CLI): report reads the CSV, with the figures of the fields written and none made up for the others; --report of a JSON lines run says the same', async () => {
    const sb = await startTlsSandbox();
    try {
      const pages: string[] = [];
      for (const ext of ['csv', 'jsonl']) {
        const out = join(dir, `fields.${ext}`);
        const page = join(dir, `fields.${ext}.html`);
        const run = await runCli(['enrich', 'samples/contacts.csv', '--enhanced', '--fields', 'number,carrier_type,is_spam,error', '-o', out, '-q', '--report', page], { env: sandboxEnv(sb) });
        expect(run.code).toBe(4); // the sample holds invalid numbers on purpose
        pages.push(readFileSync(page, 'utf8'));
      }
      const out = join(dir, 'fields.csv');
      const rep = await runCliInProcess(['report', out, '-f', 'json']);
      expect(rep.stderr).toBe('');
      expect(rep.code).toBe(0);
      const r = JSON.parse(rep.stdout) as Report;
      expect(r.source.lookups).toEqual(['lrn', 'cnam', 'trust']);
      expect(r.input.rows).toBe(24);
      expect(r.line_type?.base).toBe(19);
      // is_spam was written; is_robocall, is_scam and the caller name were not: not shown as 0.
      expect(r.trust?.spam).toBeTypeOf('number');
      expect(r.trust).not.toHaveProperty('robocall');
      expect(r.trust).not.toHaveProperty('scam');
      expect(r.trust).not.toHaveProperty('any_flag');
      expect(r.cnam).not.toHaveProperty('real');
      expect(r.cnam).not.toHaveProperty('placeholder');
      // Only the flag written can put a number on the list.
      expect(Object.keys(r.act_on?.by_reason ?? {})).toEqual(['spam']);
      for (const html of pages) {
        expect(chartsFromHtml(html)).toEqual(chartsFromJson(r));
        expect(html).not.toContain('real name');
        expect(html).not.toContain('any of the three');
      }
      const text = (await runCliInProcess(['report', out])).stdout;
      expect(text).not.toMatch(/robocall|real name|Caller name/);
    } finally {
      await sb.close();
    }
  });

  it('--report - and report --html - are refused (exit 2, nothing sent, no file named "-"): - is standard output elsewhere', async () => {
    const sb = await startTlsSandbox();
    try {
      const cwd = tempDir('numintel-report-dash-');
      const run = await runCli(['lrn', '2015550123', '--report', '-', '-q'], { env: sandboxEnv(sb), cwd });
      expect(run.code).toBe(2);
      expect(run.stdout).toBe('');
      expect(run.stderr).toBe('numintel: --report takes a file name, not - (standard output carries the records or the text report); give the page a file, e.g. --report report.html\n');
      expect((await sandboxStats(sb)).requests.total).toBe(0);
      const rep = await runCliInProcess(['report', csv, '--html', '-'], { cwd });
      expect(rep.code).toBe(2);
      expect(rep.stdout).toBe('');
      expect(rep.stderr).toMatch(/^numintel: --html takes a file name, not -/);
      expect(readdirSync(cwd)).toEqual([]);
    } finally {
      await sb.close();
    }
  });

  it('one number (TLS sandbox, the built CLI): the page and the text say 1 row, 1 number, 1 carrier, not "1 rows"', async () => {
    const sb = await startTlsSandbox();
    try {
      const out = join(dir, 'one.jsonl');
      const page = join(dir, 'one.html');
      const run = await runCli(['enrich', '--enhanced', '--messaging', '-o', out, '-q', '--report', page], { env: sandboxEnv(sb), stdin: '2015550123\n' });
      expect(run.code).toBe(0);
      const text = await runCliInProcess(['report', out]);
      expect(text.code).toBe(0);
      for (const shown of [readFileSync(page, 'utf8'), text.stdout.replace(/\s+/g, ' ')]) {
        expect(shown).toContain('\u00b7 1 row \u00b7');
        expect(shown).toContain('of 1 number with an LRN');
        expect(shown).toContain('1 carrier among 1 number.');
        expect(shown).toContain('of 1 trust answer.');
        expect(shown).not.toMatch(/\b1 (rows|numbers|carriers|states|CNAM answers|trust answers)\b/);
      }
      expect(readFileSync(page, 'utf8')).toContain('Map of numbers by state (1 number;');
    } finally {
      await sb.close();
    }
  });

  it('--report with --price: the page shows what the run cost, as report --price of the file does', async () => {
    const out = join(dir, 'priced.csv');
    const page = join(dir, 'priced.html');
    const run = await runCliInProcess(['enrich', 'samples/contacts.csv', '--sandbox', '--lookups', 'lrn,cnam', '-o', out, '-q', '--report', page, '--price', 'lrn=0.001,cnam=0.01']);
    expect([0, 4]).toContain(run.code);
    const r = JSON.parse((await runCliInProcess(['report', out, '-f', 'json', '--price', 'lrn=0.001,cnam=0.01'])).stdout) as Report;
    expect(r.cost?.total).toBeGreaterThan(0);
    expect(readFileSync(page, 'utf8')).toContain(`data-value="${r.cost?.total}"`);
  });
});

// On a real terminal: util-linux `script` gives the CLI a pseudo-terminal of a set width.

describe.skipIf(!HAS_SCRIPT)('numintel report on a terminal', () => {
  const onTerminal = (env: Record<string, string>) => {
    const command = `stty cols 100; ${JSON.stringify(process.execPath)} ${JSON.stringify(CLI)} report ${JSON.stringify(csv)} --as-of ${AS_OF}`;
    const run = spawnSync('script', ['-qec', command, '/dev/null'], { env: cleanEnv(env), encoding: 'utf8', timeout: 15_000 });
    return run.stdout.replace(/\r/g, '');
  };

  it('block-character bars within the width, colour unless NO_COLOR; # bars and no colour with TERM=dumb', () => {
    const text = onTerminal({ TERM: 'xterm' });
    expect(text).toMatch(ANSI);
    // oxlint-disable-next-line no-control-regex
    const plain = text.replace(/\x1b\[[0-9;]*m/g, '');
    expect(plain).toMatch(/^ {4}mobile \(wireless\) +3 +37\.5% +\u2588+/m);
    for (const line of plain.split('\n')) expect([...line].length).toBeLessThanOrEqual(100);
    expect(onTerminal({ TERM: 'xterm', NO_COLOR: '1' })).not.toMatch(ANSI);
    const dumb = onTerminal({ TERM: 'dumb' });
    expect(dumb).not.toMatch(ANSI);
    expect(dumb).toMatch(/^ {4}mobile \(wireless\) +3 +37\.5% +#+$/m);
  });
});
