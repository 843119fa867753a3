// The seam between the pipeline and the service client: one attempt at one lookup, classified.
// The pipeline decides what to do next (retry, wait, stop) from the classification alone.
import type { LookupDescriptor, LookupOptions } from './lookups.js';
import type { LookupError, Result } from './records.js';

/** What the service said about the caller's rate budget, when it said anything. */
export interface RateInfo {
  /** Requests allowed per window. */
  readonly limit?: number;
  /** Requests left in the current window. */
  readonly remaining?: number;
  /** When the current window resets, epoch milliseconds. */
  readonly resetAt?: number;
  /** The window's length, ms, when the service states its policy (IETF RateLimit-Policy `w`). */
  readonly windowMs?: number;
}

/** What a setting must fix before any request can succeed: TLS (trust, names, dates), the proxy, or another setting. */
export type SetupFailure = 'tls' | 'proxy' | 'setting';

export type Attempt =
  /** The lookup succeeded; `result` is the unwrapped result with REST field names. */
  | { readonly kind: 'ok'; readonly result: Result; readonly rate?: RateInfo }
  /** The service refused the number itself; retrying cannot help. */
  | { readonly kind: 'invalid'; readonly error: LookupError; readonly rate?: RateInfo }
  /**
   * Worth trying again: 429, 5xx, a reset connection, a timeout. `waitMs` is the service's own
   * hint (Retry-After, retry_after, the reset time), when it gave one.
   */
  | {
      readonly kind: 'retry';
      readonly error: LookupError;
      readonly rateLimited: boolean;
      readonly waitMs?: number;
      readonly rate?: RateInfo;
      /** The request never left (no connection could be made): the run's counts leave it out. */
      readonly unsent?: boolean;
      /**
       * The service answered but the answer could not be read (a malformed framing): it may have
       * been billed, so it is tried again once at most, whatever --retries allows beyond one.
       */
      readonly once?: boolean;
    }
  /**
   * No request can succeed: the key was refused (401/403) or payment is required (402), or, with
   * `setup`, the connection cannot be set up until a setting is fixed (TLS, the proxy, the CA file).
   * The whole run must stop.
   */
  | { readonly kind: 'fatal'; readonly error: LookupError; readonly rate?: RateInfo; readonly setup?: SetupFailure }
  /** Any other failure that a retry would not change (another 4xx, an unreadable body). */
  | { readonly kind: 'error'; readonly error: LookupError; readonly rate?: RateInfo; readonly unsent?: boolean };

/** The answer to one request for several numbers of one lookup (a bulk endpoint). */
export type BatchAttempt =
  /** Every number, in the order asked, has its own answer. */
  | { readonly kind: 'rows'; readonly answers: readonly Attempt[]; readonly rate?: RateInfo }
  /** The request as a whole was answered or failed so (401, 402, 429, 5xx, the wire): every number shares it. */
  | { readonly kind: 'whole'; readonly attempt: Attempt }
  /** The service has no bulk endpoint (404/405): these numbers and the rest go one a request. */
  | { readonly kind: 'unsupported'; readonly message: string; readonly rate?: RateInfo };

export interface Transport {
  readonly name: 'rest' | 'graphql' | 'bulk';
  /** One request, never retried here; never throws for what the service answered. */
  send(d: LookupDescriptor, number: string, opts: LookupOptions, signal?: AbortSignal): Promise<Attempt>;
  /** Numbers one request carries for this lookup: more than 1 only where sendBatch serves it. */
  batchSize?(d: LookupDescriptor): number;
  /** One request for several distinct numbers (at most batchSize); never throws for what the service answered. */
  sendBatch?(d: LookupDescriptor, numbers: readonly string[], opts: LookupOptions, signal?: AbortSignal): Promise<BatchAttempt>;
  /** GET /api/v1/status: needs no key and is never billed; the service may not have it. */
  status?(signal?: AbortSignal): Promise<StatusAnswer>;
  close(): Promise<void>;
}

/** What GET /api/v1/status told: `up` when it answered 2xx with a JSON object, `absent` for any other answer. */
export type StatusAnswer =
  | { readonly kind: 'up'; readonly body: Readonly<Record<string, unknown>> }
  | { readonly kind: 'absent'; readonly why: string };
