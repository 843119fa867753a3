// The wire on undici: one keep-alive pool per origin, for throughput. Requests go through
// undici's dispatch API: the answer arrives as chunks to a handler, without the stream and
// promise machinery of its request API, which a bulk run would pay for on every number.
import type { Dispatcher } from 'undici';
// Only the pool, not undici's index (fetch, websockets, caches, ...).
import PoolClass from 'undici/lib/dispatcher/pool.js';
import { header, type HeaderBag } from './rate-headers.js';
import { collectBody, type BodyCollector, type PostOutcome, type PostRequest, type Wire, type WireOptions } from './wire.js';

/**
 * A pool of keep-alive connections to `origin`; with `proxy`, undici's EnvHttpProxyAgent, which
 * sends through a CONNECT tunnel (the proxy sees the host and port, never the request or its
 * key) unless NO_PROXY names the origin.
 */
export async function createUndiciWire(origin: string, { connections, timeoutMs, maxBytes, secureContext, proxy, onInterim }: WireOptions): Promise<Wire> {
  const tls = { timeout: timeoutMs, ...(secureContext ? { secureContext } : {}) };
  // The wire's own deadline (LiveExchanges, on the monotonic clock) ends a request waiting for its
  // answer. undici's header and body timers tick every half second and date a new timer from the
  // tick before, so they fire up to half a second early (a 600 ms one ended a request at 527 ms):
  // they only stand behind the wire's, a second later.
  const common = { connections, headersTimeout: timeoutMs + 1000, bodyTimeout: timeoutMs + 1000 };
  let makePool: () => Dispatcher;
  if (proxy) {
    // Loaded only when a proxy is set: most runs never pay for it.
    const [{ default: EnvHttpProxyAgent }, { default: DispatcherClass }, { default: connectApi }] = await Promise.all([
      import('undici/lib/dispatcher/env-http-proxy-agent.js'),
      import('undici/lib/dispatcher/dispatcher.js'),
      import('undici/lib/api/api-connect.js'),
    ]);
    // The proxy agent opens its tunnel with dispatcher.connect(), which undici's index adds to
    // every dispatcher and which numintel, loading only the parts it uses, must add itself.
    const proto = DispatcherClass.prototype as { connect?: unknown };
    proto.connect ??= connectApi;
    // Explicit values, even empty ones: undici falls back to process.env for an undefined one.
    makePool = () => new EnvHttpProxyAgent({ ...common, ...proxy, connect: tls, requestTls: tls, proxyTls: { timeout: timeoutMs } });
  } else {
    makePool = () => new PoolClass(origin, { ...common, connect: tls });
  }
  let closed = false;
  const live = new LiveExchanges(timeoutMs, onInterim);
  /** Pools replaced by discard(), closing once their requests under way are answered. */
  const retired = new Set<Promise<void>>();
  /** The pool new requests go to, and the discard() of the answers it gives. */
  const open = (): Generation => {
    const pool = makePool();
    const generation = {
      pool,
      discard: () => {
        if (current !== generation || closed) return;
        current = open();
        const closing = pool.close().catch(() => undefined);
        retired.add(closing);
        void closing.then(() => retired.delete(closing));
      },
    };
    return generation;
  };
  let current: Generation = open();
  return {
    post: (req) => (closed ? Promise.reject(Object.assign(new Error('the client is closed'), { code: 'UND_ERR_CLOSED' })) : post(current.pool, current.discard, origin, maxBytes, live, req)),
    close: async () => {
      if (closed) return;
      closed = true;
      await Promise.all([current.pool.close(), ...retired]);
    },
  };
}

interface Generation {
  readonly pool: Dispatcher;
  readonly discard: () => void;
}

/**
 * The requests of one wire in flight, oldest first. A bulk run keeps thousands a second going
 * through a wire, and a timer and an abort listener of each its own cost more CPU than the rest of
 * the wire together; so the wire keeps ONE deadline timer, for its oldest request (all share one
 * timeout, so the oldest ends first), and ONE abort listener per signal its requests carry.
 */
class LiveExchanges {
  private head: Exchange | null = null;
  private tail: Exchange | null = null;
  private timer: NodeJS.Timeout | undefined;
  /** Per signal: its listener and how many requests in flight carry it. */
  private readonly signals = new Map<AbortSignal, { readonly onAbort: () => void; count: number }>();

  constructor(
    private readonly timeoutMs: number,
    /** Told of an interim answer (see WireOptions). */
    readonly onInterim: (() => void) | undefined,
  ) {}

  add(ex: Exchange): void {
    ex.prev = this.tail;
    if (this.tail) this.tail.next = ex;
    else this.head = ex;
    this.tail = ex;
    this.timer ??= setTimeout(this.expire, this.timeoutMs);
    const { signal } = ex;
    if (!signal) return;
    const listening = this.signals.get(signal);
    if (listening) {
      listening.count += 1;
      return;
    }
    const onAbort = () => this.abort(signal);
    this.signals.set(signal, { onAbort, count: 1 });
    signal.addEventListener('abort', onAbort);
  }

  remove(ex: Exchange): void {
    if (ex.prev) ex.prev.next = ex.next;
    else this.head = ex.next;
    if (ex.next) ex.next.prev = ex.prev;
    else this.tail = ex.prev;
    ex.prev = ex.next = null;
    // A request still in flight keeps the timer: it is moved on when it fires (see expire).
    if (!this.head) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    const { signal } = ex;
    const listening = signal && this.signals.get(signal);
    if (listening && --listening.count === 0) {
      this.signals.delete(signal);
      signal.removeEventListener('abort', listening.onAbort);
    }
  }

