// Small HTTP helpers on plain node:http, written for the hot path: one writeHead with a flat
// header list, bodies read into one string, a hard cap on body size.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { isObject, type JsonObject } from '../core/json.js';

export const MAX_BODY = 64 * 1024;
/** After a 413, bytes still accepted (and dropped) before the connection is cut. */
const DRAIN_CAP = 1024 * 1024;

export function sendJson(res: ServerResponse, status: number, body: string, headers: readonly string[] = []): void {
  if (res.headersSent || res.destroyed) return;
  res.writeHead(status, ['Content-Type', 'application/json', 'Content-Length', String(Buffer.byteLength(body)), ...headers]);
  res.end(body);
}

export type BodyOutcome = { ok: true; text: string } | { ok: false; tooLarge: true } | { ok: false; tooLarge: false };

/** Reads the whole body up to `max` bytes; past it, stops keeping bytes and reports tooLarge. */
export function readBody(req: IncomingMessage, res: ServerResponse, done: (outcome: BodyOutcome) => void, max = MAX_BODY): void {
  const declared = Number(req.headers['content-length']);
  if (declared > max) {
    stopReading(req);
    safely(res, () => done({ ok: false, tooLarge: true }));
    return;
  }
  const chunks: Buffer[] = [];
  let size = 0;
  let finished = false;
  const finish = (o: BodyOutcome) => {
    if (finished) return;
    finished = true;
    // Runs from a stream event: an exception here would take the whole sandbox down.
    safely(res, () => done(o));
  };
  req.on('data', (chunk: Buffer) => {
    if (finished) return;
    size += chunk.length;
    if (size > max) {
      chunks.length = 0;
      stopReading(req);
      finish({ ok: false, tooLarge: true });
      return;
    }
    chunks.push(chunk);
  });
  req.on('end', () => finish({ ok: true, text: chunks.length === 1 ? (chunks[0] as Buffer).toString('utf8') : Buffer.concat(chunks).toString('utf8') }));
  req.on('error', () => finish({ ok: false, tooLarge: false }));
  req.on('aborted', () => finish({ ok: false, tooLarge: false }));
}

const INTERNAL_ERROR_BODY = '{"error":"internal_error","message":"the sandbox failed to answer this request"}';

/** Runs a handler; one that throws answers 500 instead of taking the sandbox down. */
export function safely(res: ServerResponse, fn: () => void): void {
  try {
    fn();
  } catch {
    sendJson(res, 500, INTERNAL_ERROR_BODY);
  }
}

/** Drops the rest of an oversized body without buffering it, and cuts a client that keeps sending. */
function stopReading(req: IncomingMessage): void {
  let dropped = 0;
  req.removeAllListeners('data');
  req.on('data', (chunk: Buffer) => {
    dropped += chunk.length;
    if (dropped > DRAIN_CAP) req.socket.destroy();
  });
  req.resume();
}

export function isJsonContentType(header: string | undefined): boolean {
  if (header === undefined) return false;
  const semi = header.indexOf(';');
  const type = (semi === -1 ? header : header.slice(0, semi)).trim().toLowerCase();
  return type === 'application/json' || (type.startsWith('application/') && type.endsWith('+json'));
}

/** JSON.parse that reports failure instead of throwing, and insists on an object at the top. */
export function parseObject(text: string): JsonObject | undefined {
  try {
    const v: unknown = JSON.parse(text);
    return isObject(v) ? v : undefined;
  } catch {
    return undefined;
  }
}
