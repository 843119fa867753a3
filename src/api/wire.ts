// The wire under the transport: one POST out, the whole answer back. Two HTTP clients implement
// it: undici's keep-alive pool (undici-wire.ts), which carries bulk runs, and Node's own client
// (node-wire.ts), which loads in a fraction of the time and so suits a run of a few numbers.
import type { HeaderBag } from './rate-headers.js';

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

export interface Wire {
  /**
   * Sends one POST and reads the whole answer. Rejects only for what happened on the wire
   * (timeouts, resets, refused connections), an abort of `signal`, or use after close; any status
   * is a normal outcome. Timeouts reject with undici's codes (UND_ERR_CONNECT_TIMEOUT,
   * UND_ERR_HEADERS_TIMEOUT, UND_ERR_BODY_TIMEOUT) whichever client sent the request.
   */
  post(req: PostRequest): Promise<PostOutcome>;
  /** Closes the connections this wire opened (not an injected dispatcher). */
  close(): Promise<void>;
}

export interface WireOptions {
  /** Keep-alive connections at most. */
  readonly connections: number;
  /** Connect, headers and body timeouts, ms. */
  readonly timeoutMs: number;
}
