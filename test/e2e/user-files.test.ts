// The user's files, with the real CLI against the real sandbox: -i and -o naming one file in any
// spelling, an -o that cannot be written, the format from the extension (TSV read back with a tab
// delimiter), a workbook or archive given as input, a full disk on stdout, and --resume with
// another input. Every refusal: exit 2, one line, no stack trace, the files as they were, and no
// request reached the sandbox.
import { chmodSync, existsSync, linkSync, lstatSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { parse } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import { fileSandbox, sandboxEnv, sandboxStats, startTlsSandbox } from '../support/sandbox.js';
import { hasStackTrace, jsonl, parseCsv, runCli, runCliInProcess, runShell, type CliResult, timeless } from '../support/cli.js';
import { tempDir } from '../support/tmp.js';
import { xlsx, zipOf } from '../pipeline/source/zip-fixture.js';

const ctx = fileSandbox();
const NUMBERS = ['12015550123', '(201) 555-0124', '+1 201 555 0125', '201.555.0126', '12015550127'];
const CSV = `name,phone\n${NUMBERS.map((n, i) => `contact ${i},"${n}"`).join('\n')}\n`;

const requests = async () => (await sandboxStats(ctx.sb)).requests.total;

/** A refusal: exit 2, exactly `lines` lines on stderr (the first matching `message`), no stack trace, nothing on stdout. */
function expectRefused(run: CliResult, message: RegExp, lines = 1): void {
  expect(run.code, run.stderr).toBe(2);
  expect(hasStackTrace(run.stderr), run.stderr).toBe(false);
  const stderr = run.stderr.trimEnd().split('\n');
  expect(stderr, run.stderr).toHaveLength(lines);
  expect(stderr[0]).toMatch(message);
  expect(run.stdout).toBe('');
}

/** Runs `run` and checks the sandbox saw no request meanwhile. */
async function nothingSent(run: () => Promise<CliResult>): Promise<CliResult> {
  const before = await requests();
  const result = await run();
  expect(await requests()).toBe(before);
  return result;
}

describe('-i and -o naming the same file', () => {
  const dir = tempDir('numintel-same-');
  const input = join(dir, 'leads.csv');
  writeFileSync(input, CSV);
  symlinkSync('leads.csv', join(dir, 'link.csv'));
  linkSync(input, join(dir, 'hard.csv'));
  mkdirSync(join(dir, 'sub'));

  it.each([
    ['the same name', ['-i', 'leads.csv', '-o', 'leads.csv']],
    ['./ and a detour through a folder', ['-i', './leads.csv', '-o', 'sub/../leads.csv']],
    ['relative and absolute', ['-i', 'leads.csv', '-o', input]],
    ['a symbolic link as -o', ['-i', 'leads.csv', '-o', 'link.csv']],
    ['a symbolic link as -i', ['-i', 'link.csv', '-o', 'leads.csv']],
    ['a hard link', ['-i', 'hard.csv', '-o', 'leads.csv']],
    ['with --resume', ['-i', 'leads.csv', '-o', './leads.csv', '--resume']],
    ['with an explicit format', ['-i', 'leads.csv', '-o', 'hard.csv', '-f', 'jsonl']],
  ])('%s: exit 2 before anything is written or sent, the input byte-identical', async (_, args) => {
    const run = await nothingSent(() => runCliInProcess(['lrn', ...args], { cwd: dir, env: ctx.env }));
    expectRefused(run, /^numintel: -i and -o name the same file \(.+\); writing the output would destroy the input, so write it to another file$/);
    expect(readFileSync(input, 'utf8')).toBe(CSV);
  });

  it('enrich with the file as its argument', async () => {
    const run = await nothingSent(() => runCliInProcess(['enrich', 'leads.csv', '-o', 'link.csv'], { cwd: dir, env: ctx.env }));
    expectRefused(run, /-i and -o name the same file/);
    expect(readFileSync(input, 'utf8')).toBe(CSV);
  });

  it('standard input redirected from the -o file', async () => {
    const run = await nothingSent(() => runShell('numintel lrn --csv -o leads.csv < hard.csv', { cwd: dir, env: ctx.env }));
    expectRefused(run, /-i and -o name the same file \(leads\.csv\)/);
    expect(readFileSync(input, 'utf8')).toBe(CSV);
  });

  it.each([
    ['-i x >> x', 'numintel lrn -i leads.csv >> link.csv'],
    ['< x >> x', 'numintel lrn --csv < leads.csv >> hard.csv'],
  ])('standard output appending to the input (%s): exit 2, nothing read back or sent', async (_, script) => {
    const run = await nothingSent(() => runShell(script, { cwd: dir, env: ctx.env }));
    expectRefused(run, /^numintel: the input and standard output are the same file; the output would be read back as input, so write it to another file$/);
    expect(readFileSync(input, 'utf8')).toBe(CSV);
  });

  it.each([
    ['/dev/stdin', 'printf "2015550123\\n" | numintel lrn -o /dev/stdin', /^numintel: -o \/dev\/stdin is standard input, which the numbers are read from; the output would be read back as input, so write it to another file$/],
    ['/dev/fd/0', 'printf "2015550123\\n" | numintel lrn -o /dev/fd/0', /^numintel: -o \/dev\/fd\/0 is standard input/],
    ['a link to the stdin pipe', 'ln -sf /dev/stdin to-stdin && printf "2015550123\\n" | numintel lrn -o "$(pwd)/to-stdin"', /^numintel: standard input and -o name the same file \(.+to-stdin\); writing the output would be read back as input, so write it to another file$/],
    ['-i /dev/stdin and -o /dev/stdin', 'printf "2015550123\\n" | numintel lrn -i /dev/stdin -o /dev/stdin', /^numintel: -i and -o name the same file \(\/dev\/stdin\); writing the output would be read back as input/],
    ['--report /dev/stdin', 'printf "2015550123\\n" | numintel lrn --report /dev/stdin', /^numintel: --report \/dev\/stdin is standard input/],
  ])('piped numbers and -o naming standard input (%s): exit 2 at once, nothing read back or sent', async (_, script, says) => {
    const run = await nothingSent(() => runShell(script, { cwd: dir, env: ctx.env, timeoutMs: 10_000 }));
    expectRefused(run, says);
  });

  // An input that cannot be read as CSV (no column holds numbers) would be refused too, but the
  // file it names as its output is the first thing wrong with the command: said before the input is read.
  describe('an input no column of which holds numbers', () => {
    const UNCLEAR = 'name,notes\nalice,"call her, maybe"\nbob,see 2015550123 or, failing that, email\n';
    writeFileSync(join(dir, 'unclear.csv'), UNCLEAR);
    writeFileSync(join(dir, 'unclear.txt'), UNCLEAR);

    it.each([
      ['a .csv', ['-i', 'unclear.csv', '-o', 'unclear.csv']],
      ['a list with stray commas, -f jsonl', ['-i', 'unclear.txt', '-o', './unclear.txt', '-f', 'jsonl']],
    ])('%s as -i and -o: the same-file refusal, not the column one (the built program)', async (_, args) => {
      const run = await nothingSent(() => runCli(['lrn', ...args], { cwd: dir, env: ctx.env }));
      expectRefused(run, /^numintel: -i and -o name the same file \(.+\); writing the output would destroy the input, so write it to another file$/);
      expect(readFileSync(join(dir, args[1]!), 'utf8')).toBe(UNCLEAR);
    });

    it('standard output appending to it: the same-file refusal', async () => {
      const run = await nothingSent(() => runShell('numintel lrn -i unclear.csv >> unclear.csv', { cwd: dir, env: ctx.env }));
      expectRefused(run, /^numintel: the input and standard output are the same file/);
      expect(readFileSync(join(dir, 'unclear.csv'), 'utf8')).toBe(UNCLEAR);
    });
  });

  it('two different files with the same content are not the same file', async () => {
    writeFileSync(join(dir, 'copy.csv'), CSV);
    const run = await runCliInProcess(['lrn', '-i', 'leads.csv', '-o', 'copy.csv'], { cwd: dir, env: ctx.env });
    expect(run.code, run.stderr).toBe(0);
    expect(parseCsv(readFileSync(join(dir, 'copy.csv'), 'utf8'))).toHaveLength(NUMBERS.length + 1);
  });
});

describe('the HTML page of --report and report --html', () => {
  const dir = tempDir('numintel-page-');
  writeFileSync(join(dir, 'leads.csv'), CSV);
  const RECORDS = 'input,number,lrn,lrn_activated_at,error\n2015550123,12015550123,12015550123,,\n';
  writeFileSync(join(dir, 'done.csv'), RECORDS);

  it.each([
    ['the -i file', ['-o', 'out.csv', '--report', 'leads.csv'], /^numintel: -i and --report name the same file \(leads\.csv\); writing the report would destroy the input, so write it to another file$/],
    ['the -o file', ['-o', 'done.csv', '--report', './done.csv'], /^numintel: -o and --report name the same file \(\.\/done\.csv\); the report would replace the records, so write it to another file$/],
    ['a file in a missing directory', ['-o', 'out.csv', '--report', 'no/such/page.html'], /^numintel: cannot write no\/such\/page\.html: no such directory .+no\/such$/],
  ])('--report naming %s: exit 2 before anything is sent or written, the files as they were', async (_, args, message) => {
    const run = await nothingSent(() => runCliInProcess(['lrn', '-i', 'leads.csv', '-q', ...args], { cwd: dir, env: ctx.env }));
    expectRefused(run, message);
    expect(readFileSync(join(dir, 'leads.csv'), 'utf8')).toBe(CSV);
    expect(readFileSync(join(dir, 'done.csv'), 'utf8')).toBe(RECORDS);
    expect(existsSync(join(dir, 'out.csv'))).toBe(false);
  });

  it('report --html naming the file it reports on: exit 2, the file as it was', async () => {
    const run = await runCliInProcess(['report', 'done.csv', '--html', 'done.csv'], { cwd: dir, env: ctx.env });
    expectRefused(run, /^numintel: the input and --html name the same file \(done\.csv\); writing the report would destroy the input, so write it to another file$/);
    expect(readFileSync(join(dir, 'done.csv'), 'utf8')).toBe(RECORDS);
  });
});

describe('an -o that cannot be written', () => {
  const dir = tempDir('numintel-unwritable-');
  writeFileSync(join(dir, 'list.txt'), `${NUMBERS.join('\n')}\n`);
  const readOnly = join(dir, 'read-only');
  mkdirSync(readOnly);
  chmodSync(readOnly, 0o555);

  it.each([
    ['a directory', dir, /^numintel: cannot write .+: it is a directory; give a file name, e.g. -o <directory>\/out\.csv$/],
    ['an empty name (an unset shell variable)', '', /^numintel: -o needs a file name, and was given an empty one$/],
    ['a file in a missing directory', join(dir, 'no', 'such', 'out.csv'), /^numintel: cannot write .+out\.csv: no such directory .+no[/]such$/],
    ['a file under a file', join(dir, 'list.txt', 'out.csv'), /^numintel: cannot write .+: .+ is not a directory$/],
    // No one may create files in /sys, not even root (who ignores permission bits): the permission
    // case that holds whoever runs the suite. Read-only where /sys is mounted so (containers).
    ['a file nobody may create', '/sys/numintel-out.csv', /^numintel: cannot write \/sys\/numintel-out\.csv: (permission denied|read-only file system)\b/],
  ])('%s: exit 2 with one line, nothing sent', async (_, out, message) => {
    const run = await nothingSent(() => runCliInProcess(['lrn', '-i', 'list.txt', '-o', out], { cwd: dir, env: ctx.env }));
    expectRefused(run, message);
  });

  it('-i with an empty name: exit 2 with one line, nothing sent', async () => {
    const run = await nothingSent(() => runCliInProcess(['lrn', '-i', '', '-o', 'out.csv'], { cwd: dir, env: ctx.env }));
    expectRefused(run, /^numintel: -i needs a file name \(or - for standard input\), and was given an empty one$/);
  });

  // Root ignores permission bits, so a read-only directory only refuses other users: skipped as root.
  it.skipIf(process.getuid?.() === 0)('a file in a read-only directory: exit 2 with one line, nothing sent', async () => {
    const run = await nothingSent(() => runCliInProcess(['lrn', '-i', 'list.txt', '-o', join(readOnly, 'out.csv')], { cwd: dir, env: ctx.env }));
    expectRefused(run, /^numintel: cannot write .+out\.csv: permission denied \(cannot create files in .+read-only\)$/);
  });

  it.skipIf(!existsSync('/dev/full'))('a full disk while writing the -o file: one line naming it, exit 2', async () => {
    const run = await runCliInProcess(['lrn', '-i', 'list.txt', '-o', '/dev/full', '-q'], { cwd: dir, env: ctx.env });
    expectRefused(run, /^numintel: cannot write \/dev\/full: no space left on device \(ENOSPC\)$/);
  });
});

describe('a setup error leaves the -o file of an earlier run as it was', () => {
  const dir = tempDir('numintel-setup-keeps-');
  writeFileSync(join(dir, 'list.txt'), `${NUMBERS.join('\n')}\n`);
  const earlier = 'input,number,lrn,lrn_activated_at,error\n12015550123,12015550123,12015550123,,\n';

  it.each([
    ['no API key', ['enrich', '--lookups', 'lrn,cnam'], { NUMINTEL_API_KEY: undefined }, /^numintel: no API key configured$/, 2],
    ['no base URL', ['lrn'], { NUMINTEL_BASE_URL: undefined }, /^numintel: no base URL configured$/, 2],
    ['the key bound for plain http:// elsewhere than loopback', ['trust'], { NUMINTEL_BASE_URL: 'http://api.example.com' }, /^numintel: refusing to send the API key over plain http:\/\/ to api\.example\.com/, 2],
    ['an unreadable CA file', ['lrn'], { NUMINTEL_CA_FILE: join(dir, 'no-such.pem') }, /^numintel: cannot read the CA file .+no-such\.pem \(NUMINTEL_CA_FILE\): no such file/, 1],
    ['--max-spend without a price', ['cnam', '--max-spend', '1'], {}, /^numintel: --max-spend needs the price of every lookup of the run; none for cnam$/, 2],
    ['a --price that is no price', ['lrn', '--price', 'lrn=abc'], {}, /^numintel: invalid price "lrn=abc"/, 2],
  ])('%s: exit 2, the file byte-identical, nothing sent', async (_, command, env, message, lines) => {
    const out = join(dir, 'out.csv');
    writeFileSync(out, earlier);
    const run = await nothingSent(() => runCliInProcess([...command, '-i', 'list.txt', '-o', 'out.csv'], { cwd: dir, env: { ...ctx.env, ...env } }));
    expectRefused(run, message, lines);
    expect(readFileSync(out, 'utf8')).toBe(earlier);
  });
});

describe('a full disk on standard output', () => {
  it.skipIf(!existsSync('/dev/full')).each([
    ['one number', 'numintel lrn 12015550123 > /dev/full'],
    ['a bulk run', `printf '${NUMBERS.join('\\n')}\\n' | numintel lrn -q --concurrency 2 > /dev/full`],
    ['CSV', `printf '${NUMBERS.join('\\n')}\\n' | numintel trust -f csv -q > /dev/full`],
  ])('%s: one line on stderr, exit 2, no stack trace', async (_, script) => {
    const run = await runShell(script, { env: ctx.env });
    expect(run.stderr).toBe('numintel: cannot write to standard output: no space left on device (ENOSPC)\n');
    expect(run.code).toBe(2);
  });
});

describe('the output format from the -o extension', () => {
  const dir = tempDir('numintel-ext-');
  writeFileSync(join(dir, 'list.txt'), `${NUMBERS.join('\n')}\n`);
  writeFileSync(join(dir, 'leads.csv'), CSV);

  it('csv, tsv, json, jsonl and ndjson (any case) each as its name says, TSV with the CSV columns', async () => {
    const out = (name: string) => readFileSync(join(dir, name), 'utf8');
    const names = ['o.csv', 'o.tsv', 'o.json', 'o.jsonl', 'o.ndjson', 'O.TSV', 'o.Json'];
    const runs = await Promise.all(names.map((name) => runCliInProcess(['lrn', '-i', 'leads.csv', '-o', name, '-q'], { cwd: dir, env: ctx.env })));
    for (const [i, run] of runs.entries()) expect(run.code, `${names[i]}: ${run.stderr}`).toBe(0);
    const csv = parseCsv(out('o.csv'));
    expect(csv[0]).toEqual(['name', 'phone', 'number', 'lrn', 'lrn_activated_at', 'error']);
    expect(csv).toHaveLength(NUMBERS.length + 1);
    for (const tsv of ['o.tsv', 'O.TSV']) {
      expect(out(tsv)).toContain('\t');
      expect(parse(out(tsv), { delimiter: '\t', relax_column_count: false })).toEqual(csv);
    }
    const records = jsonl(timeless(out('o.jsonl')));
    expect(records.map((r) => r.input)).toEqual(NUMBERS);
    expect(jsonl(timeless(out('o.ndjson')))).toEqual(records);
    expect(JSON.parse(timeless(out('o.json')))).toEqual(records);
    expect(JSON.parse(timeless(out('o.Json')))).toEqual(records);
  });

  it('-f tsv on stdout is the same TSV', async () => {
    const run = await runCliInProcess(['lrn', '-i', 'leads.csv', '-f', 'tsv', '-q'], { cwd: dir, env: ctx.env });
    expect(run.code, run.stderr).toBe(0);
    expect(timeless(run.stdout)).toBe(timeless(readFileSync(join(dir, 'o.tsv'), 'utf8')));
  });

  it('a TSV output is a TSV input: read back, the same rows and columns plus the new ones', async () => {
    const run = await runCliInProcess(['cnam', '-i', 'o.tsv', '-o', 'again.tsv', '-q'], { cwd: dir, env: ctx.env });
    expect(run.code, run.stderr).toBe(0);
    const again = parse(readFileSync(join(dir, 'again.tsv'), 'utf8'), { delimiter: '\t' }) as string[][];
    expect(again[0]).toEqual(['name', 'phone', 'number', 'lrn', 'lrn_activated_at', 'error', 'numintel_number', 'cnam_number', 'cnam', 'numintel_error']);
    expect(again).toHaveLength(NUMBERS.length + 1);
  });

  it.each(['out.xls', 'out.txt', 'out.csv.gz'])('%s without -f: exit 2 naming the known extensions and -f, no file, nothing sent', async (name) => {
    const run = await nothingSent(() => runCliInProcess(['lrn', '-i', 'list.txt', '-o', name], { cwd: dir, env: ctx.env }));
    expectRefused(run, /^numintel: cannot tell the output format of .+: numintel writes \.csv \.tsv \.json \.jsonl \.ndjson \.xlsx files, not \.\w+; rename it, or give the format with -f \(table, json, jsonl, csv, tsv, xlsx\)$/);
    expect(existsSync(join(dir, name))).toBe(false);
  });

  it('an unknown extension with -f writes that format', async () => {
    const run = await runCliInProcess(['lrn', '-i', 'list.txt', '-o', 'out.txt', '-f', 'csv', '-q'], { cwd: dir, env: ctx.env });
    expect(run.code, run.stderr).toBe(0);
    expect(parseCsv(readFileSync(join(dir, 'out.txt'), 'utf8'))[0]).toEqual(['input', 'number', 'lrn', 'lrn_activated_at', 'error']);
  });
});

describe('an input that is no text', () => {
  const dir = tempDir('numintel-binary-');
  writeFileSync(join(dir, 'leads.xlsx'), xlsx());
  writeFileSync(join(dir, 'leads.zip'), zipOf({ 'leads.csv': CSV }));
  writeFileSync(join(dir, 'leads.csv.gz'), gzipSync(CSV));
  writeFileSync(join(dir, 'leads.csv'), xlsx()); // a workbook with the wrong name

  it.each([
    // Real workbooks are read (test/e2e/xlsx.test.ts); these are ZIPs with a workbook's names only.
    ['a damaged XLSX workbook', ['-i', 'leads.xlsx'], /^numintel: cannot read leads\.xlsx as an Excel workbook: /, 2],
    ['a damaged XLSX named .csv', ['-i', 'leads.csv'], /^numintel: cannot read leads\.csv as an Excel workbook: /, 2],
    ['a ZIP archive', ['-i', 'leads.zip'], /^numintel: cannot read leads\.zip: it looks like a ZIP archive; extract the CSV or list inside and pass that$/],
    ['a gzip file', ['-i', 'leads.csv.gz'], /^numintel: cannot read leads\.csv\.gz: it looks like a gzip-compressed file; decompress it first/],
  ] as [string, string[], RegExp, number?][])('%s: exit 2 saying what to do, nothing sent', async (_, args, message, lines) => {
    const run = await nothingSent(() => runCliInProcess(['lrn', ...args], { cwd: dir, env: ctx.env }));
    expectRefused(run, message, lines);
    if (lines === 2) expect(run.stderr).toContain('save it again from Excel as .xlsx, or as CSV UTF-8');
  });

  it('an XLSX on standard input', async () => {
    const run = await nothingSent(() => runShell('numintel enrich < leads.xlsx', { cwd: dir, env: ctx.env }));
    expectRefused(run, /^numintel: cannot read standard input: it looks like an Excel workbook \(XLSX\)/);
  });

  it('UTF-16 text with a byte-order mark (Excel "Unicode Text") is read like UTF-8', async () => {
    writeFileSync(join(dir, 'unicode.txt'), Buffer.from(`\ufeff${CSV.replaceAll(',', '\t')}`, 'utf16le'));
    const run = await runCliInProcess(['lrn', '-i', 'unicode.txt', '-f', 'jsonl', '-q'], { cwd: dir, env: ctx.env });
    expect(run.code, run.stderr).toBe(0);
    expect(jsonl(run.stdout).map((r) => [r.input, (r.row as Record<string, string>).name])).toEqual(NUMBERS.map((n, i) => [n, `contact ${i}`]));
  });
});

describe('--resume with the rows of another input', () => {
  const dir = tempDir('numintel-resume-input-');
  const OTHER = [...NUMBERS.slice(0, 2), '(201) 555-0199', ...NUMBERS.slice(3)];
  writeFileSync(join(dir, 'a.txt'), `${NUMBERS.join('\n')}\n`);
  writeFileSync(join(dir, 'b.txt'), `${OTHER.join('\n')}\n`);
  writeFileSync(join(dir, 'short.txt'), `${NUMBERS.slice(0, 2).join('\n')}\n`);
  writeFileSync(join(dir, 'a.csv'), CSV);
  writeFileSync(join(dir, 'b.csv'), CSV.replace('contact 1', 'someone else'));

  /** The whole output of `input`, and the file an interrupted run left: its first `rows` rows. */
  async function interrupted(input: string, out: string, rows: number): Promise<string> {
    const full = await runCliInProcess(['lrn', '-i', input, '-o', `full-${out}`, '-q'], { cwd: dir, env: ctx.env });
    expect(full.code, full.stderr).toBe(0);
    const whole = readFileSync(join(dir, `full-${out}`), 'utf8');
    const header = out.endsWith('.jsonl') ? 0 : 1;
    writeFileSync(join(dir, out), `${whole.split('\n').slice(0, rows + header).join('\n')}\n`);
    return whole;
  }

  it.each([
    ['a list, csv output', 'a.txt', 'b.txt', 'list.csv', /its row 3 was written for "\+1 201 555 0125", but row 3 of the input is "\(201\) 555-0199"/],
    ['a list, tsv output', 'a.txt', 'b.txt', 'list.tsv', /its row 3 was written for "\+1 201 555 0125"/],
    ['a list, jsonl output', 'a.txt', 'b.txt', 'list.jsonl', /its row 3 was written for "\+1 201 555 0125"/],
    ['a CSV, csv output', 'a.csv', 'b.csv', 'rows.csv', /its row 2 was written for "contact 1,\(201\) 555-0124", but row 2 of the input is "someone else,\(201\) 555-0124"/],
    ['a CSV, jsonl output', 'a.csv', 'b.csv', 'rows.jsonl', /its row 2 was written for "contact 1,/],
  ])('%s: another input is refused (exit 2, first differing row named), file byte-identical; the right one resumes', async (_, right, wrong, out, message) => {
    const whole = await interrupted(right, out, 3);
    const before = readFileSync(join(dir, out));
    const refused = await nothingSent(() => runCliInProcess(['lrn', '-i', wrong, '-o', out, '--resume'], { cwd: dir, env: ctx.env }));
    expectRefused(refused, new RegExp(`^numintel: cannot resume ${out.replace('.', '\\.')}: ${message.source}`), 2);
    expect(refused.stderr).toMatch(/\nresume with the input of the interrupted run, or write to a new file\n$/);
    expect(readFileSync(join(dir, out)).equals(before)).toBe(true);

    const sent = await requests();
    const resumed = await runCliInProcess(['lrn', '-i', right, '-o', out, '--resume', '-q'], { cwd: dir, env: ctx.env });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(timeless(readFileSync(join(dir, out), 'utf8'))).toBe(timeless(whole));
    // Only the rows the file did not hold were looked up.
    expect((await requests()) - sent).toBe(NUMBERS.length - 3);
  });

  it.each([
    ['a csv file', 'other.csv', 'csv'],
    ['a json array', 'other.json', 'json'],
  ])('-f jsonl resuming %s: exit 2, file byte-identical (its rows are not overwritten and paid again)', async (_, out, format) => {
    const written = await runCliInProcess(['lrn', '-i', 'a.txt', '-o', out, '-f', format, '-q'], { cwd: dir, env: ctx.env });
    expect(written.code, written.stderr).toBe(0);
    const before = readFileSync(join(dir, out));
    const run = await nothingSent(() => runCliInProcess(['lrn', '-i', 'a.txt', '-o', out, '-f', 'jsonl', '--resume'], { cwd: dir, env: ctx.env }));
    expectRefused(run, new RegExp(`^numintel: cannot resume ${out.replace('.', '\\.')}: its records differ from what this command writes$`), 2);
    expect(readFileSync(join(dir, out)).equals(before)).toBe(true);
  });

  it.each([
    ['--fields added', [], ['--fields', 'input,lrn']],
    ['--fields changed', ['--fields', 'input,lrn'], ['--fields', 'input,lrn_activated_at']],
    ['--fields reordered', ['--fields', 'input,lrn,lrn_activated_at'], ['--fields', 'input,lrn_activated_at,lrn']],
    ['another sub-field of --enhanced', ['--enhanced', '--fields', 'input,lrn,carrier'], ['--enhanced', '--fields', 'input,lrn,state']],
  ])('csv resumed with %s: exit 2, file byte-identical (rows of two shapes are never mixed in one file)', async (_, before, after) => {
    const out = `fields-${before.join('')}-${after.join('')}.csv`.replaceAll(',', '_');
    const first = await runCliInProcess(['lrn', '-i', 'a.txt', '-o', out, '--max-lookups', '2', '-q', ...before], { cwd: dir, env: ctx.env });
    expect(first.code, first.stderr).toBe(5);
    const written = readFileSync(join(dir, out));
    const run = await nothingSent(() => runCliInProcess(['lrn', '-i', 'a.txt', '-o', out, '--resume', ...after], { cwd: dir, env: ctx.env }));
    expectRefused(run, new RegExp(`^numintel: cannot resume ${out.replace('.', '\\.')}: its columns differ from what this command writes$`), 2);
    expect(readFileSync(join(dir, out)).equals(written)).toBe(true);
    const same = await runCliInProcess(['lrn', '-i', 'a.txt', '-o', out, '--resume', '-q', ...before], { cwd: dir, env: ctx.env });
    expect(same.code, same.stderr).toBe(0);
    expect(readFileSync(join(dir, out), 'utf8').trim().split('\n')).toHaveLength(NUMBERS.length + 1);
  });

  it.each([
    ['--fields added', [], ['--fields', 'input,lrn']],
    ['--fields changed', ['--fields', 'input,lrn'], ['--fields', 'input,lrn_activated_at']],
    ['--fields reordered', ['--fields', 'input,lrn,error'], ['--fields', 'lrn,input,error']],
    ['--fields dropped', ['--fields', 'input,lrn'], []],
  ])('jsonl resumed with %s: exit 2, file byte-identical (records of two shapes are never mixed in one file)', async (_, before, after) => {
    const out = `flat-${before.join('')}-${after.join('')}.jsonl`.replaceAll(',', '_');
    const first = await runCliInProcess(['lrn', '-i', 'a.txt', '-o', out, '--max-lookups', '2', '-q', ...before], { cwd: dir, env: ctx.env });
    expect(first.code, first.stderr).toBe(5);
    const written = readFileSync(join(dir, out));
    const run = await nothingSent(() => runCliInProcess(['lrn', '-i', 'a.txt', '-o', out, '--resume', ...after], { cwd: dir, env: ctx.env }));
    expectRefused(run, new RegExp(`^numintel: cannot resume ${out.replace('.', '\\.')}: its records differ from what this command writes$`), 2);
    expect(readFileSync(join(dir, out)).equals(written)).toBe(true);
    const same = await runCliInProcess(['lrn', '-i', 'a.txt', '-o', out, '--resume', '-q', ...before], { cwd: dir, env: ctx.env });
    expect(same.code, same.stderr).toBe(0);
    expect(jsonl(readFileSync(join(dir, out), 'utf8'))).toHaveLength(NUMBERS.length);
  });

  it('jsonl whose records lack a field the service left out (a nullable one) resumes: a missing field is not another --fields', async () => {
    const out = 'omitted-field.jsonl';
    const first = await runCliInProcess(['lrn', '-i', 'a.txt', '-o', out, '--max-lookups', '2', '-q'], { cwd: dir, env: ctx.env });
    expect(first.code, first.stderr).toBe(5);
    // As a service that sends no lrn_activated_at (nullable by the description) would have written it.
    const records = jsonl(readFileSync(join(dir, out), 'utf8')).map((r) => {
      const result = r.result as Record<string, unknown> | null;
      if (result) delete result.lrn_activated_at;
      return r;
    });
    expect(records.some((r) => r.ok === true)).toBe(true);
    writeFileSync(join(dir, out), records.map((r) => `${JSON.stringify(r)}\n`).join(''));
    const resumed = await runCliInProcess(['lrn', '-i', 'a.txt', '-o', out, '--resume', '-q'], { cwd: dir, env: ctx.env });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(jsonl(readFileSync(join(dir, out), 'utf8')).map((r) => r.input)).toEqual(NUMBERS);
  });

  it('a file with more rows than the input: exit 2, file byte-identical', async () => {
    await interrupted('a.txt', 'long.jsonl', NUMBERS.length);
    const before = readFileSync(join(dir, 'long.jsonl'));
    const run = await nothingSent(() => runCliInProcess(['lrn', '-i', 'short.txt', '-o', 'long.jsonl', '--resume'], { cwd: dir, env: ctx.env }));
    expectRefused(run, /^numintel: cannot resume long\.jsonl: it holds 5 rows, but the input has only 2$/, 2);
    expect(readFileSync(join(dir, 'long.jsonl')).equals(before)).toBe(true);
  });
});

describe('an -o file that already holds records', () => {
  const OLD = 'name,phone,lrn\nlast week,12015550100,12015550100\n';
  /** A folder with the input and an earlier output (mode 0600) in it. */
  const folder = (name: string) => {
    const dir = tempDir(`numintel-${name}-`);
    writeFileSync(join(dir, 'leads.csv'), CSV);
    writeFileSync(join(dir, 'out.csv'), OLD, { mode: 0o600 });
    return dir;
  };

  it('a run refused at its first request (a wrong key, over HTTPS) leaves it byte-identical, with nothing beside it', async () => {
    const sb = await startTlsSandbox();
    try {
      const dir = folder('refused');
      const run = await runCli(['lrn', '-i', 'leads.csv', '-o', 'out.csv'], { cwd: dir, env: sandboxEnv(sb, { NUMINTEL_API_KEY: 'sk-wrong-0000' }) });
      expect(run.code, run.stderr).toBe(3);
      expect((await sandboxStats(sb)).requests.total).toBeGreaterThan(0);
      // Not --resume: that would continue the earlier file, which holds another run's rows.
      expect(run.stderr).toMatch(/run the same command again \(out\.csv is as it was\)/);
      expect(run.stderr).not.toMatch(/--resume/);
      expect(readFileSync(join(dir, 'out.csv'), 'utf8')).toBe(OLD);
      expect(readdirSync(dir).sort()).toEqual(['leads.csv', 'out.csv']);
    } finally {
      await sb.close();
    }
  });

  it('a run with records replaces it, keeping its permissions, with nothing left beside it', async () => {
    const dir = folder('kept');
    const run = await runCliInProcess(['lrn', '-i', 'leads.csv', '-o', 'out.csv', '-q'], { cwd: dir, env: ctx.env });
    expect(run.code, run.stderr).toBe(0);
    const rows = parse(readFileSync(join(dir, 'out.csv'), 'utf8'), { columns: true }) as Record<string, string>[];
    expect(rows.map((r) => r.name)).toEqual(NUMBERS.map((_, i) => `contact ${i}`));
    expect(statSync(join(dir, 'out.csv')).mode & 0o777).toBe(0o600);
    expect(readdirSync(dir).sort()).toEqual(['leads.csv', 'out.csv']);
  });

  it('through a symbolic link: the file it points to is replaced, the link stays a link', async () => {
    const dir = folder('linked');
    mkdirSync(join(dir, 'real'));
    writeFileSync(join(dir, 'real', 'target.csv'), OLD);
    symlinkSync(join('real', 'target.csv'), join(dir, 'link.csv'));
    const run = await runCliInProcess(['lrn', '-i', 'leads.csv', '-o', 'link.csv', '-q'], { cwd: dir, env: ctx.env });
    expect(run.code, run.stderr).toBe(0);
    expect(lstatSync(join(dir, 'link.csv')).isSymbolicLink()).toBe(true);
    expect(parse(readFileSync(join(dir, 'real', 'target.csv'), 'utf8'), { columns: true })).toHaveLength(NUMBERS.length);
    expect(readdirSync(join(dir, 'real'))).toEqual(['target.csv']);
  });

  it('an empty input still replaces it with the header alone, as the run asked', async () => {
    const dir = folder('empty');
    writeFileSync(join(dir, 'none.csv'), 'name,phone\n');
    const run = await runCliInProcess(['lrn', '-i', 'none.csv', '-o', 'out.csv', '-q'], { cwd: dir, env: ctx.env });
    expect(run.code, run.stderr).toBe(0);
    expect(readFileSync(join(dir, 'out.csv'), 'utf8')).not.toBe(OLD);
    expect(readFileSync(join(dir, 'out.csv'), 'utf8').split('\n')[0]).toMatch(/^name,phone,/);
  });
});
