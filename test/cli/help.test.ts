// Help for people: every command's --help has Examples and fits an 80-column terminal; the
// examples that need no file of yours run as printed; `help environment` lists every setting.
import { describe, expect, it } from 'vitest';
import { buildProgram } from '../../src/cli/program.js';
import { SETTINGS } from '../../src/settings/known-settings.js';
import { runInProcess, testWorld } from '../support/world.js';
import { runShell } from '../support/cli.js';
import type { Command } from 'commander';

function paths(cmd: Command, prefix: string[] = []): string[][] {
  return cmd.commands.flatMap((c) => [[...prefix, c.name()], ...paths(c, [...prefix, c.name()])]);
}
const ALL = paths(await buildProgram(testWorld().world, () => {}));
const TOP_LEVEL = ALL.filter((p) => p.length === 1).map((p) => p[0]!);

async function helpOf(path: string[], columns = 80): Promise<string> {
  const r = await runInProcess([...path, '--help'], { stdoutTTY: true, columns });
  expect(r.code).toBe(0);
  return r.stdout;
}

const exampleCommands = (help: string) => [...help.matchAll(/^ {2}\$ (.+)$/gm)].map((m) => m[1]!);

describe('--help', () => {
  it.each(ALL.map((p) => [p.join(' '), p] as const))('%s fits 80 columns', async (_name, path) => {
    const long = (await helpOf(path)).split('\n').filter((l) => [...l].length > 80);
    expect(long).toEqual([]);
  });

  it.each(TOP_LEVEL.filter((c) => c !== 'help'))('%s has an Examples section', async (name) => {
    expect(exampleCommands(await helpOf([name])).length).toBeGreaterThan(0);
  });

  it('wraps descriptions to a wider terminal too', async () => {
    const wide = await helpOf(['lrn'], 120);
    expect(wide.split('\n').some((l) => l.length > 80 && l.length <= 120)).toBe(true);
  });

  it('the examples that need no file of yours run as printed', async () => {
    const runnable = TOP_LEVEL.flatMap((name) => [name]).filter((n) => n !== 'sandbox');
    const commands: string[] = [];
    for (const name of runnable) for (const c of exampleCommands(await helpOf([name]))) if (/--sandbox/.test(c) && !/leads\.csv|jq/.test(c)) commands.push(c);
    expect(commands.length).toBeGreaterThan(5);
    for (const command of commands) {
      const r = await runShell(command);
      expect([0, 4], `${command}\n${r.stderr}`).toContain(r.code);
      expect(r.stdout.length, command).toBeGreaterThan(0);
    }
  }, 60_000);
});

describe('help environment', () => {
  it('lists every config key and the variables, and runs as `numintel help environment`', async () => {
    const r = await runInProcess(['help', 'environment'], { stdoutTTY: true, columns: 80 });
    expect(r.code).toBe(0);
    for (const s of SETTINGS) expect(r.stdout).toContain(`  ${s.name}`);
    for (const v of ['NUMINTEL_API_KEY', 'NUMINTEL_CONFIG_DIR', 'NUMINTEL_CACHE_DIR', 'HTTPS_PROXY', 'NO_PROXY', 'NODE_EXTRA_CA_CERTS', 'NO_COLOR', 'FORCE_COLOR']) expect(r.stdout).toContain(v);
    expect(r.stdout.split('\n').filter((l) => [...l].length > 80)).toEqual([]);
  });

  it('says NO_COLOR counts when set and not empty, as the colour decision reads it (no-color.org)', async () => {
    const r = await runInProcess(['help', 'environment'], { columns: 100 });
    expect(r.stdout).toMatch(/NO_COLOR +set and not empty \(any value\): no colour/);
    const table = (env: Record<string, string>) => runInProcess(['lrn', '2015550123', '--sandbox', '-q', '-f', 'table'], { env: { CLICOLOR_FORCE: '1', ...env } });
    expect((await table({ NO_COLOR: '' })).stdout).toContain('\x1b[');
    expect((await table({ NO_COLOR: '1' })).stdout).not.toContain('\x1b[');
  });

  it('wraps to COLUMNS when stdout is no terminal (a pager, a CI log)', async () => {
    for (const args of [['help', 'environment']]) {
      const narrow = await runInProcess(args, { env: { COLUMNS: '60' } });
      expect(narrow.code).toBe(0);
      const lines = narrow.stdout.split('\n');
      expect(lines.filter((l) => [...l].length > 60)).toEqual([]);
      // Wrapped, not cut: wider than 60 at 100 columns.
      const wide = await runInProcess(args, { env: { COLUMNS: '100' } });
      expect(wide.stdout.split('\n').some((l) => [...l].length > 60)).toBe(true);
    }
  });

  it('the rate default: `help environment` and `lrn --help` say the same, with the documented limits', async () => {
    const flat = (text: string) => text.replace(/\s+/g, ' ');
    const env = flat((await runInProcess(['help', 'environment'], { stdoutTTY: true, columns: 80 })).stdout);
    const lrn = flat(await helpOf(['lrn']));
    const said = "a ceiling, requests per second per lookup; 0 = none (default: each lookup's documented limit, LRN 200/s, CNAM 50/s, Trust 50/s, then the pace the service's rate headers allow)";
    expect(env).toContain(`rate ${said} (--rate).`);
    expect(lrn).toContain(`--rate <n> ${said}`);
  });

  it('`help <command>` is that command\'s help; an unknown topic is a usage error', async () => {
    const viaHelp = await runInProcess(['help', 'config', 'set'], { stdoutTTY: true, columns: 80 });
    expect(viaHelp.stdout).toBe(await helpOf(['config', 'set']));
    const bad = await runInProcess(['help', 'nope']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('no command or help topic "nope"');
  });
});
