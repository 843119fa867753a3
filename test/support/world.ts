// A World for running commands in-process (as cli/cli's iostreams.Test()): captured stdout and
// stderr that tests flip between terminal and pipe, a given environment and stdin, and an
// interrupt the test can fire.
import { join } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { systemClock, type Clock } from '../../src/core/clock.js';
import { runProgram } from '../../src/cli/main.js';
import type { ProgramHooks } from '../../src/cli/program.js';
import type { InStream, OutStream, World } from '../../src/cli/world.js';
import { tempDir } from './tmp.js';

export interface TestWorldOptions {
  stdoutTTY?: boolean;
  stderrTTY?: boolean;
  stdinTTY?: boolean;
  /** Terminal width of stdout (only meaningful with stdoutTTY). */
  columns?: number;
  /** Terminal width of stderr (only meaningful with stderrTTY). */
  stderrColumns?: number;
  env?: Record<string, string | undefined>;
  stdin?: string;
  cwd?: string;
  /** The home directory (default: a fresh one, removed after the test file). */
  home?: string;
  clock?: Clock;
}

export interface TestWorld {
  readonly world: World;
  stdout(): string;
  stderr(): string;
  /** Fires the world's interrupt, as a first Ctrl-C would. */
  interrupt(): void;
}

function capture(tty: boolean, columns?: number): { stream: OutStream; text: () => string } {
  let text = '';
  const stream: OutStream = new Writable({
    write(chunk: Buffer | string, _encoding, done) {
      text += chunk.toString();
      done();
    },
  });
  if (tty) {
    stream.isTTY = true;
    stream.columns = columns ?? 120;
  }
  return { stream, text: () => text };
}

/** A fresh world: a private home and config directory, an empty environment unless given one. */
export function testWorld(opts: TestWorldOptions = {}): TestWorld {
  // A private home, removed once the test file that made it is done.
  const home = opts.home ?? tempDir('numintel-world-');
  const out = capture(opts.stdoutTTY ?? false, opts.columns);
  const err = capture(opts.stderrTTY ?? false, opts.stderrColumns);
  const controller = new AbortController();
  let stdin: InStream | undefined;
  const world: World = {
    env: { NUMINTEL_CONFIG_DIR: join(home, 'config'), ...opts.env },
    get stdin() {
      if (!stdin) {
        stdin = Readable.from(opts.stdin === undefined ? [] : [Buffer.from(opts.stdin)]);
        if (opts.stdinTTY) stdin.isTTY = true;
      }
      return stdin;
    },
    stdout: out.stream,
    stderr: err.stream,
    cwd: opts.cwd ?? process.cwd(),
    home,
    clock: opts.clock ?? systemClock,
    interrupt: controller.signal,
  };
  return { world, stdout: out.text, stderr: err.text, interrupt: () => controller.abort(new Error('SIGINT')) };
}

/** Runs `numintel <args…>` in-process against a test world; the exit code and what it wrote. */
export async function runInProcess(
  args: string[],
  opts: TestWorldOptions = {},
  hooks?: ProgramHooks,
): Promise<{ code: number; stdout: string; stderr: string; world: World }> {
  const t = testWorld(opts);
  const code = await runProgram(['node', 'numintel', ...args], t.world, hooks);
  return { code, stdout: t.stdout(), stderr: t.stderr(), world: t.world };
}
