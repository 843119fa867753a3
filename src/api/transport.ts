// The service client: builds the request for the chosen transport, sends it once, classifies the
// answer. Retrying, waiting and stopping belong to the pipeline.
import { systemClock, type Clock } from '../core/clock.js';
import { BadOptionError, NumintelError, ProxyError, TlsError } from '../core/errors.js';
import type { LookupDescriptor, LookupOptions } from '../core/lookups.js';
import type { Advice } from '../core/advice.js';
import type { Attempt, BatchAttempt, SetupFailure, StatusAnswer, Transport } from '../core/transport.js';
import { isObject } from '../core/json.js';
import { bulkRequest, classifyBulk } from './bulk.js';
import { VERSION } from '../core/version.js';
import { checkBaseUrl, endpoint, type Endpoint } from './base-url.js';
import { oversize, type ClassifyContext, type RawResponse } from './classify.js';
import { classifyGraphql, graphqlRequest } from './graphql.js';
import { markUnsent, wireFailure } from './net-errors.js';
import { proxyFor, proxyFromEnv } from './proxy.js';
import { classifyRest, restRequest } from './rest.js';
import { requestLine, responseLine, type TraceSink } from './trace.js';
import type { PostOutcome, PostRequest, Wire, WireOptions } from './wire.js';
import { chooseWire, type HttpClient } from './wire-choice.js';

export interface ClientOptions {
  /** Service root, optionally with a path prefix (`https://proxy.example/numintel`). */
  readonly baseUrl: string;
  readonly apiKey?: string | undefined;
  /**
   * Default 'rest'. 'bulk': lookups with a bulk endpoint (LRN, CNAM) send many numbers a request
   * (sendBatch, batchSize); the others go to their single endpoint as with 'rest'.
   */
  readonly transport?: 'rest' | 'graphql' | 'bulk' | undefined;
  /** With 'bulk': numbers a request carries at most (1–1000). Default 1000. */
  readonly batchSize?: number | undefined;
  /** The whole request, connect to the last byte, ms. Default 15000. */
  readonly timeoutMs?: number | undefined;
  /** Keep-alive connections in the pool. Default 16. */
  readonly connections?: number | undefined;
  /** Larger bodies are dropped as `bad_response`. Default 1 MiB. */
  readonly maxResponseBytes?: number | undefined;
  /** Default `numintel/<VERSION>`. */
  readonly userAgent?: string | undefined;
  readonly clock?: Clock | undefined;
  /**
   * The HTTP client. Default: Node's own until the service has answered once, then undici's
   * keep-alive pool (see wire-choice.ts). 'node' or 'undici' sends every request on that one.
   */
  readonly httpClient?: HttpClient | undefined;
  /** --verbose: receives one line per request and one per response. */
  readonly trace?: TraceSink | undefined;
  /**
   * PEM text of certificates (a private CA) trusted for HTTPS in addition to Node's default trust
   * (its CA bundle and NODE_EXTRA_CA_CERTS, which apply without this).
   */
  readonly ca?: string | readonly string[] | undefined;
  /**
   * The environment whose HTTPS_PROXY, HTTP_PROXY and NO_PROXY apply (either case); none when
   * absent. With a proxy, requests go through undici's pool whatever `httpClient` says.
   */
  readonly env?: Readonly<Record<string, string | undefined>> | undefined;
  /** The user's names for the settings an error tells them to change. Default: the command line's flags. */
  readonly advice?: Advice | undefined;
}

interface Codec {
  build(d: LookupDescriptor, number: string, opts: LookupOptions): { path: string; body: object };
  classify(d: LookupDescriptor, opts: LookupOptions, raw: RawResponse, ctx: ClassifyContext): Attempt;
  /** Shown in traces; REST needs none. */
  label(d: LookupDescriptor): string | undefined;
}

