// The wire on undici: one keep-alive pool per origin, for throughput. Requests go through
// undici's dispatch API: the answer arrives as chunks to a handler, without the stream and
// promise machinery of its request API, which a bulk run would pay for on every number.
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Dispatcher } from 'undici';
// Only the pool, not undici's index (fetch, websockets, caches, ...).
import PoolClass from 'undici/lib/dispatcher/pool.js';
import { header, type HeaderBag } from './rate-headers.js';
import { collectBody, type PostOutcome, type PostRequest, type Wire, type WireOptions } from './wire.js';

/**
 * A pool of keep-alive connections to `origin`; with `proxy`, undici's EnvHttpProxyAgent, which
 * sends through a CONNECT tunnel (the proxy sees the host and port, never the request or its
 * key) unless NO_PROXY names the origin.
 */
export async function createUndiciWire(origin: string, { connections, timeoutMs, maxBytes, secureContext, proxy }: WireOptions): Promise<Wire> {
  const tls = { timeout: timeoutMs, ...(secureContext ? { secureContext } : {}) };
  const common = { connections, headersTimeout: timeoutMs, bodyTimeout: timeoutMs };
  let pool: Dispatcher;
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
    pool = new EnvHttpProxyAgent({ ...common, ...proxy, connect: tls, requestTls: tls, proxyTls: { timeout: timeoutMs } });
  } else {
    pool = new PoolClass(origin, { ...common, connect: tls });
  }
  let closed = false;
  return {
    post: async (req) => {
      const outcome = await post(pool, origin, maxBytes, timeoutMs, req);
      // The pool marks the connection idle only after this turn: without waiting for it, a
      // caller's next request would open a second connection instead of reusing this one.
      await nextTurn();
      return outcome;
    },
    close: async () => {
      if (closed) return;
      closed = true;
      await pool.close();
    },
  };
}

function post(pool: Dispatcher, origin: string, maxBytes: number, timeoutMs: number, req: PostRequest): Promise<PostOutcome> {
  return new Promise((resolve, reject) => {
    const { signal } = req;
    let controller: Dispatcher.DispatchController | undefined;
    let settled = false;
    let status = 0;
    let headers: HeaderBag = {};
    const body = collectBody(maxBytes);

    const settle = (finish: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      signal?.removeEventListener('abort', onAbort);
      finish();
    };
    // undici's body timeout restarts with every chunk: a server dripping a byte a second would
    // hold the request for ever. --timeout bounds the whole request.
    const deadline = setTimeout(() => {
      const err = Object.assign(new Error('the whole answer did not arrive in time'), { code: status === 0 ? 'UND_ERR_HEADERS_TIMEOUT' : 'NUMINTEL_ANSWER_TIMEOUT' });
      settle(() => reject(err));
      drop(err);
    }, timeoutMs);
    // Cancelled, or too big: the request is aborted, which also closes its connection.
    const drop = (reason: Error) => {
      if (controller && !controller.aborted) controller.abort(reason);
    };
    const onAbort = () => {
      const reason = signal?.reason instanceof Error ? signal.reason : new Error('aborted');
      settle(() => reject(reason));
      drop(reason);
    };
    const oversize = () => {
      settle(() => resolve({ kind: 'oversize', status, headers }));
      drop(new Error(`the answer is larger than ${maxBytes} bytes`));
    };
    signal?.addEventListener('abort', onAbort);

    pool.dispatch(
      { origin, path: req.path, method: 'POST', headers: req.headers, body: req.body },
      {
        onRequestStart(c) {
          controller = c;
          // Aborted while it waited for a connection: it never goes out.
          if (settled) c.abort(new Error('aborted'));
        },
        onResponseStart(_c, statusCode, responseHeaders) {
          status = statusCode;
          headers = responseHeaders as HeaderBag;
          if (body.declare(header(headers, 'content-length'))) oversize();
        },
        onResponseData(_c, chunk) {
          if (settled) return;
          if (body.add(chunk) === 'over') oversize();
        },
        onResponseEnd() {
          settle(() => resolve({ kind: 'response', status, headers, text: body.text() }));
        },
        onResponseError(_c, err) {
          settle(() => reject(err));
        },
      },
    );
  });
}
