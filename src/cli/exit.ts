// The one place where failures become exit codes and a one-line message on stderr.
import { NumintelError, type FailureKind } from '../core/errors.js';

export const EXIT = {
  ok: 0,
  internal: 1,
  usage: 2,
  refused: 3,
  incomplete: 4,
  interrupted: 130,
} as const;

const CODE_OF: Record<FailureKind, number> = {
  usage: EXIT.usage,
  refused: EXIT.refused,
  interrupted: EXIT.interrupted,
  internal: EXIT.internal,
};

/** Exit code and message for anything a command threw. */
export function describeFailure(err: unknown): { code: number; message: string } {
  if (err instanceof NumintelError) {
    const hint = err.hint ? `\n${err.hint}` : '';
    return { code: CODE_OF[err.kind], message: `numintel: ${err.message}${hint}` };
  }
  const detail = err instanceof Error ? err.message : String(err);
  return { code: EXIT.internal, message: `numintel: unexpected failure: ${detail}` };
}