  /** Ends every request past its deadline, then waits for the next oldest one's. */
  private readonly expire = () => {
    this.timer = undefined;
    const now = performance.now();
    while (this.head && this.head.startedAt + this.timeoutMs <= now) this.head.timedOut();
    if (this.head) this.timer = setTimeout(this.expire, Math.max(1, Math.ceil(this.head.startedAt + this.timeoutMs - now)));
  };

  private abort(signal: AbortSignal): void {
    for (let ex = this.head; ex; ) {
      const next = ex.next;
      if (ex.signal === signal) ex.aborted();
      ex = next;
    }
  }
}

/** One POST in flight: undici's handler of its answer, and its place among the wire's requests. */
class Exchange implements Dispatcher.DispatchHandler {
  prev: Exchange | null = null;
  next: Exchange | null = null;
  readonly startedAt = performance.now();
  private controller: Dispatcher.DispatchController | undefined;
  private settled = false;
  private status = 0;
  private headers: HeaderBag = {};
  private readonly body: BodyCollector;

  constructor(
    private readonly live: LiveExchanges,
    readonly signal: AbortSignal | undefined,
    private readonly maxBytes: number,
    private readonly discard: () => void,
    private readonly resolve: (outcome: PostOutcome) => void,
    private readonly reject: (err: unknown) => void,
  ) {
    this.body = collectBody(maxBytes);
    live.add(this);
  }

  onRequestStart(c: Dispatcher.DispatchController): void {
    this.controller = c;
    // Aborted while it waited for a connection: it never goes out.
    if (this.settled) c.abort(new Error('aborted'));
  }

  onResponseStart(_c: Dispatcher.DispatchController, statusCode: number, headers: Record<string, string | string[] | undefined>): void {
    // An interim answer (103 Early Hints and the like; undici refuses a 100, see onResponseError): the final one follows.
    if (statusCode < 200) {
      this.live.onInterim?.();
      return;
    }
    this.status = statusCode;
    this.headers = headers as HeaderBag;
    if (this.body.declare(header(this.headers, 'content-length'))) this.oversize();
  }

  onResponseData(_c: Dispatcher.DispatchController, chunk: Buffer): void {
    if (this.settled) return;
    if (this.body.add(chunk) === 'over') this.oversize();
  }

  onResponseEnd(): void {
    if (this.settle()) this.answer({ kind: 'response', status: this.status, headers: this.headers, text: this.body.text(), discard: this.discard });
  }

  onResponseError(_c: Dispatcher.DispatchController, err: Error): void {
    if (!refusedInterim(err)) {
      if (this.settle()) this.reject(err);
      return;
    }
    this.live.onInterim?.();
    if (this.settle()) this.reject(interimRefused(err));
  }

  /**
   * undici's body timeout restarts with every chunk: a server dripping a byte a second would hold
   * the request for ever. --timeout bounds the whole request.
   */
  timedOut(): void {
    const err = Object.assign(new Error('the whole answer did not arrive in time'), { code: this.status === 0 ? 'UND_ERR_HEADERS_TIMEOUT' : 'NUMINTEL_ANSWER_TIMEOUT' });
    if (this.settle()) this.reject(err);
    this.drop(err);
  }

  aborted(): void {
    const reason = this.signal?.reason instanceof Error ? this.signal.reason : new Error('aborted');
    if (this.settle()) this.reject(reason);
    this.drop(reason);
  }

  private oversize(): void {
    if (this.settle()) this.answer({ kind: 'oversize', status: this.status, headers: this.headers, discard: this.discard });
    this.drop(new Error(`the answer is larger than ${this.maxBytes} bytes`));
  }

  /**
   * Hands the outcome over on the next turn of the event loop. The pool marks the connection idle
   * only in a callback it schedules as the answer ends: handed over at once, a caller's next request
   * would open a second connection instead of reusing this one. Scheduled from a microtask, which
   * runs once undici has scheduled its own, so the caller's turn comes after the pool's. (Callbacks,
   * not awaited promises: they cost a bulk run no promise and no async step a request.)
   */
  private answer(outcome: PostOutcome): void {
    queueMicrotask(() => setImmediate(this.resolve, outcome));
  }

  /** True the first time: the request leaves the wire's list (its deadline and its signal). */
  private settle(): boolean {
    if (this.settled) return false;
    this.settled = true;
    this.live.remove(this);
    return true;
  }

  /** Cancelled, too big or too late: the request is aborted, which also closes its connection. */
  private drop(reason: Error): void {
    if (this.controller && !this.controller.aborted) this.controller.abort(reason);
  }
}

function post(pool: Dispatcher, discard: () => void, origin: string, maxBytes: number, live: LiveExchanges, req: PostRequest): Promise<PostOutcome> {
  return new Promise((resolve, reject) => {
    const exchange = new Exchange(live, req.signal, maxBytes, discard, resolve, reject);
    pool.dispatch({ origin, path: req.path, ...(req.method === 'GET' ? { method: 'GET' } : { method: 'POST', body: req.body }), headers: req.headers }, exchange);
  });
}

/**
 * undici's pool refuses an interim 100 Continue it did not ask for (it never sends `Expect:`): it
 * closes the connection with "bad response", the answer that followed unread. Its other "bad
 * response" (bytes on an idle connection) fails no request.
 */
function refusedInterim(err: Error): boolean {
  return (err as { code?: unknown }).code === 'UND_ERR_SOCKET' && err.message === 'bad response';
}

/** The refusal under a code of its own: the service answered, after a 100 Continue, and the answer could not be read. */
function interimRefused(err: Error): Error {
  return Object.assign(new Error('an interim 100 Continue came before the answer, which undici does not read', { cause: err }), { code: 'NUMINTEL_INTERIM_REFUSED' });
}
