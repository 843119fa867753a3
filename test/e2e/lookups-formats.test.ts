// The output formats of the lookup commands end to end: json, jsonl, csv, table (piped and on a
// terminal), -o files, and input order kept; values compared with the sandbox's direct REST answers.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import stringWidth from 'string-width';
import { describe, expect, it } from 'vitest';
import { startSandbox } from '../../src/sandbox/index.js';
import { LOOKUP_CASES as CASES, flattenResult as flatten, restResult } from './harness.js';
import { HAS_SCRIPT, CLI, jsonl, parseCsv, runCli, runCliInProcess, runShell, timeless } from '../support/cli.js';
import { fileSandbox, sandboxEnv } from '../support/sandbox.js';
import { tempDir } from '../support/tmp.js';

const NUMBERS = ['12015550123', '13125550188', '14155550142'];

const ctx = fileSandbox();

describe('formats', () => {
  it('-f json is one valid array of the jsonl records, and [] for no input', async () => {
    const [json, lines, empty] = await Promise.all([
      runCliInProcess(['cnam', '--spam', '-f', 'json', ...NUMBERS, '123'], { env: ctx.env }),
      runCliInProcess(['cnam', '--spam', ...NUMBERS, '123'], { env: ctx.env }),
      runCliInProcess(['cnam', '-f', 'json'], { env: ctx.env, stdin: '' }),
    ]);
    expect(json.code).toBe(4);
    const parsed = JSON.parse(timeless(json.stdout)) as unknown;
    expect(parsed).toEqual(jsonl(timeless(lines.stdout)));
    expect(empty.code).toBe(0);
    expect(JSON.parse(empty.stdout)).toEqual([]);
  });

  it('-f csv: a header that depends only on command and options, flattened results, `code: message` errors', async () => {
    const invalidOnly = [CASES[3]!, CASES[5]!, CASES[6]!];
    const [runs, bad, invalid] = await Promise.all([
      Promise.all(CASES.map((c) => runCliInProcess([c.kind, ...c.flags, '-f', 'csv', ...NUMBERS, '123'], { env: ctx.env }))),
      Promise.all(invalidOnly.map((c) => runCliInProcess([c.kind, ...c.flags, '-f', 'csv', '123'], { env: ctx.env }))),
      runCliInProcess(['lrn', '123'], { env: ctx.env }),
    ]);
    const message = (jsonl(invalid.stdout)[0]!.error as { message: string }).message;
    for (const [i, c] of CASES.entries()) {
      const rows = parseCsv(runs[i]!.stdout);
      const header = rows[0]!;
      const expected = flatten(c.kind, await restResult(ctx.sb, c.kind, NUMBERS[0]!, c.opts));
      expect(header).toEqual(['input', 'number', ...Object.keys(expected), 'error']);
      const j = invalidOnly.indexOf(c);
      if (j >= 0) expect(parseCsv(bad[j]!.stdout)[0]).toEqual(header);
      if (c.opts.messaging) expect(header.filter((h) => h.startsWith('messaging_'))).toHaveLength(5);
      for (const [k, n] of NUMBERS.entries()) {
        const cells = Object.fromEntries(header.map((h, m) => [h, rows[k + 1]![m]]));
        expect(cells).toEqual({ input: n, number: n, ...flatten(c.kind, await restResult(ctx.sb, c.kind, n, c.opts)), error: '' });
      }
      const last = rows[NUMBERS.length + 1]!;
      expect(last[0]).toBe('123');
      expect(last.slice(1, -1).every((cell) => cell === '')).toBe(true);
      expect(last.at(-1)).toBe(`invalid_number: ${message}`);
    }
  });

  it('CSV leaves normal service values alone (a timezone like -0500 stays a value), with or without --raw-csv', async () => {
    const args = ['lrn', '--enhanced', '-f', 'csv', ...NUMBERS];
    const [safe, raw] = await Promise.all([runCliInProcess(args, { env: ctx.env }), runCliInProcess([...args, '--raw-csv'], { env: ctx.env })]);
    expect(raw.code).toBe(0);
    expect(timeless(raw.stdout)).toBe(timeless(safe.stdout));
    const rows = parseCsv(safe.stdout);
    const tz = rows[0]!.indexOf('timezone');
    for (const row of rows.slice(1)) expect(row[tz]).toMatch(/^[+-]\d{4}$/);
  });

  it('-f table is readable, plain unless CLICOLOR_FORCE=1, and NO_COLOR / --no-color win', async () => {
    const args = ['lrn', '-f', 'table', NUMBERS[0]!, '123'];
    const [plain, forced, noColor, flag] = await Promise.all([
      // Wide enough for every field beside the input and the status.
      runCliInProcess(args, { env: { ...ctx.env, COLUMNS: '120' } }),
      runCliInProcess(args, { env: { ...ctx.env, CLICOLOR_FORCE: '1' } }),
      runCliInProcess(args, { env: { ...ctx.env, CLICOLOR_FORCE: '1', NO_COLOR: '1' } }),
      runCliInProcess([...args, '--no-color'], { env: { ...ctx.env, CLICOLOR_FORCE: '1' } }),
    ]);
    expect(plain.code).toBe(4);
    expect(plain.stdout).not.toContain('\x1b');
    expect(forced.stdout).toContain('\x1b[');
    expect(noColor.stdout).not.toContain('\x1b');
    expect(flag.stdout).not.toContain('\x1b');
    const result = await restResult(ctx.sb, 'lrn', NUMBERS[0]!);
    for (const text of [NUMBERS[0]!, String(result.lrn), String(result.lrn_activated_at), 'activated', 'invalid_number']) {
      expect(plain.stdout).toContain(text);
    }
    // Every line of the table is a line of the box, nothing else mixed in; under it, the whole
    // text of each status cut to fit its column.
    const shown = plain.stdout.trimEnd().split('\n');
    const end = shown.findIndex((line) => line.startsWith('└'));
    for (const line of shown.slice(0, end + 1)) expect(line).toMatch(/^[┌├│└].*[┐┤│┘]$/);
    for (const line of shown.slice(end + 1)) expect(line).toMatch(/^\S.*: invalid_number: /);
    // The summary and progress never go to stdout.
    expect(plain.stdout).not.toMatch(/rows:|lookups sent/);
  });

  it('-f table from the built program: cells of plain ASCII, colour codes and wide characters alike shown whole, the box aligned', async () => {
    // In the bundle cli-table3 measures with the program's textWidth (scripts/build.js).
    const r = await runCli(['lrn', '-f', 'table', NUMBERS[0]!, '２０１５５５５０１２４', 'café 2015550125'], { env: { ...ctx.env, CLICOLOR_FORCE: '1' } });
    expect(r.code).toBe(4);
    expect(r.stdout).toContain('\x1b[');
    const boxes = r.stdout.slice(0, r.stdout.lastIndexOf('┘') + 1).split(/\n(?=\S*┌)/);
    expect(boxes.length).toBeGreaterThanOrEqual(1);
    for (const box of boxes) {
      const widths = new Set(box.split('\n').map((line) => stringWidth(line)));
      expect(widths.size, box).toBe(1);
    }
    expect(r.stdout).toContain('café 2015550125');
    // Measured as the box measures it, the wide one fits whole.
    expect(r.stdout).toContain('２０１５５５５０１２４');
  });

  // util-linux `script` gives the CLI a terminal (stdout and stderr on one pty, as a user sees them).
  it.skipIf(!HAS_SCRIPT)('on a terminal: a table by default, the progress line erased before it is drawn', async () => {
    const cli = `"${process.execPath}" "${CLI}" lrn ${NUMBERS.join(' ')}`;
    const run = await runShell(`script -qec 'stty cols 120 rows 40 2>/dev/null; exec ${cli}' /dev/null`, { env: ctx.env });
    expect(run.code, run.stdout + run.stderr).toBe(0);
    // What the terminal shows once carriage returns and erase-line have done their work.
    const shown = run.stdout
      .replace(/\r\n/g, '\n')
      .split('\n')
      // oxlint-disable-next-line no-control-regex -- terminal output is what is being read
      .map((line) => line.split(/\r|\x1b\[K/).at(-1)!.replace(/\x1b\[[0-9;]*m/g, ''))
      .filter((line) => line.trim() !== '');
    expect(shown[0], JSON.stringify(run.stdout.slice(0, 400))).toMatch(/^┌─/);
    const end = shown.findIndex((line) => line.startsWith('└─'));
    for (const line of shown.slice(0, end + 1)) expect(line).toMatch(/^[┌├│└].*[┐┤│┘]$/);
    expect(shown.some((line) => line.includes(NUMBERS[2]!))).toBe(true);
    // Then the summary (stderr), after the table.
    expect(shown[end + 1]).toMatch(/^rows: 3\b/);
    expect(run.stdout).toContain('\x1b[');
  });

  it('-o <file>: nothing on stdout, format from the extension unless -f says otherwise', async () => {
    const dir = tempDir();
    const path = (name: string) => join(dir, name);
    const runs = await Promise.all([
      runCliInProcess(['lrn', ...NUMBERS, '-o', path('out.csv')], { env: ctx.env }),
      runCliInProcess(['lrn', ...NUMBERS, '-o', path('out.json')], { env: ctx.env }),
      runCliInProcess(['lrn', ...NUMBERS, '-o', path('out.jsonl')], { env: ctx.env }),
      runCliInProcess(['lrn', ...NUMBERS, '-o', path('other.csv'), '-f', 'jsonl'], { env: ctx.env }),
      runCliInProcess(['lrn', ...NUMBERS], { env: ctx.env }),
    ]);
    for (const run of runs) expect(run.code, run.stderr).toBe(0);
    for (const run of runs.slice(0, 4)) expect(run.stdout).toBe('');
    const read = (name: string) => readFileSync(path(name), 'utf8');
    const expected = jsonl(timeless(runs[4]!.stdout));
    expect(parseCsv(read('out.csv')).slice(1).map((r) => r.slice(0, 3))).toEqual(
      expected.map((r) => [r.input, r.number, (r.result as { lrn: string }).lrn]),
    );
    expect(JSON.parse(timeless(read('out.json')))).toEqual(expected);
    expect(jsonl(timeless(read('out.jsonl')))).toEqual(expected);
    expect(jsonl(timeless(read('other.csv')))).toEqual(expected);
  });

  it('output order is input order even when answers arrive out of order', async () => {
    const own = await startSandbox({ port: 0, jitterMs: 40 });
    try {
      const numbers = Array.from({ length: 40 }, (_, i) => `1212555${String(1000 + i * 37).padStart(4, '0')}`).reverse();
      const run = await runCliInProcess(['cnam', '--concurrency', '16', '-i', '-'], { env: sandboxEnv(own), stdin: numbers.join('\n') });
      expect(run.code, run.stderr).toBe(0);
      expect(jsonl(run.stdout).map((r) => r.input)).toEqual(numbers);
    } finally {
      await own.close();
    }
  });
});
