// Everything a command touches of the outside world, passed in so tests can run commands with
// fake streams, environment and clock. main.ts builds the real one from process.*.
import type { Readable, Writable } from 'node:stream';
import type { Clock } from '../core/clock.js';
import type { ProcessTable } from '../store/open-gate.js';

export type InStream = Readable & { isTTY?: boolean };
export type OutStream = Writable & { isTTY?: boolean; columns?: number };

export interface World {
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly stdin: InStream;
  readonly stdout: OutStream;
  readonly stderr: OutStream;
  readonly cwd: string;
  /** The user's home directory (for the config file's default place). */
  readonly home: string;
  readonly clock: Clock;
  /** Aborts on the first SIGINT/SIGTERM: commands stop cleanly and exit 130. */
  readonly interrupt: AbortSignal;
  /**
   * Aborts on the second SIGINT/SIGTERM: abandon what is in flight, write what is finished (whole),
   * exit 130; a standard output whose reader stopped reading is not waited for. Absent where
   * nothing can send it (tests).
   */
  readonly quitNow?: AbortSignal;
  /** This process and which others run (the cache's markers of killed processes: open-gate.ts). Absent in tests. */
  readonly processes?: ProcessTable;
}

/**
 * How many columns `stream` has to write into: what the terminal says, else COLUMNS (a pipe to a
 * pager, a CI log), else undefined for the caller's default.
 */
export function widthOf(stream: OutStream, env: World['env']): number | undefined {
  return stream.columns || Number(env.COLUMNS) || undefined;
}
