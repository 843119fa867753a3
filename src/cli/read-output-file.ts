// One numintel output read as a stream, from a file or standard input (`-`): the reading report
// and diff share. Ctrl-C ends it, also while a pipe keeps silent.
import { resolve } from 'node:path';
import { InterruptedError } from '../core/errors.js';
import { readUnlessInterrupted } from '../core/interruptible.js';
import { readError } from '../pipeline/source/errors.js';
import { openInput } from '../pipeline/source/fifo.js';
import type { RowFacts } from '../report/facts.js';
import { readOutput, type ReadOptions, type ReadResult } from '../report/reader.js';
import type { World } from './world.js';

export async function readOutputFile(file: string, world: World, onRow: (row: RowFacts) => void, options: ReadOptions = {}): Promise<ReadResult> {
  const stdin = file === '-';
  const label = stdin ? 'standard input' : file;
  // 256 KiB reads: fewer calls than the default 64 KiB, and less held at once than 1 MiB (measured with bench/report.js).
  // A named pipe is read on the event loop (see fifo.ts), so Ctrl-C can end the wait for its writer.
  const input = stdin
    ? world.stdin
    : await openInput(resolve(world.cwd, file), { highWaterMark: 1 << 18, fileOrPipe: true }).catch((err: unknown) => {
        throw readError(err, label);
      });
  try {
    return await readUnlessInterrupted(() => readOutput(input as AsyncIterable<Buffer>, label, onRow, options), world.interrupt, () => void input.destroy(), 'reading the input');
  } catch (err) {
    throw err instanceof InterruptedError ? err : readError(err, label);
  } finally {
    if (!stdin) input.destroy();
  }
}
