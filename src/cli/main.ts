// Entry point: builds the real World from process.*, runs the program, and turns whatever ended
// it into an exit code in one place. Command modules load their heavy parts only when they run,
// because a script may start numintel once per number.
import { homedir } from 'node:os';
import { systemClock } from '../core/clock.js';
import { buildProgram } from './program.js';
import { describeFailure, EXIT } from './exit.js';
import { writeFailure } from '../output/write-errors.js';
import type { World } from './world.js';

export async function main(argv: readonly string[] = process.argv): Promise<void> {
  const interrupt = new AbortController();
  const onSignal = (signal: NodeJS.Signals) => {
    if (interrupt.signal.aborted) {
      // A second Ctrl-C means "now": do not wait for in-flight requests.
      process.exit(EXIT.interrupted);
    }
    interrupt.abort(new Error(signal));
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  // A closed stdout (`numintel ... | head -1`) is not a failure: the reader has what it wanted.
  // Any other write error (a full disk, an I/O error) is the user's to fix: one line, exit 2.
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') process.exit(EXIT.ok);
    process.stderr.write(`numintel: ${writeFailure(err, 'to standard output')}\n`);
    process.exit(EXIT.usage);
  });

  let stderr: NodeJS.WriteStream | undefined;
  const world: World = {
    env: process.env,
    // Only a command that reads stdin should open it.
    get stdin() {
      return process.stdin;
    },
    stdout: process.stdout,
    // Opened on first use: creating the stream costs a run that never writes to it a millisecond or two.
    get stderr() {
      return (stderr ??= process.stderr);
    },
    cwd: process.cwd(),
    home: homedir(),
    clock: systemClock,
    interrupt: interrupt.signal,
  };

  const code = await runProgram(argv, world);
  // Leave as soon as the output is out. Waiting for the event loop to empty by itself would also
  // wait for V8 to finish optimising undici's HTTP parser in the background (about 100 ms), which
  // a finished run has no use for.
  await Promise.all([flushed(process.stdout), stderr && flushed(stderr)]);
  process.exit(code);
}

function flushed(stream: NodeJS.WriteStream): Promise<void> {
  if (stream.destroyed || stream.writableLength === 0) return Promise.resolve();
  return new Promise((resolve) => {
    stream.once('drain', resolve);
    stream.once('close', resolve);
    stream.once('error', resolve);
  });
}

/** Runs one command line against a world and returns its exit code; never throws. */
async function runProgram(argv: readonly string[], world: World): Promise<number> {
  try {
    let exitCode: number = EXIT.ok;
    const program = buildProgram(world, (code) => (exitCode = code), argv[2]);
    await program.parseAsync(argv as string[]);
    return exitCode;
  } catch (err) {
    const code = (err as { code?: unknown }).code;
    // commander reports --help/--version and its own usage errors by throwing (exitOverride).
    if (typeof code === 'string' && code.startsWith('commander.')) {
      const exitCode = (err as { exitCode?: number }).exitCode ?? EXIT.usage;
      return exitCode === 0 ? EXIT.ok : EXIT.usage;
    }
    const failure = describeFailure(err);
    world.stderr.write(`${failure.message}\n`);
    return failure.code;
  }
}
