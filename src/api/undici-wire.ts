// The wire on undici: one keep-alive pool per origin, for throughput.
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Readable } from 'node:stream';
import type { Dispatcher } from 'undici';
// Only the pool and its request method, not undici's index (fetch, websockets, caches, ...):
// loading the whole package costs more than the rest of a one-number run together.
import PoolClass from 'undici/lib/dispatcher/pool.js';
import request from 'undici/lib/api/api-request.js';
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
    post: (req) => post(dispatcher, req),
    close: async () => {
      if (owned && !owned.closed) await owned.close();
    },
  };
}

async function post(dispatcher: Dispatcher, req: PostRequest): Promise<PostOutcome> {
  const res = await request.call(dispatcher, {
    origin: req.origin,
    path: req.path,
    method: 'POST',
    headers: req.headers,
    body: req.body,
    signal: req.signal ?? null,
    // Per request too, so an injected dispatcher honours the configured timeout.
    headersTimeout: req.timeoutMs,
    bodyTimeout: req.timeoutMs,
  });
  const headers = res.headers as HeaderBag;
  const declared = Number(header(headers, 'content-length'));
  if (Number.isFinite(declared) && declared > req.maxBytes) {
    discard(res.body);
    return { kind: 'oversize', status: res.statusCode, headers };
  }
  const text = await readCapped(res.body, req.maxBytes);
  if (text === undefined) return { kind: 'oversize', status: res.statusCode, headers };
  // The pool marks the connection idle only after this turn: without waiting for it, a caller's
  // next request would open a second connection instead of reusing this one.
  await nextTurn();
  return { kind: 'response', status: res.statusCode, headers, text };
}

/**
 * The whole body as text, or undefined (and the body discarded) once it passes `maxBytes`. With
 * events rather than `for await`, whose iterator costs every response a few allocations more.
 */
function readCapped(body: Readable, maxBytes: number): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let total = 0;
    body.on('data', (chunk: Buffer) => {
      total += chunk.length;
      if (total <= maxBytes) return void chunks.push(chunk);
      discard(body);
      resolve(undefined);
    });
    body.on('end', () => resolve(Buffer.concat(chunks, total).toString('utf8')));
    body.on('error', reject);
  });
}

/** Drops an unread body: its connection is closed, and the abort it causes is expected. */
function discard(body: Readable): void {
  body.on('error', () => undefined);
  body.destroy();
}
