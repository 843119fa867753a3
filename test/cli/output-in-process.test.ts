// The run function in-process against the built-in sandbox (`--sandbox`): the default output format
// and colour from the terminal and environment, table-driven, without spawning the bundle.
import { describe, expect, it } from 'vitest';
import { runInProcess, type TestWorldOptions } from '../support/world.js';

const ESC = String.fromCharCode(27);

describe('default output format follows stdout', () => {
  const cases: { name: string; args: string[]; opts: TestWorldOptions; want: 'table' | 'jsonl' | 'csv' | 'json' }[] = [
    { name: 'terminal → table', args: ['lrn', '12015550123'], opts: { stdoutTTY: true }, want: 'table' },
    { name: 'pipe → jsonl', args: ['lrn', '12015550123'], opts: {}, want: 'jsonl' },
    { name: 'CSV on stdin, pipe → csv', args: ['lrn'], opts: { stdin: 'name,phone\nAda,2015550123\n' }, want: 'csv' },
    { name: 'CSV on stdin, terminal → table', args: ['lrn'], opts: { stdin: 'name,phone\nAda,2015550123\n', stdoutTTY: true }, want: 'table' },
    { name: '-f json on a terminal → json', args: ['lrn', '12015550123', '-f', 'json'], opts: { stdoutTTY: true }, want: 'json' },
    { name: '-f csv, list input → csv', args: ['lrn', '12015550123', '-f', 'csv'], opts: {}, want: 'csv' },
  ];
  it.each(cases)('$name', async ({ args, opts, want }) => {
    const { code, stdout, stderr } = await runInProcess([...args, '--sandbox'], opts);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    const shape: Record<typeof want, RegExp> = {
      table: /^┌─+┬[\s\S]*12015550123[\s\S]*┘\n$/,
      jsonl: /^\{"input":"12015550123","number":"12015550123","lookup":"lrn","ok":true,.*\}\n$/,
      csv: /^(input|name,phone),number,lrn,lrn_activated_at,error\r?\n(12015550123|Ada,2015550123),12015550123,12015550123,/,
      json: /^\[\n?\{"input":"12015550123".*\}\n?\]\n$/s,
    };
    expect(stdout).toMatch(shape[want]);
  });
});

describe('colour in tables', () => {
  const cases: { name: string; opts: TestWorldOptions; flags?: string[]; color: boolean }[] = [
    { name: 'a terminal', opts: { stdoutTTY: true, env: { TERM: 'xterm-256color' } }, color: true },
    { name: 'NO_COLOR', opts: { stdoutTTY: true, env: { NO_COLOR: '1' } }, color: false },
    { name: 'TERM=dumb', opts: { stdoutTTY: true, env: { TERM: 'dumb' } }, color: false },
    { name: '--no-color', opts: { stdoutTTY: true }, flags: ['--no-color'], color: false },
    { name: 'a pipe with -f table', opts: {}, flags: ['-f', 'table'], color: false },
    { name: 'a pipe with CLICOLOR_FORCE=1', opts: { env: { CLICOLOR_FORCE: '1' } }, flags: ['-f', 'table'], color: true },
    { name: 'NO_COLOR beats CLICOLOR_FORCE', opts: { env: { CLICOLOR_FORCE: '1', NO_COLOR: '1' } }, flags: ['-f', 'table'], color: false },
    { name: 'FORCE_COLOR=1 on a pipe', opts: { env: { FORCE_COLOR: '1' } }, flags: ['-f', 'table'], color: true },
    { name: 'FORCE_COLOR=3 on a pipe', opts: { env: { FORCE_COLOR: '3' } }, flags: ['-f', 'table'], color: true },
    { name: 'FORCE_COLOR empty on a pipe', opts: { env: { FORCE_COLOR: '' } }, flags: ['-f', 'table'], color: true },
    { name: 'FORCE_COLOR=0 on a terminal', opts: { stdoutTTY: true, env: { FORCE_COLOR: '0' } }, color: false },
    { name: 'FORCE_COLOR=false beats CLICOLOR_FORCE', opts: { env: { FORCE_COLOR: 'false', CLICOLOR_FORCE: '1' } }, flags: ['-f', 'table'], color: false },
    { name: 'NO_COLOR beats FORCE_COLOR', opts: { env: { FORCE_COLOR: '1', NO_COLOR: '1' } }, flags: ['-f', 'table'], color: false },
    { name: '--no-color beats FORCE_COLOR', opts: { env: { FORCE_COLOR: '1' } }, flags: ['-f', 'table', '--no-color'], color: false },
    { name: 'CLICOLOR=0 on a terminal', opts: { stdoutTTY: true, env: { CLICOLOR: '0' } }, color: false },
    { name: 'CLICOLOR=1 on a terminal', opts: { stdoutTTY: true, env: { CLICOLOR: '1' } }, color: true },
    { name: 'CLICOLOR_FORCE=0 on a pipe', opts: { env: { CLICOLOR_FORCE: '0' } }, flags: ['-f', 'table'], color: false },
  ];
  it.each(cases)('$name', async ({ opts, flags = [], color }) => {
    const { code, stdout } = await runInProcess(['lrn', '12015550123', '123-456-7890', '-q', '--sandbox', ...flags], opts);
    expect(code).toBe(4); // the second number is invalid on purpose: its status is what gets coloured
    expect(stdout).toContain('invalid_number');
    expect(stdout.includes(`${ESC}[`)).toBe(color);
  });
});
