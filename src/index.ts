// numintel as a library: the same flow as the command line (validation, dedup, rate-aware
// queue, retries, ordered records), for scripts that would rather import than spawn.
//
//   import { createClient } from 'numintel';
//   const client = createClient({ baseUrl, apiKey });
//   const record = await client.lookup('lrn', '(201) 555-0123', { enhanced: true });
//   for await (const r of client.bulk('cnam', numbers, { spam: true })) console.log(r);
//   await client.close();
import { systemClock, type Clock } from './core/clock.js';
import { BadOptionError, UnknownLookupError, UsageError } from './core/errors.js';
import { isKeyShaped } from './core/secret.js';
import { LIBRARY_ADVICE } from './core/advice.js';
import { isLookupKind, LOOKUP_KINDS, LOOKUPS, type LookupKind, type LookupOptions } from './core/lookups.js';
import type { EnrichRecord, LookupError, LookupRecord, OutputRecord } from './core/records.js';
import type { OptionsOf, ResultOf } from './core/result-types.js';
import { newRunStats, type RunStats, type SourceItem } from './core/run.js';
import { createTransport } from './api/index.js';
import { runPipeline } from './pipeline/runner.js';
import { newRunDedup } from './pipeline/dedup/run-dedup.js';
import { stopFailure } from './pipeline/stop-failure.js';
import { Session } from './pipeline/session.js';
import { expected } from './library/expected.js';
import { checkCallOptions } from './library/call-options.js';
import { caTexts, checkEnv } from './library/connection-options.js';
import { pacerFor } from './pipeline/dispatch/pacer.js';
import { ConcurrencyGate } from './pipeline/dispatch/gate.js';
import { MemoryAnswerStore, NO_STORE, type AnswerStore } from './store/answer-store.js';
import type { Sandbox, SandboxOptions } from './sandbox/index.js';

export { LOOKUPS, LOOKUP_KINDS, registerLookup, type LookupKind, type LookupOptions, type LookupDescriptor, type FieldSpec, type OptionSpec, type BulkSpec } from './core/lookups.js';
export { registerSandboxData } from './sandbox/lookup-data/index.js';
export { parseNumber, type ParsedNumber } from './core/numbers.js';
export type { EnrichRecord, LookupError, LookupErrorCode, LookupRecord, OutputRecord, Result } from './core/records.js';
export type { CnamResult, EnhancedLrnData, LrnResult, MessagingData, OptionsOf, ResultOf, TrustResult } from './core/result-types.js';

/**
 * A lookup record whose result has its lookup's type (generated from the descriptors), told apart
 * by `ok`: true, a result and no error; false, an error saying why (and a result only where the
 * service sent one with its refusal).
 */
export type TypedLookupRecord<K extends LookupKind = LookupKind> = Omit<LookupRecord, 'lookup' | 'ok' | 'result' | 'error'> & { lookup: K } & (
  | { ok: true; result: ResultOf[K]; error: null }
  | { ok: false; result: ResultOf[K] | null; error: LookupError }
);
/** The options of lookup K: a built-in lookup's own (another lookup's is a type error); a registered lookup's, any. */
export type OptionsFor<K extends LookupKind> = K extends keyof OptionsOf ? OptionsOf[K] : LookupOptions;
/** An enrich record whose results have their lookups' types. */
export type TypedEnrichRecord<K extends LookupKind = LookupKind> = Omit<EnrichRecord, 'results'> & { results: { [P in K]?: ResultOf[P] | null } };
export { newRunStats, type RunStats } from './core/run.js';
export {
  NumintelError,
  UsageError,
  NoApiKeyError,
  NoBaseUrlError,
  BadBaseUrlError,
  BadOptionError,
  UnknownLookupError,
  UnknownColumnError,
  ConfigError,
  InputError,
  OutputError,
  ResumeError,
  TlsError,
  ProxyError,
  KeyRefusedError,
  PaymentRequiredError,
  ServiceDownError,
  SpendCapError,
  WaitTooLongError,
  InterruptedError,
  InternalError,
  type ErrorCode,
  type FailureKind,
} from './core/errors.js';
export { MemoryAnswerStore, NO_STORE, type AnswerStore, type AnswerSlot, type CachedAnswer } from './store/answer-store.js';
export type { Sandbox, SandboxOptions } from './sandbox/index.js';
export { VERSION } from './core/version.js';

