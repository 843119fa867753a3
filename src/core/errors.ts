// Errors that end a run. Each has a kind; src/cli/exit.ts alone turns kinds into exit codes.

export type FailureKind =
  /** Bad flag, missing key or base URL, unreadable input, unknown column: exit 2. */
  | 'usage'
  /** The service refused the key (401/403) or wants payment (402): exit 3. */
  | 'refused'
  /** Ctrl-C / SIGTERM: exit 130. */
  | 'interrupted'
  /** The run stopped early and can be resumed (spend cap, circuit breaker): exit 5. */
  | 'stopped'
  /** Anything we did not foresee: exit 1. */
  | 'internal';

export class NumintelError extends Error {
  override readonly name = 'NumintelError';
  constructor(
    readonly kind: FailureKind,
    message: string,
    /** What the user can do about it, shown after the message. */
    readonly hint?: string,
  ) {
    super(message);
  }
}

export const usageError = (message: string, hint?: string) => new NumintelError('usage', message, hint);