const CODECS: Readonly<Record<'rest' | 'graphql', Codec>> = {
  rest: { build: restRequest, classify: classifyRest, label: () => undefined },
  graphql: { build: graphqlRequest, classify: classifyGraphql, label: (d) => `graphql ${d.graphqlField}` },
};

function positive(name: string, value: number | undefined, fallback: number, integer: boolean): number {
  if (value === undefined) return fallback;
  if (!Number.isFinite(value) || value <= 0 || (integer && !Number.isInteger(value))) {
    throw new BadOptionError(`${name} must be a positive ${integer ? 'integer' : 'number'}, got ${String(value)}`);
  }
  return value;
}

/**
 * Creates the client. Throws a usage error (NumintelError) for a bad base URL (see checkBaseUrl) or
 * a bad numeric option.
 *
 * `send` never throws for what the service answered or for a failure on the wire. It rejects only
 * when `signal` aborts (before or during the request): it then rejects with `signal.reason`, the
 * very value given to `controller.abort(reason)` (a DOMException named AbortError by default), and
 * the socket is torn down. So `signal.aborted` after a rejection means "cancelled", not "failed".
 */
export function createTransport(options: ClientOptions): Transport {
  const secret = options.apiKey || undefined;
  const advice = options.advice;
  const base = checkBaseUrl(options.baseUrl, secret !== undefined, advice);
  const timeoutMs = positive('timeoutMs', options.timeoutMs, 15_000, false);
  const connections = positive('connections', options.connections, 16, true);
  const maxBytes = positive('maxResponseBytes', options.maxResponseBytes, 1024 * 1024, true);
  const name = options.transport ?? 'rest';
  const codec = CODECS[name === 'bulk' ? 'rest' : name];
  const batchSize = positive('batchSize', options.batchSize, 1000, true);
  if (batchSize > 1000) throw new BadOptionError(`batchSize must be at most 1000 (the bulk endpoints' limit), got ${batchSize}`);
  const clock = options.clock ?? systemClock;
  const trace = options.trace;
  const proxy = proxyFromEnv(options.env);
  const proxyUrl = proxy ? proxyFor(proxy, base.origin) || undefined : undefined;
  const ca = base.origin.startsWith('https:') && options.ca !== undefined ? [options.ca].flat() : undefined;
  // Each HTTP client is loaded at its first request, so a process loads only the ones it uses.
  const wire = httpWire(base.origin, { connections, timeoutMs, maxBytes, proxy }, ca, options.env, proxy ? 'undici' : options.httpClient);
  let closing: Promise<void> | undefined;
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: 'application/json',
    'user-agent': options.userAgent || `numintel/${VERSION}`,
    ...(secret ? { authorization: `Bearer ${secret}` } : {}),
  };

  // One per service path (a handful), not one per request.
  const endpoints = new Map<string, Endpoint>();
  const endpointOf = (path: string): Endpoint => {
    let ep = endpoints.get(path);
    if (ep === undefined) endpoints.set(path, (ep = endpoint(base, path)));
    return ep;
  };

  /** What the service answered, as an Attempt. */
  const answered = (d: LookupDescriptor, number: string, opts: LookupOptions, out: PostOutcome): Attempt => {
    const ctx = { now: clock.now(), secret, advice, number };
    if (out.kind === 'oversize') return oversize(out.status, out.headers, maxBytes, ctx);
    const a = codec.classify(d, opts, out, ctx);
    if (untrusted([a])) out.discard();
    return a;
  };
  /** A request after close(): it never reaches the wire. */
  const closedAttempt = (): Attempt => ({ kind: 'error', error: { code: 'network_error', message: `request to ${base.origin} failed (CLIENT_CLOSED: the client is closed)` } });
  /** What went wrong before an answer, as an Attempt. */
  const failed = (err: unknown): Attempt =>
    // A client that cannot be set up (an unreadable `ca`) fails every request alike: stop.
    err instanceof NumintelError ? { kind: 'fatal', setup: setupOf(err), error: { code: 'network_error', message: err.message } } : markUnsent(err, wireFailure(err, { origin: base.origin, timeoutMs, secret, proxy: proxyUrl, advice }));

  /** The trace's two lines of one request: the request now, the response when given its outcome. */
  const traced = (sink: TraceSink, d: LookupDescriptor, ep: Endpoint, body: object) => {
    const label = codec.label(d);
    sink(requestLine(ep.href, label, 'variables' in body ? body.variables : body, secret));
    const started = clock.now();
    return (attempt: Attempt, status: number | undefined): Attempt => {
      const now = clock.now();
      sink(responseLine({ status, path: ep.path, label, elapsedMs: now - started, now, attempt }, secret));
      return attempt;
    };
  };

  // A promise chain, not an async function: a bulk run sends thousands of requests a second, and
  // an async function's suspended frame and its awaits cost each request about 260 bytes more
  // (the heap profile of a 30,000-row run), which the garbage collector then pays for.
  function sendNow(d: LookupDescriptor, number: string, opts: LookupOptions, signal: AbortSignal | undefined): Promise<Attempt> {
    signal?.throwIfAborted();
    const req = codec.build(d, number, opts);
    const ep = endpointOf(req.path);
    // What an attempt passes through on its way out: the trace's response line, or nothing.
    const end = trace ? traced(trace, d, ep, req.body) : untraced;
    // Never reaches the wire.
    if (closing) return Promise.resolve(end(closedAttempt(), undefined));
    const post: PostRequest = { path: ep.path, headers, body: JSON.stringify(req.body), signal };
    return wire.post(post).then(
      (out) => end(answered(d, number, opts, out), out.status),
      (err: unknown) => {
        if (signal?.aborted) throw signal.reason;
        return end(failed(err), undefined);
      },
    );
  }

  /** One bulk request for `numbers` (distinct, at most batchSize). */
  function sendBatch(d: LookupDescriptor, numbers: readonly string[], opts: LookupOptions, signal?: AbortSignal): Promise<BatchAttempt> {
    try {
      signal?.throwIfAborted();
      const req = bulkRequest(d, numbers, opts);
      const ep = endpointOf(req.path);
      const sink = trace;
      const started = clock.now();
      sink?.(requestLine(ep.href, `${numbers.length} numbers`, { ...req.body, phone_numbers: `[${numbers[0] ?? ''} …]` }, secret));
      const end = (b: BatchAttempt, status: number | undefined): BatchAttempt => {
        if (sink) {
          const attempt: Attempt = b.kind === 'whole' ? b.attempt : { kind: 'ok', result: {}, ...(b.rate ? { rate: b.rate } : {}) };
          const now = clock.now();
          sink(responseLine({ status, path: ep.path, label: `${numbers.length} numbers`, elapsedMs: now - started, now, attempt }, secret));
        }
        return b;
      };
      if (closing) return Promise.resolve(end({ kind: 'whole', attempt: closedAttempt() }, undefined));
      const post: PostRequest = { path: ep.path, headers, body: JSON.stringify(req.body), signal };
      return wire.post(post).then(
        (out) => {
          const ctx = { now: clock.now(), secret, advice };
          if (out.kind === 'oversize') return end({ kind: 'whole', attempt: oversize(out.status, out.headers, maxBytes, ctx) }, out.status);
          const b = classifyBulk(d, opts, out, ctx, numbers);
          if (untrusted(b.kind === 'whole' ? [b.attempt] : b.kind === 'rows' ? b.answers : [])) out.discard();
          return end(b, out.status);
        },
        (err: unknown) => {
          if (signal?.aborted) throw signal.reason;
          return end({ kind: 'whole', attempt: failed(err) }, undefined);
        },
      );
    } catch (err) {
      return Promise.reject(err);
    }
  }

  /** Whatever goes wrong is a rejection, never a throw, as from an async function. */
  function send(d: LookupDescriptor, number: string, opts: LookupOptions, signal?: AbortSignal): Promise<Attempt> {
    try {
      return sendNow(d, number, opts, signal);
    } catch (err) {
      return Promise.reject(err);
    }
  }

  /** GET /api/v1/status, sent without the key (it needs none). */
  function status(signal?: AbortSignal): Promise<StatusAnswer> {
    const ep = endpointOf(STATUS_PATH);
    const { authorization: _key, 'content-type': _type, ...plain } = headers;
    return wire.post({ path: ep.path, method: 'GET', headers: plain, body: '', signal }).then(
      (out): StatusAnswer => {
        if (out.kind === 'oversize') return { kind: 'absent', why: `HTTP ${out.status}, a body over ${maxBytes} bytes` };
        if (out.status < 200 || out.status > 299) return { kind: 'absent', why: `HTTP ${out.status}` };
        const body = jsonObject(out.text);
        return body ? { kind: 'up', body } : { kind: 'absent', why: `HTTP ${out.status} without a JSON object` };
      },
      (err: unknown) => {
        if (signal?.aborted) throw signal.reason;
        const a = failed(err);
        return { kind: 'absent', why: a.kind === 'ok' ? 'no answer' : a.error.message };
      },
    );
  }

  return {
    name,
    send,
    status,
    ...(name === 'bulk'
      ? {
          batchSize: (d: LookupDescriptor) => (d.bulk ? Math.min(batchSize, d.bulk.maxNumbers) : 1),
          sendBatch,
        }
      : {}),
    close() {
      // Idempotent: the pipeline and a finally block may both close.
      closing ??= wire.close();
      return closing;
    },
  };
}