export interface ClientConfig {
  readonly baseUrl: string;
  readonly apiKey: string;
  /**
   * Default 'rest'. 'bulk': LRN and CNAM go to the service's bulk endpoints, up to `batchSize`
   * numbers a request (numbers of bulk(), enrich() and parallel lookup() calls share batches; a
   * partial batch waits 50 ms for more).
   */
  readonly transport?: 'rest' | 'graphql' | 'bulk';
  /** With transport 'bulk': numbers a request carries at most, 1–1000. Default 1000. */
  readonly batchSize?: number;
  /** Per-request timeout, ms. Default 15000. */
  readonly timeoutMs?: number;
  /** Requests in flight at most. Default 16. */
  readonly concurrency?: number;
  /** Requests per second per lookup kind (0 = no client limit). Default: the documented limits. */
  readonly rates?: Partial<Record<LookupKind, number>>;
  /** Retries after a 5xx, a reset or a timeout. Default 5. A 429 is waited out apart (up to 10 for one lookup). */
  readonly retries?: number;
  /**
   * The longest wait a server may ask for (Retry-After, a reset time), ms. Default 300000. A longer
   * hint ends the bulk call with a WaitTooLongError (NUMINTEL_WAIT_TOO_LONG) instead of sleeping.
   */
  readonly maxWaitMs?: number;
  readonly clock?: Clock;
  /**
   * PEM text of CA certificates trusted for HTTPS besides Node's default trust (its bundle and
   * NODE_EXTRA_CA_CERTS, which apply without this): a private CA, or a sandbox's `ca`. A Buffer
   * (`readFileSync(path)`) is read as that text. Checked by createClient: a text that holds no
   * readable certificate is refused there (BadOptionError). Before Node 22.15, which cannot list
   * its default trust, NODE_EXTRA_CA_CERTS is kept beside `ca` only when `env` holds it.
   */
  readonly ca?: string | Uint8Array | readonly (string | Uint8Array)[];
  /**
   * An environment whose HTTPS_PROXY, HTTP_PROXY and NO_PROXY (either case) apply, as on the
   * command line: pass `process.env` to honour them. Without it, no proxy is used.
   */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /**
   * Answers kept across the client's calls: `'memory'` (default) remembers every answer for as
   * long as it is fresh (LRN 24 h, CNAM 7 days, trust 24 h), so a number is paid for once however
   * many calls ask for it; `'off'` keeps nothing; or an AnswerStore of your own.
   */
  readonly cache?: 'memory' | 'off' | AnswerStore;
}

/** What every call takes besides its lookups' options. */
export interface RunOptions {
  /** false sends numbers as given (punctuation stripped), without validating them. */
  readonly validate?: boolean;
  /**
   * Stops dispatching; the records finished so far still come out, then bulk() and enrich() throw
   * InterruptedError (NUMINTEL_INTERRUPTED). A lookup() rejects with the signal's reason.
   */
  readonly signal?: AbortSignal;
  /**
   * Kept current during the run (`newRunStats(Date.now())` makes one): what the CLI's summary says.
   * `lookups` are first tries that went out, `retries` the requests sent again, `requests` both;
   * duplicates, invalid numbers and rows never sent count in neither.
   */
  readonly stats?: RunStats;
}

/** A run's options with any lookup's options (enrich, whose lookups take theirs from one object). */
export interface BulkOptions extends RunOptions, LookupOptions {}

