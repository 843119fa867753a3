// numintel as a library: the same flow as the command line (validation, dedup, rate-aware
// queue, retries, ordered records), for scripts that would rather import than spawn.
//
//   import { createClient } from 'numintel';
//   const client = createClient({ baseUrl, apiKey });
//   const record = await client.lookup('lrn', '(201) 555-0123', { enhanced: true });
//   for await (const r of client.bulk('cnam', numbers, { spam: true })) console.log(r);
//   await client.close();
import { systemClock, type Clock } from './core/clock.js';
import { NumintelError } from './core/errors.js';
import { isLookupKind, LOOKUP_KINDS, LOOKUPS, type LookupDescriptor, type LookupKind, type LookupOptions } from './core/lookups.js';
import type { EnrichRecord, LookupRecord, OutputRecord } from './core/records.js';
import type { ResultOf } from './core/result-types.js';
import { newRunStats, type RunStats, type SourceItem } from './core/run.js';
import { createTransport } from './api/index.js';
import { runPipeline } from './pipeline/runner.js';
import { stopFailure } from './pipeline/stop.js';
import { Session } from './pipeline/session.js';
import { DEFAULT_MAX_AGE } from './settings/max-age.js';
import { MemoryAnswerStore, NO_STORE, type AnswerStore } from './store/answer-store.js';
import type { Sandbox, SandboxOptions } from './sandbox/index.js';

export { LOOKUPS, LOOKUP_KINDS, type LookupKind, type LookupOptions, type LookupDescriptor } from './core/lookups.js';
export { parseNumber, type ParsedNumber } from './core/numbers.js';
export type { EnrichRecord, LookupError, LookupErrorCode, LookupRecord, OutputRecord, Result } from './core/records.js';
export type { CnamResult, EnhancedLrnData, LrnResult, MessagingData, ResultOf, TrustResult } from './core/result-types.js';

/** A lookup record whose result has its lookup's type (generated from the descriptors). */
export type TypedLookupRecord<K extends LookupKind = LookupKind> = Omit<LookupRecord, 'lookup' | 'result'> & { lookup: K; result: ResultOf[K] | null };
/** An enrich record whose results have their lookups' types. */
export type TypedEnrichRecord<K extends LookupKind = LookupKind> = Omit<EnrichRecord, 'results'> & { results: { [P in K]?: ResultOf[P] | null } };
export { newRunStats, type RunStats } from './core/run.js';
export { NumintelError, type FailureKind } from './core/errors.js';
export { MemoryAnswerStore, NO_STORE, type AnswerStore, type AnswerSlot, type CachedAnswer } from './store/answer-store.js';
export type { Sandbox, SandboxOptions } from './sandbox/index.js';
export { VERSION } from './core/version.js';

