// The wire on undici: one keep-alive pool per origin, for throughput. Requests go through
// undici's dispatch API: the answer arrives as chunks to a handler, without the stream and
// promise machinery of its request API, which a bulk run would pay for on every number.
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Dispatcher } from 'undici';
// Only the pool, not undici's index (fetch, websockets, caches, ...).
import PoolClass from 'undici/lib/dispatcher/pool.js';
import { header, type HeaderBag } from './rate-headers.js';
import type { PostOutcome, PostRequest, Wire, WireOptions } from './wire.js';

/**
 * A pool of keep-alive connections to `origin`, or the caller's own dispatcher, which the caller
 * keeps ownership of (close() leaves it open).
 */
export function createUndiciWire(origin: string, { connections, timeoutMs }: WireOptions, injected?: Dispatcher): Wire {
  const owned = injected
    ? undefined
    : new PoolClass(origin, {
        connections,
        connect: { timeout: timeoutMs },
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
      });
  const dispatcher = (injected ?? owned) as Dispatcher;
  return {
    post: async (req) => {
      const outcome = await post(dispatcher, req);
      // The pool marks the connection idle only after this turn: without waiting for it, a
      // caller's next request would open a second connection instead of reusing this one.
      await nextTurn();
      return outcome;
    },
    close: async () => {
      if (owned && !owned.closed) await owned.close();
    },
  };
}

function post(dispatcher: Dispatcher, req: PostRequest): Promise<PostOutcome> {
  return new Promise((resolve, reject) => {
    const { signal } = req;
    let controller: Dispatcher.DispatchController | undefined;
    let settled = false;
    let status = 0;
    let headers: HeaderBag = {};
    const chunks: Buffer[] = [];
    let total = 0;

    const settle = (finish: () => void) => {
      if (settled) return;
      settled = true;
      signal?.removeEventListener('abort', onAbort);
      finish();
    };
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
      drop(new Error(`the answer is larger than ${req.maxBytes} bytes`));
    };
    signal?.addEventListener('abort', onAbort);

    dispatcher.dispatch(
      {
        origin: req.origin,
        path: req.path,
        method: 'POST',
        headers: req.headers,
        body: req.body,
        // Per request too, so an injected dispatcher honours the configured timeout.
        headersTimeout: req.timeoutMs,
        bodyTimeout: req.timeoutMs,
      },
      {
        onRequestStart(c) {
          controller = c;
          // Aborted while it waited for a connection: it never goes out.
          if (settled) c.abort(new Error('aborted'));
        },
        onResponseStart(_c, statusCode, responseHeaders) {
          status = statusCode;
          headers = responseHeaders as HeaderBag;
          const declared = Number(header(headers, 'content-length'));
          if (Number.isFinite(declared) && declared > req.maxBytes) oversize();
        },
        onResponseData(_c, chunk) {
          if (settled) return;
          total += chunk.length;
          if (total > req.maxBytes) return oversize();
          chunks.push(chunk);
        },
        onResponseEnd() {
          settle(() => resolve({ kind: 'response', status, headers, text: Buffer.concat(chunks, total).toString('utf8') }));
        },
        onResponseError(_c, err) {
          settle(() => reject(err));
        },
      },
    );
  });
}
