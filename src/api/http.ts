// The wire: one keep-alive pool per origin, one POST, a body read under a size cap.
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Readable } from 'node:stream';
import type { Dispatcher, Pool } from 'undici';
// Only the pool and its request method, not undici's index (fetch, websockets, caches, ...):
// loading the whole package costs more than the rest of a one-number run together.
import PoolClass from 'undici/lib/dispatcher/pool.js';
import request from 'undici/lib/api/api-request.js';
import { header, type HeaderBag } from './rate-headers.js';

export interface PoolOptions {
  readonly connections: number;
  readonly timeoutMs: number;
}

/** Keep-alive connections to one origin; the timeouts apply to connect, headers and body alike. */
export function createPool(origin: string, { connections, timeoutMs }: PoolOptions): Pool {
  return new PoolClass(origin, {
    connections,
    connect: { timeout: timeoutMs },
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs,
  });
}

export interface PostRequest {
  readonly origin: string;
  readonly path: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
  readonly timeoutMs: number;
  readonly maxBytes: number;
  readonly signal?: AbortSignal | undefined;
}

export type PostOutcome =
  | { readonly kind: 'response'; readonly status: number; readonly headers: HeaderBag; readonly text: string }
  /** The body was larger than `maxBytes`: it was dropped unread and its connection destroyed. */
  | { readonly kind: 'oversize'; readonly status: number; readonly headers: HeaderBag };

/**
 * Sends one POST and reads the whole answer. Rejects only for what happened on the wire (timeouts,
 * resets, refused connections) or an abort of `signal`; any status is a normal outcome.
 */
export async function post(dispatcher: Dispatcher, req: PostRequest): Promise<PostOutcome> {
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
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of res.body as AsyncIterable<Buffer>) {
    total += chunk.length;
    if (total > req.maxBytes) {
      discard(res.body);
      return { kind: 'oversize', status: res.statusCode, headers };
    }
    chunks.push(chunk);
  }
  // The pool marks the connection idle only after this turn: without waiting for it, a caller's
  // next request would open a second connection instead of reusing this one.
  await nextTurn();
  return { kind: 'response', status: res.statusCode, headers, text: Buffer.concat(chunks).toString('utf8') };
}

/** Drops an unread body: its connection is closed, and the abort it causes is expected. */
function discard(body: Readable): void {
  body.on('error', () => undefined);
  body.destroy();
}
