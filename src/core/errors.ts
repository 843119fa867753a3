// Every error numintel throws, each a class with a stable `code` (the model is undici's
// lib/core/errors.js): a library caller tells a bad base URL from an unknown column by `code`
// or `instanceof`, never by parsing a message. src/cli/exit.ts alone turns codes into exit codes.

export type ErrorCode =
  | 'NUMINTEL_USAGE'
  | 'NUMINTEL_NO_API_KEY'
  | 'NUMINTEL_NO_BASE_URL'
  | 'NUMINTEL_BAD_BASE_URL'
  | 'NUMINTEL_BAD_OPTION'
  | 'NUMINTEL_UNKNOWN_LOOKUP'
  | 'NUMINTEL_UNKNOWN_COLUMN'
  | 'NUMINTEL_CONFIG'
  | 'NUMINTEL_INPUT'
  | 'NUMINTEL_OUTPUT'
  | 'NUMINTEL_RESUME'
  | 'NUMINTEL_TLS'
  | 'NUMINTEL_PROXY'
  | 'NUMINTEL_KEY_REFUSED'
  | 'NUMINTEL_PAYMENT_REQUIRED'
  | 'NUMINTEL_SERVICE_DOWN'
  | 'NUMINTEL_WAIT_TOO_LONG'
  | 'NUMINTEL_SPEND_CAP'
  | 'NUMINTEL_INTERRUPTED'
  | 'NUMINTEL_INTERNAL';

/** The broad class of a code, for callers that only care what to do next. */
export type FailureKind =
  /** Bad flag or option, missing key or base URL, unreadable input, unknown column, TLS, proxy. */
  | 'usage'
  /** The service refused the key (401/403) or wants payment (402). */
  | 'refused'
  /** Stopped early and resumable: the spend cap, the service kept failing, or a wait past --max-wait. */
  | 'stopped'
  /** Ctrl-C / SIGTERM / SIGHUP. */
  | 'interrupted'
  /** Anything we did not foresee. */
  | 'internal';

/** What each code is: the one table behind `NumintelError.kind` and the CLI's exit codes. */
export const KIND_OF: Readonly<Record<ErrorCode, FailureKind>> = {
  NUMINTEL_USAGE: 'usage',
  NUMINTEL_NO_API_KEY: 'usage',
  NUMINTEL_NO_BASE_URL: 'usage',
  NUMINTEL_BAD_BASE_URL: 'usage',
  NUMINTEL_BAD_OPTION: 'usage',
  NUMINTEL_UNKNOWN_LOOKUP: 'usage',
  NUMINTEL_UNKNOWN_COLUMN: 'usage',
  NUMINTEL_CONFIG: 'usage',
  NUMINTEL_INPUT: 'usage',
  NUMINTEL_OUTPUT: 'usage',
  NUMINTEL_RESUME: 'usage',
  NUMINTEL_TLS: 'usage',
  NUMINTEL_PROXY: 'usage',
  NUMINTEL_KEY_REFUSED: 'refused',
  NUMINTEL_PAYMENT_REQUIRED: 'refused',
  NUMINTEL_SERVICE_DOWN: 'stopped',
  NUMINTEL_WAIT_TOO_LONG: 'stopped',
  NUMINTEL_SPEND_CAP: 'stopped',
  NUMINTEL_INTERRUPTED: 'interrupted',
  NUMINTEL_INTERNAL: 'internal',
};

export abstract class NumintelError extends Error {
  abstract override readonly name: string;
  abstract readonly code: ErrorCode;
  constructor(
    message: string,
    /** What the user can do about it, shown after the message. */
    readonly hint?: string,
  ) {
    super(message);
  }

  /** The broad class of `code`. */
  get kind(): FailureKind {
    return KIND_OF[this.code];
  }
}

/** A bad combination of flags or arguments, or a command that cannot run as asked. */
export class UsageError extends NumintelError {
  override readonly name = 'UsageError';
  readonly code = 'NUMINTEL_USAGE';
}

export class NoApiKeyError extends NumintelError {
  override readonly name = 'NoApiKeyError';
  readonly code = 'NUMINTEL_NO_API_KEY';
}

export class NoBaseUrlError extends NumintelError {
  override readonly name = 'NoBaseUrlError';
  readonly code = 'NUMINTEL_NO_BASE_URL';
}

export class BadBaseUrlError extends NumintelError {
  override readonly name = 'BadBaseUrlError';
  readonly code = 'NUMINTEL_BAD_BASE_URL';
}

/** A flag, setting or library option with a value it cannot take. */
export class BadOptionError extends NumintelError {
  override readonly name = 'BadOptionError';
  readonly code = 'NUMINTEL_BAD_OPTION';
}

export class UnknownLookupError extends NumintelError {
  override readonly name = 'UnknownLookupError';
  readonly code = 'NUMINTEL_UNKNOWN_LOOKUP';
}

/** --column names no column, or no column can be told to hold the numbers. */
export class UnknownColumnError extends NumintelError {
  override readonly name = 'UnknownColumnError';
  readonly code = 'NUMINTEL_UNKNOWN_COLUMN';
}

/** The config file cannot be read, parsed or written, or names an unknown profile or setting. */
export class ConfigError extends NumintelError {
  override readonly name = 'ConfigError';
  readonly code = 'NUMINTEL_CONFIG';
}

/** The input (numbers, CSV, an output given to `report`, the key file) cannot be read as asked. */
export class InputError extends NumintelError {
  override readonly name = 'InputError';
  readonly code = 'NUMINTEL_INPUT';
}

export class OutputError extends NumintelError {
  override readonly name = 'OutputError';
  readonly code = 'NUMINTEL_OUTPUT';
}

/** --resume of a file that is not the interrupted output of this input. */
export class ResumeError extends NumintelError {
  override readonly name = 'ResumeError';
  readonly code = 'NUMINTEL_RESUME';
}

/** A certificate not trusted, a CA file unreadable: no request can succeed until it is fixed. */
export class TlsError extends NumintelError {
  override readonly name = 'TlsError';
  readonly code = 'NUMINTEL_TLS';
}

export class ProxyError extends NumintelError {
  override readonly name = 'ProxyError';
  readonly code = 'NUMINTEL_PROXY';
}

/** 401/403: the run stopped. */
export class KeyRefusedError extends NumintelError {
  override readonly name = 'KeyRefusedError';
  readonly code = 'NUMINTEL_KEY_REFUSED';
}

/** 402: the run stopped. */
export class PaymentRequiredError extends NumintelError {
  override readonly name = 'PaymentRequiredError';
  readonly code = 'NUMINTEL_PAYMENT_REQUIRED';
}

/** The circuit breaker stopped the run: the service kept failing. Resumable. */
export class ServiceDownError extends NumintelError {
  override readonly name = 'ServiceDownError';
  readonly code = 'NUMINTEL_SERVICE_DOWN';
}

/** The service asked for a wait longer than --max-wait (maxWaitMs). Resumable. */
export class WaitTooLongError extends NumintelError {
  override readonly name = 'WaitTooLongError';
  readonly code = 'NUMINTEL_WAIT_TOO_LONG';
}

/** --max-lookups or --max-spend allows no more requests. Resumable. */
export class SpendCapError extends NumintelError {
  override readonly name = 'SpendCapError';
  readonly code = 'NUMINTEL_SPEND_CAP';
}

export class InterruptedError extends NumintelError {
  override readonly name = 'InterruptedError';
  readonly code = 'NUMINTEL_INTERRUPTED';
}

export class InternalError extends NumintelError {
  override readonly name = 'InternalError';
  readonly code = 'NUMINTEL_INTERNAL';
}