export interface NumintelClient {
  /** One lookup of one number. Never throws for a bad number or a failed lookup: see `ok`/`error`. */
  lookup<K extends LookupKind>(kind: K, number: string, options?: RunOptions & OptionsFor<K>): Promise<TypedLookupRecord<K>>;
  /**
   * Records in input order. Throws, after the records finished before the stop: KeyRefusedError
   * (NUMINTEL_KEY_REFUSED) or PaymentRequiredError (NUMINTEL_PAYMENT_REQUIRED) if the service
   * refuses mid-run; TlsError or ProxyError if the connection cannot be set up; ServiceDownError
   * (the circuit breaker) or WaitTooLongError (a server hint past `maxWaitMs`), both resumable;
   * UnknownLookupError for a kind that is not a lookup.
   */
  bulk<K extends LookupKind>(kind: K, numbers: Iterable<string> | AsyncIterable<string>, options?: RunOptions & OptionsFor<K>): AsyncIterable<TypedLookupRecord<K>>;
  /** Several lookups per number in one pass. */
  enrich<K extends LookupKind>(kinds: readonly K[], numbers: Iterable<string> | AsyncIterable<string>, options?: BulkOptions): AsyncIterable<TypedEnrichRecord<K>>;
  /**
   * Sends nothing more, and never waits for a turn at the rate limit or a retry's pause (up to
   * `maxWaitMs`). A lookup() whose request has not gone out (waiting for its turn or its retry)
   * rejects at once with UsageError (NUMINTEL_USAGE, "the client was closed before this lookup was
   * sent"); one whose request is on the wire gets its record, unless the answer asks for another
   * try, which rejects the same way. A running bulk() or enrich() stops sending: its finished
   * records come out, then it throws UsageError ("the client was closed during the run").
   * Resolves once the requests on the wire are answered (each within `timeoutMs`) and the
   * connections are closed. Calling it twice is harmless; a call after it throws UsageError.
   */
  close(): Promise<void>;
}

export function createClient(config: ClientConfig): NumintelClient {
  checkConfig(config);
  // Checked here too, each certificate read: a bad `ca` is refused by its name, not at the first lookup.
  const ca = caTexts(config.ca);
  const clock = config.clock ?? systemClock;
  const store: AnswerStore =
    config.cache === 'off' ? NO_STORE : config.cache === undefined || config.cache === 'memory' ? new MemoryAnswerStore((kind, at) => clock.now() - at <= LOOKUPS[kind].maxAgeMs) : config.cache;
  const transport = createTransport({
    baseUrl: config.baseUrl,
    apiKey: config.apiKey,
    transport: config.transport,
    batchSize: config.batchSize,
    timeoutMs: config.timeoutMs,
    connections: config.concurrency,
    clock,
    ca,
    env: config.env,
    // Errors name the options of createClient, not the command line's flags.
    advice: LIBRARY_ADVICE,
  });

  // The client's pacer: one per key and service, shared by every run and call, so bulk(),
  // enrich() and parallel lookup() calls together keep to the limits the service enforces.
  const pacer = pacerFor(Object.values(LOOKUPS), config.rates, clock.now(), undefined, config.transport);
  // And its concurrency limit, shared the same way: `concurrency` requests in flight at most,
  // whatever number of bulk(), enrich() and lookup() calls are running.
  const gate = new ConcurrencyGate(config.concurrency ?? 16);

  // After close(), a call is refused at once: its requests would fail on the closed connections,
  // each number a network error and a bulk() stopped as if the service were down. And a bulk() or
  // enrich() running at close() stops sending, as a run whose reader left.
  const closing = new AbortController();
  const checkOpen = () => {
    if (closing.signal.aborted) throw new UsageError('the client is closed: make another with createClient()');
  };

  async function* run(mode: 'single' | 'enrich', kinds: readonly LookupKind[], numbers: Iterable<string> | AsyncIterable<string>, options: BulkOptions = {}): AsyncIterable<OutputRecord> {
    checkOpen();
    checkKinds(kinds);
    checkCallOptions(kinds, options);
    // A lookup named twice (['lrn', 'trust', 'lrn']) is one lookup per number, as `--lookups` takes it: never paid twice.
    const lookups = [...new Set(kinds)].map((k) => LOOKUPS[k]);
    const handle = runPipeline(items(numbers), { mode, lookups, options, validate: options.validate !== false }, {
      transport,
      answers: store,
      dedup: newRunDedup,
      pacer,
      gate,
      clock,
      stats: options.stats ?? newRunStats(clock.now()),
      rates: config.rates,
      retries: config.retries,
      maxWaitMs: config.maxWaitMs,
      signal: options.signal,
      closed: closing.signal,
    });
    yield* handle.records;
    const stopped = handle.outcome().stopped;
    // Cut short by close(): said, so the caller does not take the records given for all of them.
    if (stopped?.reason === 'closed' && closing.signal.aborted) throw new UsageError('the client was closed during the run: the numbers after the last record were not looked up');
    if (stopped && stopped.reason !== 'closed') throw stopFailure(stopped, undefined, undefined, LIBRARY_ADVICE);
  }

  // Single lookups share one run per lookup and options: parallel calls pace, share the
  // concurrency slots and send each number once, as bulk() would.
  const session = new Session(
    { transport, answers: store, dedup: newRunDedup, pacer, gate, clock, rates: config.rates, retries: config.retries, maxWaitMs: config.maxWaitMs },
    (stopped) => stopFailure(stopped, undefined, undefined, LIBRARY_ADVICE),
  );

  return {
    // The records are what the service sent, typed by their lookup's descriptor (result-types.ts).
    lookup: async <K extends LookupKind>(kind: K, number: string, options: BulkOptions = {}) => {
      checkOpen();
      if (typeof number !== 'string') throw expected('number', 'a string', number);
      checkKinds([kind]);
      checkCallOptions([kind], options);
      const { validate, signal, stats: _stats, ...opts } = options;
      // Aborted already: nothing is sent (and no call is left waiting for close() to refuse it).
      if (signal?.aborted) throw signal.reason;
      const record = session.lookup(LOOKUPS[kind], number, opts, validate !== false) as Promise<TypedLookupRecord<K>>;
      if (!signal) return record;
      return new Promise<TypedLookupRecord<K>>((resolve, reject) => {
        const onAbort = () => reject(signal.reason);
        signal.addEventListener('abort', onAbort, { once: true });
        // One signal may serve many lookups: each takes its listener away when it settles.
        record.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
      });
    },
    bulk: <K extends LookupKind>(kind: K, numbers: Iterable<string> | AsyncIterable<string>, options?: BulkOptions) =>
      run('single', [kind], numbers, options) as AsyncIterable<TypedLookupRecord<K>>,
    enrich: <K extends LookupKind>(kinds: readonly K[], numbers: Iterable<string> | AsyncIterable<string>, options?: BulkOptions) =>
      run('enrich', kinds, numbers, options) as AsyncIterable<TypedEnrichRecord<K>>,
    close: async () => {
      closing.abort();
      await session.close();
      await transport.close();
      await store.close();
    },
  };
}