export interface ClientConfig {
  readonly baseUrl: string;
  readonly apiKey: string;
  readonly transport?: 'rest' | 'graphql';
  /** Per-request timeout, ms. Default 15000. */
  readonly timeoutMs?: number;
  /** Requests in flight at most. Default 16. */
  readonly concurrency?: number;
  /** Requests per second per lookup kind (0 = no client limit). Default: the documented limits. */
  readonly rates?: Partial<Record<LookupKind, number>>;
  /** Retries of a transient failure. Default 5. */
  readonly retries?: number;
  readonly clock?: Clock;
  /**
   * PEM text of CA certificates trusted for HTTPS besides Node's default trust (its bundle and
   * NODE_EXTRA_CA_CERTS, which apply without this): a private CA, or a sandbox's `ca`. Before
   * Node 22.15, which cannot list its default trust, NODE_EXTRA_CA_CERTS is kept beside `ca` only
   * when `env` holds it.
   */
  readonly ca?: string | readonly string[];
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

export interface BulkOptions extends LookupOptions {
  /** false sends numbers as given (punctuation stripped), without validating them. */
  readonly validate?: boolean;
  /** Stops dispatching; the records finished so far still come out. */
  readonly signal?: AbortSignal;
  /**
   * Kept current during the run (`newRunStats(Date.now())` makes one): what the CLI's summary says.
   * `lookups` are first tries that went out, `retries` the requests sent again, `requests` both;
   * duplicates, invalid numbers and rows never sent count in neither.
   */
  readonly stats?: RunStats;
}

export interface NumintelClient {
  /** One lookup of one number. Never throws for a bad number or a failed lookup: see `ok`/`error`. */
  lookup<K extends LookupKind>(kind: K, number: string, options?: BulkOptions): Promise<TypedLookupRecord<K>>;
  /**
   * Records in input order. Throws a NumintelError of kind `refused` if the key is refused mid-run,
   * of kind `usage` if the connection cannot be set up (a certificate not trusted, a proxy refusing).
   */
  bulk<K extends LookupKind>(kind: K, numbers: Iterable<string> | AsyncIterable<string>, options?: BulkOptions): AsyncIterable<TypedLookupRecord<K>>;
  /** Several lookups per number in one pass. */
  enrich<K extends LookupKind>(kinds: readonly K[], numbers: Iterable<string> | AsyncIterable<string>, options?: BulkOptions): AsyncIterable<TypedEnrichRecord<K>>;
  close(): Promise<void>;
}

export function createClient(config: ClientConfig): NumintelClient {
  const clock = config.clock ?? systemClock;
  const store: AnswerStore =
    config.cache === 'off' ? NO_STORE : config.cache === undefined || config.cache === 'memory' ? new MemoryAnswerStore((kind, at) => clock.now() - at <= DEFAULT_MAX_AGE[kind]) : config.cache;
  const transport = createTransport({
    baseUrl: config.baseUrl,
    apiKey: config.apiKey,
    transport: config.transport,
    timeoutMs: config.timeoutMs,
    connections: config.concurrency,
    clock,
    ca: config.ca,
    env: config.env,
  });

  async function* run(mode: 'single' | 'enrich', kinds: readonly LookupKind[], numbers: Iterable<string> | AsyncIterable<string>, options: BulkOptions = {}): AsyncIterable<OutputRecord> {
    const handle = runPipeline(items(numbers), { mode, lookups: kinds.map(descriptor), options, validate: options.validate !== false }, {
      transport,
      answers: store,
      clock,
      stats: options.stats ?? newRunStats(clock.now()),
      concurrency: config.concurrency,
      rates: config.rates,
      retries: config.retries,
      signal: options.signal,
    });
    yield* handle.records;
    const stopped = handle.outcome().stopped;
    if (stopped && stopped.reason !== 'closed') throw stopFailure(stopped);
  }

  // Single lookups share one run per lookup and options: parallel calls pace, share the
  // concurrency slots and send each number once, as bulk() would.
  const session = new Session(
    { transport, answers: store, clock, concurrency: config.concurrency, rates: config.rates, retries: config.retries },
    (stopped) => stopFailure(stopped),
  );

  return {
    // The records are what the service sent, typed by their lookup's descriptor (result-types.ts).
    lookup: <K extends LookupKind>(kind: K, number: string, options: BulkOptions = {}) => {
      const { validate, signal, stats: _stats, ...opts } = options;
      const record = session.lookup(descriptor(kind), number, opts, validate !== false) as Promise<TypedLookupRecord<K>>;
      if (!signal) return record;
      return new Promise<TypedLookupRecord<K>>((resolve, reject) => {
        if (signal.aborted) return reject(signal.reason);
        signal.addEventListener('abort', () => reject(signal.reason), { once: true });
        record.then(resolve, reject);
      });
    },
    bulk: <K extends LookupKind>(kind: K, numbers: Iterable<string> | AsyncIterable<string>, options?: BulkOptions) =>
      run('single', [kind], numbers, options) as AsyncIterable<TypedLookupRecord<K>>,
    enrich: <K extends LookupKind>(kinds: readonly K[], numbers: Iterable<string> | AsyncIterable<string>, options?: BulkOptions) =>
      run('enrich', kinds, numbers, options) as AsyncIterable<TypedEnrichRecord<K>>,
    close: async () => {
      session.close();
      await transport.close();
      await store.close();
    },
  };
}

/** The descriptor of a lookup kind, or a clear error for a kind that does not exist. */
function descriptor(kind: LookupKind): LookupDescriptor {
  if (!isLookupKind(kind)) throw new NumintelError('usage', `unknown lookup ${JSON.stringify(kind)}: choose from ${LOOKUP_KINDS.join(', ')}`);
  return LOOKUPS[kind];
}

/**
 * Starts the sandbox emulator (see sandbox/index.ts). Loaded on first use, so importing the library
 * does not load the sandbox and its GraphQL engine.
 */
export async function startSandbox(options?: Partial<SandboxOptions>): Promise<Sandbox> {
  return (await import('./sandbox/index.js')).startSandbox(options);
}

async function* items(numbers: Iterable<string> | AsyncIterable<string>): AsyncIterable<SourceItem> {
  let index = 0;
  for await (const input of numbers) yield { index: index++, input };
}
