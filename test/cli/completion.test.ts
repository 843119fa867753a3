// The completion scripts, run in the real shells: bash (always), zsh and fish where installed.
// Each script is generated in-process, then the shell completes command lines with it.
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildProgram } from '../../src/cli/program.js';
import { OUTPUT_FORMATS } from '../../src/output/layout.js';
import { CLI } from '../support/cli.js';
import { runInProcess, testWorld } from '../support/world.js';

const TOP = await buildProgram(testWorld().world, () => {});
const has = (shell: string) => spawnSync('sh', ['-c', `command -v ${shell}`]).status === 0;

/** A directory with the script, a `numintel` on PATH that runs this tree's CLI, a config with two profiles and two files. */
async function setup(shell: 'bash' | 'zsh' | 'fish') {
  const { code, stdout } = await runInProcess(['completion', shell]);
  expect(code).toBe(0);
  const { world } = testWorld();
  const dir = join(world.home, 'work');
  const bin = join(world.home, 'bin');
  mkdirSync(dir, { recursive: true });
  mkdirSync(bin);
  mkdirSync(world.env.NUMINTEL_CONFIG_DIR!, { recursive: true });
  writeFileSync(join(world.env.NUMINTEL_CONFIG_DIR!, 'config.json'), '{"profiles":{"default":{},"bulk":{},"staging":{}}}');
  writeFileSync(join(bin, 'numintel'), `#!/bin/sh\nexec "${process.execPath}" "${CLI}" "$@"\n`, { mode: 0o755 });
  writeFileSync(join(dir, 'leads.csv'), 'phone\n');
  writeFileSync(join(dir, 'list.txt'), '');
  const script = join(world.home, `numintel.${shell}`);
  writeFileSync(script, stdout);
  const env = { PATH: `${bin}:${process.env.PATH}`, HOME: world.home, NUMINTEL_CONFIG_DIR: world.env.NUMINTEL_CONFIG_DIR! };
  return { dir, script, env };
}

// A command line being completed (the last word is the one under the cursor) → the words offered.
const CASES: [line: string, want: string[] | ((got: string[]) => void)][] = [
  // Every command of the program (checked against the list it had when this was written).
  ['numintel ', (got) => expect(sorted(got)).toEqual(sorted(TOP.commands.map((c) => c.name())))],
  ['numintel ', (got) => expect(got).toEqual(expect.arrayContaining(['lrn', 'cnam', 'trust', 'enrich', 'sandbox', 'config', 'completion', 'report']))],
  ['numintel tr', ['trust']],
  ['numintel lrn --fo', ['--format']],
  ['numintel lrn -f ', [...OUTPUT_FORMATS]],
  ['numintel lrn -f csv --trans', ['--transport']],
  ['numintel enrich --transport ', ['rest', 'graphql', 'bulk']],
  ['numintel lrn -i le', ['leads.csv']],
  ['numintel enrich ', (got) => expect(got).toEqual(expect.arrayContaining(['leads.csv', 'list.txt']))],
  ['numintel config ', ['set', 'get', 'list', 'unset', 'profiles', 'path']],
  ['numintel config set base', ['base-url']],
  ['numintel config get --profile ', ['default', 'bulk', 'staging']],
  ['numintel cnam --profile st', ['staging']],
  ['numintel completion ', ['bash', 'zsh', 'fish']],
  // --lookups takes a comma-separated list: each item completes, after the ones already typed.
  ['numintel enrich --lookups ', ['lrn', 'cnam', 'trust']],
  ['numintel enrich --lookups c', ['cnam']],
  ['numintel enrich --lookups lrn,t', ['lrn,trust']],
  // An item already in the list is not offered again.
  ['numintel enrich --lookups lrn,', ['lrn,cnam', 'lrn,trust']],
  ['numintel enrich --lookups trust,lrn,', ['trust,lrn,cnam']],
  ['numintel doctor --transport ', ['rest', 'graphql']],
  ['numintel help ', (got) => expect(sorted(got)).toEqual(sorted([...TOP.commands.map((c) => c.name()).filter((n) => n !== 'help'), 'environment']))],
];

function sorted(xs: string[]): string[] {
  return [...new Set(xs)].sort();
}

function checkCase(got: string[], want: (typeof CASES)[number][1]) {
  if (typeof want === 'function') want(got);
  else expect(sorted(got)).toEqual(sorted(want));
}

describe('bash completion', () => {
  it.each(CASES)('%j', async (line, want) => {
    const { dir, script, env } = await setup('bash');
    const words = line.split(' ');
    const program = `source ${JSON.stringify(script)}\nCOMP_WORDS=(${words.map((w) => `'${w}'`).join(' ')}); COMP_CWORD=${words.length - 1}\n_numintel\nprintf '%s\\n' "\${COMPREPLY[@]}"`;
    const r = spawnSync('bash', ['--norc', '--noprofile', '-c', program], { cwd: dir, env, encoding: 'utf8' });
    expect(r.stderr).toBe('');
    checkCase(r.stdout.split('\n').filter(Boolean), want);
  });
});

describe.skipIf(!has('fish'))('fish completion', () => {
  it.each(CASES)('%j', async (line, want) => {
    const { dir, script, env } = await setup('fish');
    const r = spawnSync('fish', ['--no-config', '-c', `source ${JSON.stringify(script)}; complete -C ${JSON.stringify(line)}`], { cwd: dir, env, encoding: 'utf8' });
    expect(r.stderr).toBe('');
    checkCase(r.stdout.split('\n').filter(Boolean).map((l) => l.split('\t')[0]!), want);
  });
});

describe.skipIf(!has('zsh'))('zsh completion', () => {
  // zsh's completion widgets need a terminal; the script's function runs with the builtins it
  // calls (compadd, _describe, _files) recording what they would offer.
  it.each(CASES)('%j', async (line, want) => {
    const { dir, script, env } = await setup('zsh');
    const words = line.split(' ');
    const program = [
      'compdef() { :; }',
      `source ${JSON.stringify(script)}`,
      // compset -P moves what matches into IPREFIX, which compadd puts back in front of each word.
      "compset() { [[ $1 == -P ]] && { IPREFIX=${PREFIX%${PREFIX##*,}}; PREFIX=${PREFIX##*,}; }; }",
      "compadd() { while [[ $1 == -* && $1 != -- ]]; do [[ $1 == -S ]] && shift; shift; done; [[ $1 == -- ]] && shift; print -l -- ${IPREFIX}${^@}; }",
      "_describe() { local -a items; items=(${(P)${@[-1]}}); print -l -- ${items%%:*}; }",
      "_files() { print -l -- ${PREFIX}*(N); }",
      `words=(${words.map((w) => `'${w}'`).join(' ')}); CURRENT=${words.length}; PREFIX='${words.at(-1)}'`,
      '_numintel',
    ].join('\n');
    const r = spawnSync('zsh', ['-f', '-c', program], { cwd: dir, env, encoding: 'utf8' });
    expect(r.stderr).toBe('');
    // compadd/_describe print every candidate; the shell filters by the prefix, so do that here.
    checkCase(r.stdout.split('\n').filter((w) => w && w.startsWith(words.at(-1)!)), want);
  });
});