/**
 * Starts the sandbox emulator (see sandbox/index.ts). Loaded on first use, so importing the library
 * does not load the sandbox and its GraphQL engine.
 */
export async function startSandbox(options?: Partial<SandboxOptions>): Promise<Sandbox> {
  return (await import('./sandbox/index.js')).startSandbox(options);
}

function checkNumber(name: string, value: unknown, min: number, integer: boolean, max = Number.MAX_SAFE_INTEGER): void {
  if (value === undefined) return;
  const ok = typeof value === 'number' && Number.isFinite(value) && value >= min && value <= max && (!integer || Number.isInteger(value));
  if (!ok) throw expected(name, `${integer ? 'an integer' : 'a number'} ≥ ${min}${max < Number.MAX_SAFE_INTEGER ? ` and ≤ ${max}` : ''}`, value);
}

/** Every option checked here, where the caller passed it, not at the first lookup. */
function checkConfig(config: ClientConfig): void {
  if (config === null || typeof config !== 'object') throw expected('config', 'an object', config);
  if (typeof config.baseUrl !== 'string' || config.baseUrl === '') throw expected('baseUrl', 'a URL string', config.baseUrl);
  if (typeof config.apiKey !== 'string') throw new BadOptionError(`Expected \`apiKey\` to be a string, got ${config.apiKey === undefined ? 'undefined' : typeof config.apiKey}`);
  // Checked here, not at the first request: an empty key or one with a space, a line break or a
  // non-ASCII letter (a pasted key) failed every lookup as a network error or a refusal. The key
  // itself is never quoted.
  if (!isKeyShaped(config.apiKey)) {
    throw new BadOptionError(`Expected \`apiKey\` to be printable ASCII without spaces, got ${config.apiKey === '' ? 'an empty string' : `a key of ${config.apiKey.length} characters that is not`}`);
  }
  if (config.transport !== undefined && config.transport !== 'rest' && config.transport !== 'graphql' && config.transport !== 'bulk') throw expected('transport', '"rest", "graphql" or "bulk"', config.transport);
  checkNumber('batchSize', config.batchSize, 1, true, 1000);
  // A Node timer holds at most 2^31-1 ms (about 24.9 days); 1 ms is the least it can wait.
  checkNumber('timeoutMs', config.timeoutMs, 1, false, 2 ** 31 - 1);
  checkNumber('concurrency', config.concurrency, 1, true);
  checkNumber('retries', config.retries, 0, true);
  checkNumber('maxWaitMs', config.maxWaitMs, 0, false, 2 ** 31 - 1);
  // An object is taken for what it says it is only when it has the methods a run calls: else the
  // first lookup, or close(), failed with a TypeError (answers.slot is not a function).
  if (config.cache !== undefined && config.cache !== 'memory' && config.cache !== 'off' && !hasMethods(config.cache, 'slot', 'close')) {
    throw expected('cache', '"memory", "off" or an AnswerStore (slot and close methods)', config.cache);
  }
  if (config.clock !== undefined && !hasMethods(config.clock, 'now', 'sleep')) throw expected('clock', 'a Clock (now and sleep methods)', config.clock);
  checkEnv(config.env);
  if (config.rates !== undefined) {
    if (config.rates === null || typeof config.rates !== 'object') throw expected('rates', 'an object of requests per second per lookup', config.rates);
    for (const [kind, rate] of Object.entries(config.rates)) {
      if (!isLookupKind(kind)) throw new UnknownLookupError(`Expected the keys of \`rates\` to be lookups (${LOOKUP_KINDS.join(', ')}), got ${JSON.stringify(kind)}`);
      // 0 means no client limit; a positive rate below one request a day is a typo, not a pace.
      const ok = rate === undefined || rate === 0 || (typeof rate === 'number' && Number.isFinite(rate) && rate >= 1 / 86_400);
      if (!ok) throw expected(`rates.${kind}`, 'requests per second: 0 (no limit) or at least one a day (1/86400)', rate);
    }
  }
}

