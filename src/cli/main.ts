// Entry point: builds the real World from process.*, runs the program, and turns whatever ended
// it into an exit code in one place. Command modules load their heavy parts only when they run,
// because a script may start numintel once per number.
import { runAbortController } from '../core/abort.js';
import { homedir } from 'node:os';
import { systemClock } from '../core/clock.js';
import { buildProgram, type ProgramHooks } from './program.js';
import { describeFailure, EXIT } from './exit.js';
import { forTerminal } from './terminal-text.js';
import { writeFailure } from '../output/write-errors.js';
import { thisProcess } from './process-table.js';
import type { World } from './world.js';

/** How long a second Ctrl-C waits for the command to write what it finished and leave by itself. */
const QUIT_GRACE_MS = 2000;
/**
 * How long a run whose stdout closed may take to stop and keep what it paid for: its requests in
 * flight get 1 s (the runner's closedDrainMs), then the cache closes. A run not over by then
 * (a close that hangs) exits with what was committed. process.exit still waits for a commit lmdb's
 * write thread has begun (Node joins its thread pool at exit): a slow disk delays it; a write lock
 * that another, stuck, process holds for ever would hold it for ever too.
 */
const CLOSED_GRACE_MS = 3000;

export async function main(argv: readonly string[] = process.argv): Promise<void> {
  // First Ctrl-C (or SIGTERM, SIGHUP): stop sending, let what is in flight finish. Second: abandon what is
  // in flight, but still write what is finished, whole, and say how to resume. A command that does
  // not listen for the second gets a moment to do so; a third signal leaves at once.
  const interrupt = runAbortController();
  const quitNow = runAbortController();
  const onSignal = (signal: NodeJS.Signals) => {
    if (!interrupt.signal.aborted) {
      interrupt.abort(new Error(signal));
    } else if (!quitNow.signal.aborted) {
      quitNow.abort(new Error(signal));
      setTimeout(() => process.exit(EXIT.interrupted), QUIT_GRACE_MS).unref();
    } else {
      process.exit(EXIT.interrupted);
    }
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  // A closed terminal (ssh dropped) stops like Ctrl-C: finished rows written, resumable.
  process.on('SIGHUP', onSignal);
  // A closed stdout (`numintel ... | head -1`) is not a failure: the reader has what it wanted.
  // A lookup run hears it too (its sink and the run watch the stream: one more 'error' listener
  // each) and ends by itself: it sends nothing more, closes the lookup cache so the answers already
  // paid for are kept, and exits 0. This only bounds how long that may take; a command that does
  // not watch stdout has nothing to keep and leaves at once.
  // Any other write error (a full disk, an I/O error) is the user's to fix: one line, exit 2.
  let closedAt: NodeJS.Timeout | undefined;
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') {
      if (process.stdout.listenerCount('error') === 1) process.exit(EXIT.ok);
      closedAt ??= setTimeout(() => process.exit(EXIT.ok), CLOSED_GRACE_MS).unref();
      return;
    }
    world.stderr.write(`numintel: ${writeFailure(err, 'to standard output')}\n`);
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
      return (stderr ??= droppingFailures(process.stderr));
    },
    cwd: process.cwd(),
    home: homedir(),
    clock: systemClock,
    interrupt: interrupt.signal,
    quitNow: quitNow.signal,
    processes: thisProcess,
  };

  const code = await runProgram(argv, world);
  // Leave as soon as the output is out. Waiting for the event loop to empty by itself would also
  // wait for V8 to finish optimising undici's HTTP parser in the background (about 100 ms), which
  // a finished run has no use for.
  // Once a second Ctrl-C comes, what a pipe on stdout still holds is not waited for: its reader may
  // have stopped reading (`| less` on its first page), and leaving now is what was asked.
  await Promise.all([Promise.race([flushed(process.stdout), aborted(quitNow.signal)]), stderr && flushed(stderr)]);
  // Records the reader never took: the command's own success would say they were delivered.
  const dropped = quitNow.signal.aborted && process.stdout.writableLength > 0 && (code === EXIT.ok || code === EXIT.incomplete);
  process.exit(dropped ? EXIT.interrupted : code);
}

/**
 * Messages, progress and traces are never worth a run: a stderr that cannot take them (`2>/dev/full`,
 * a closed pipe) has them dropped, and the run writes its output and exits as it would have. A file
 * or device stderr is written synchronously and throws; a pipe's failure comes as an 'error' event.
 * Either way the stream stays usable (Node's stderr undoes its own destroy), so the next message is
 * simply tried again.
 */
function droppingFailures(stream: NodeJS.WriteStream): NodeJS.WriteStream {
  const write = stream._write.bind(stream);
  stream._write = (chunk: unknown, encoding: BufferEncoding, callback: (err?: Error | null) => void) => {
    try {
      write(chunk, encoding, () => callback());
    } catch {
      callback();
    }
  };
  stream._writev = undefined;
  stream.on('error', () => {});
  return stream;
}

function aborted(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
}

function flushed(stream: NodeJS.WriteStream): Promise<void> {
  if (stream.destroyed || stream.writableLength === 0) return Promise.resolve();
  return new Promise((resolve) => {
    stream.once('drain', resolve);
    stream.once('close', resolve);
    stream.once('error', resolve);
  });
}

/**
 * Runs one command line (`argv` as process.argv: node, script, words…) against a world and returns
 * its exit code; never throws. Tests call it in-process with a fake world.
 */
export async function runProgram(argv: readonly string[], world: World, hooks?: ProgramHooks): Promise<number> {
  try {
    let exitCode: number = EXIT.ok;
    const program = await buildProgram(world, (code) => (exitCode = code), argv[2], hooks);
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
    world.stderr.write(forTerminal(`${failure.message}\n`, world.stderr, world.env));
    return failure.code;
  }
}
