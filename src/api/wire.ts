// The wire under the transport: one POST out, the whole answer back. Two HTTP clients implement
// it: Node's own (node-wire.ts), which loads with Node and so carries a run's first requests, and
// undici's keep-alive pool (undici-wire.ts), which carries the rest of a bulk run (wire-choice.ts
// picks between them).
import type { SecureContext } from 'node:tls';
import type { ProxySettings } from './proxy.js';
import type { HeaderBag } from './rate-headers.js';

export interface PostRequest {
  /** The request path on the wire's origin. */
  readonly path: string;
  /** Default POST; a GET sends no body. */
  readonly method?: 'GET' | 'POST' | undefined;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
  readonly signal?: AbortSignal | undefined;
}

export type PostOutcome = (
  | { readonly kind: 'response'; readonly status: number; readonly headers: HeaderBag; readonly text: string }
  /** The body was larger than `maxBytes`: it was dropped unread and its connection destroyed. */
  | { readonly kind: 'oversize'; readonly status: number; readonly headers: HeaderBag }
) & {
  /**
   * Closes the connection this answer came on, so that nothing more is read from it: for an answer
   * found to be another request's (a server that answered twice), whose connection would hand the
   * next request a stale answer. Call it as the answer is classified, before the caller sends
   * again. Node's client closes that one connection. undici's pool gives no handle on the
   * connection an answer came on: it is replaced by a new pool, the old one closed once its
   * requests under way are answered (it takes no new ones).
   */
  readonly discard: () => void;
};

export interface Wire {
  /**
   * Sends one POST and reads the whole answer. Rejects only for what happened on the wire
   * (timeouts, resets, refused connections, an answer no parser may read: see unreadableAnswer in
   * net-errors.ts), an abort of `signal`, or use after close; any status
   * is a normal outcome. Timeouts reject with the code of the phase they ended (undici's
   * UND_ERR_CONNECT_TIMEOUT, UND_ERR_HEADERS_TIMEOUT, or NUMINTEL_ANSWER_TIMEOUT for a body not
   * whole by the deadline) whichever client sent the request.
   */
  post(req: PostRequest): Promise<PostOutcome>;
  /** Closes the connections this wire opened. */
  close(): Promise<void>;
}

export interface WireOptions {
  /** Keep-alive connections at most. */
  readonly connections: number;
  /** The whole request, connect to the last byte of the body, ms (each wire's one deadline). */
  readonly timeoutMs: number;
  /** Larger bodies are dropped unread: the outcome is `oversize`. */
  readonly maxBytes: number;
  /** HTTPS trust other than Node's default (a --ca-file added to it, see trust.ts). */
  readonly secureContext?: SecureContext | undefined;
  /** Requests go through this proxy (undici's wire only: the transport sends every request on it then). */
  readonly proxy?: ProxySettings | undefined;
  /** Called when a server sends an interim (1xx) answer: Node's client reads it, undici's pool refuses a 100. */
  readonly onInterim?: (() => void) | undefined;
}

/** The body of one answer as it arrives, kept only up to the size cap. */
export interface BodyCollector {
  /** Takes the declared Content-Length; true when it is already over the cap (nothing to read). */
  declare(contentLength: string | undefined): boolean;
  /** 'over' once the body passes the cap (the chunk is not kept), 'whole' once all the declared bytes are in. */
  add(chunk: Buffer): 'over' | 'whole' | 'more';
  text(): string;
}

export function collectBody(maxBytes: number): BodyCollector {
  const chunks: Buffer[] = [];
  let total = 0;
  let declared = NaN;
  return {
    declare(contentLength) {
      declared = Number(contentLength);
      return Number.isFinite(declared) && declared > maxBytes;
    },
    add(chunk) {
      total += chunk.length;
      if (total > maxBytes) return 'over';
      chunks.push(chunk);
      return total === declared ? 'whole' : 'more';
    },
    text: () => Buffer.concat(chunks, total).toString('utf8'),
  };
}
