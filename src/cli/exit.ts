// The exit codes, and the code and one-line stderr message for whatever a command threw
// (commander's own --help, --version and usage errors are mapped in main.ts).
import { KIND_OF, NumintelError, type ErrorCode } from '../core/errors.js';

export const EXIT = {
  ok: 0,
  internal: 1,
  usage: 2,
  refused: 3,
  incomplete: 4,
  /** Stopped early, resumable: the circuit breaker, a wait hint past --max-wait. */
  stopped: 5,
  interrupted: 130,
} as const;

/** The one place an error code becomes an exit code: by its kind (core/errors.ts). */
export function exitCodeOf(code: ErrorCode): number {
  return EXIT[KIND_OF[code]];
}

/** Exit code and message for anything a command threw. */
export function describeFailure(err: unknown): { code: number; message: string } {
  if (err instanceof NumintelError) {
    const hint = err.hint ? `\n${err.hint}` : '';
    return { code: exitCodeOf(err.code), message: `numintel: ${err.message}${hint}` };
  }
  const detail = err instanceof Error ? err.message : String(err);
  return { code: EXIT.internal, message: `numintel: unexpected failure: ${detail}` };
}

export const EXIT_CODES_HELP = `Exit codes:
  0    every number looked up successfully
  1    unexpected failure
  2    usage or setup error (bad flag, no API key or base URL, unreadable or
       binary input, unknown column, -o unwritable or the same file as -i,
       resume of another input, TLS or proxy failure)
  3    the service refused the key (401/403) or payment is required (402)
  4    the run finished but at least one number was invalid or failed
  5    stopped early, resumable: the spend cap, the service kept failing,
       or it asked for a wait longer than --max-wait
  130  interrupted (Ctrl-C, SIGTERM or SIGHUP); --resume continues;
       numintel sandbox stopped`;