/** The wire of `only`, or the one chosen request by request (see wire-choice.ts); each client opened at its first request. */
function httpWire(origin: string, options: WireOptions, ca: readonly string[] | undefined, env: ClientOptions['env'], only: HttpClient | undefined): Wire {
  // One secure context for both clients: a `ca` per connection would parse the whole CA bundle for each one.
  let prepared: Promise<WireOptions> | undefined;
  const open = async (client: HttpClient, onInterim: () => void): Promise<Wire> => {
    const opts = { ...(await (prepared ??= withTrust(options, ca, env))), onInterim };
    if (client === 'node') return (await import('./node-wire.js')).createNodeWire(origin, opts);
    return (await import('./undici-wire.js')).createUndiciWire(origin, opts);
  };
  return chooseWire(open, only);
}

/** `options` with a secure context trusting `ca` beside Node's default, when `ca` is given. */
async function withTrust(options: WireOptions, ca: readonly string[] | undefined, env: ClientOptions['env']): Promise<WireOptions> {
  if (!ca) return options;
  // node:tls loads only here: a plain-http run (the sandbox) never needs it.
  const { certificatesOf, trustContext } = await import('./trust.js');
  const certificates = ca.flatMap((text) => {
    try {
      return certificatesOf(text);
    } catch (err) {
      throw new TlsError(`the CA certificates given (ca) ${err instanceof Error ? err.message : String(err)}`);
    }
  });
  return { ...options, secureContext: trustContext(certificates, env ?? {}) };
}

const untraced = (attempt: Attempt): Attempt => attempt;

function jsonObject(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return isObject(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

/** The service's health endpoint (real-service-notes.md): no key, never billed. */
const STATUS_PATH = '/api/v1/status';

/**
 * An answer whose content cannot be the service's answer to this request (another number's, a
 * result of the wrong shape): the connection it came on may be out of step, and is not used again.
 */
const untrusted = (attempts: readonly Attempt[]): boolean => attempts.some((a) => a.kind === 'error' && a.error.code === 'bad_response');

/** The kind of a client that cannot be set up, from the error its set-up threw. */
function setupOf(err: NumintelError): SetupFailure {
  return err instanceof TlsError ? 'tls' : err instanceof ProxyError ? 'proxy' : 'setting';
}