function hasMethods(value: unknown, ...names: string[]): boolean {
  return typeof value === 'object' && value !== null && names.every((name) => typeof (value as Record<string, unknown>)[name] === 'function');
}

function checkKinds(kinds: readonly unknown[]): void {
  if (!Array.isArray(kinds) || kinds.length === 0) throw new UnknownLookupError(`Expected a lookup (${LOOKUP_KINDS.join(', ')}), got none`);
  for (const kind of kinds) {
    if (typeof kind !== 'string' || !isLookupKind(kind)) {
      throw new UnknownLookupError(`Expected a lookup (${LOOKUP_KINDS.join(', ')}), got ${typeof kind === 'string' ? JSON.stringify(kind) : String(kind)}`);
    }
  }
}

async function* items(numbers: Iterable<string> | AsyncIterable<string>): AsyncIterable<SourceItem> {
  const iterable = numbers as unknown as Record<symbol, unknown> | null | undefined;
  if (typeof iterable?.[Symbol.iterator] !== 'function' && typeof iterable?.[Symbol.asyncIterator] !== 'function') {
    throw expected('numbers', 'an iterable or async iterable of strings', numbers);
  }
  // A string is iterable too, and TypeScript takes it as an Iterable<string>: bulk('lrn', '2015550123')
  // would look up each digit as a number.
  if (typeof numbers === 'string') throw expected('numbers', 'an iterable or async iterable of strings, not one string (pass [number])', numbers);
  let index = 0;
  for await (const input of numbers) {
    if (typeof input !== 'string') throw expected(`numbers[${index}]`, 'a string', input);
    yield { index: index++, input };
  }
}
