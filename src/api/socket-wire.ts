// The wire for a run of a few numbers: each POST written on a plain socket (node:net, or node:tls
// for https) and its answer read by http-parser-js. Node's own http client answers alike but was
// about a fifth of what a one-number run adds to Node's start-up: V8 compiles on first call the
// functions of its agent, outgoing and incoming messages and their streams (Node's code caches
// hold only what runs as its modules load). undici's pool carries bulk runs and proxies
// (undici-wire.ts).
import { connect as netConnect, isIP, type Socket } from 'node:net';
import type { ConnectionOptions } from 'node:tls';
import { HTTPParser, type OnHeadersCompleteParser } from 'http-parser-js';
import { header, type HeaderBag } from './rate-headers.js';
import { collectBody, type BodyCollector, type PostOutcome, type PostRequest, type Wire, type WireOptions } from './wire.js';

type Connect = (options: ConnectionOptions) => Socket;

/** One request on its way: the connection it holds, the parser reading its answer, and how it ends. */
interface Exchange {
  readonly req: PostRequest;
  /** The request's bytes (requestText). */
  readonly text: string;
  readonly resolve: (outcome: PostOutcome) => void;
  readonly reject: (err: Error) => void;
  conn?: Connection | undefined;
  /** A parser per answer: one left reading stray bytes after its answer cannot reach the next. */
  parser?: Parser | undefined;
  phase: 'queued' | 'connect' | 'headers' | 'body';
  status: number;
  headers: HeaderBag;
  answer?: BodyCollector | undefined;
  /** Usable for another request once this answer is read (HTTP/1.1 without `Connection: close`). */
  keepAlive: boolean;
  settled: boolean;
  timer?: ReturnType<typeof setTimeout> | undefined;
  cancel?: (() => void) | undefined;
}

interface Connection {
  readonly socket: Socket;
  exchange?: Exchange | undefined;
}

type Parser = InstanceType<typeof HTTPParser>;

export async function createSocketWire(origin: string, options: WireOptions): Promise<Wire> {
  const url = new URL(origin);
  const secure = url.protocol === 'https:';
  // node:tls loads only for https: a plain-http service (the sandbox) does not need it.
  const connectTo: Connect = secure ? (await import('node:tls')).connect : (o) => netConnect(o as never);
  // Without the brackets of an IPv6 literal ([::1]), which name no host to resolve.
  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  const port = Number(url.port || (secure ? 443 : 80));
  const target: ConnectionOptions = {
    host,
    port,
    // SNI names a host, never an address (as Node's https agent does); the certificate is checked
    // against `host` either way.
    ...(secure && isIP(host) === 0 ? { servername: host } : {}),
    ...(options.secureContext ? { secureContext: options.secureContext } : {}),
  };
  const all = new Set<Connection>();
  const idle: Connection[] = [];
  const queue: Exchange[] = [];
  let closed = false;

  function settle(ex: Exchange, finish: () => void): void {
    if (ex.settled) return;
    ex.settled = true;
    clearTimeout(ex.timer);
    if (ex.cancel) ex.req.signal?.removeEventListener('abort', ex.cancel);
    finish();
  }

  /** Ends an exchange with an error; its connection (if any) is closed: nothing else may read from it. */
  function fail(ex: Exchange, err: Error): void {
    settle(ex, () => ex.reject(err));
    const conn = ex.conn;
    if (conn) drop(conn);
    const at = queue.indexOf(ex);
    if (at >= 0) queue.splice(at, 1);
  }

  /** Closes a connection that may not carry another request. */
  function drop(conn: Connection): void {
    if (conn.exchange) conn.exchange.conn = undefined;
    conn.exchange = undefined;
    conn.socket.destroy();
  }

  function newConnection(): Connection {
    const socket = connectTo(target);
    socket.setNoDelay(true);
    const conn: Connection = { socket };
    all.add(conn);
    socket.once(secure ? 'secureConnect' : 'connect', () => {
      if (conn.exchange?.phase === 'connect') conn.exchange.phase = 'headers';
    });
    socket.on('data', (chunk: Buffer) => {
      const ex = conn.exchange;
      // Bytes nobody asked for (on an idle connection): it cannot be trusted with another request.
      if (!ex?.parser) return drop(conn);
      const done = ex.parser.execute(chunk);
      if (done instanceof Error) fail(ex, Object.assign(done, { code: (done as { code?: string }).code ?? 'HPE_INVALID' }));
    });
    socket.on('end', () => {
      // An answer that runs to the end of the connection (no length given) is whole here.
      conn.exchange?.parser?.finish();
      if (conn.exchange) fail(conn.exchange, codedError('ECONNRESET', 'the connection closed before the answer was complete'));
    });
    socket.on('error', (err) => {
      if (conn.exchange) fail(conn.exchange, err);
    });
    socket.on('close', () => {
      all.delete(conn);
      const at = idle.indexOf(conn);
      if (at >= 0) idle.splice(at, 1);
      if (conn.exchange) fail(conn.exchange, codedError('ECONNRESET', 'socket hang up'));
      next();
    });
    return conn;
  }

  /** A parser for the answer to `ex` on `conn`. */
  function parserFor(ex: Exchange, conn: Connection): Parser {
    const parser = new HTTPParser(HTTPParser.RESPONSE);
    parser[HTTPParser.kOnHeadersComplete] = ((info: Parameters<OnHeadersCompleteParser>[0]) => {
      if (ex.settled || info.statusCode < 200) return; // 100 Continue and its kind: the answer follows
      ex.status = info.statusCode;
      ex.headers = headerBag(info.headers);
      ex.keepAlive = info.shouldKeepAlive;
      ex.phase = 'body';
      const length = header(ex.headers, 'content-length');
      if (length !== undefined && !/^\s*\d+\s*$/.test(length)) return fail(ex, codedError('HPE_INVALID_CONTENT_LENGTH', `the answer's Content-Length is not a length (${length.slice(0, 20)})`));
      ex.answer = collectBody(options.maxBytes);
      if (ex.answer.declare(length)) oversize(ex);
    }) as OnHeadersCompleteParser;
    parser[HTTPParser.kOnBody] = (chunk: Buffer) => {
      if (!ex.settled && ex.answer?.add(chunk) === 'over') oversize(ex);
    };
    parser[HTTPParser.kOnMessageComplete] = () => {
      const { answer, status, headers } = ex;
      if (ex.settled || !answer) return; // the end of an informational answer
      settle(ex, () => ex.resolve({ kind: 'response', status, headers, text: answer.text() }));
      // Bytes after the answer in the same read (the parser goes on to them as the next answer's):
      // nothing was asked for them, so the connection cannot be trusted with another request. The
      // parser's read position is not in its types; the wire's tests cover this case.
      const read = parser as unknown as { offset: number; end: number };
      if (read.end > read.offset) return drop(conn);
      if (ex.keepAlive && !closed) return release(conn);
      // Its last answer (HTTP/1.0, `Connection: close`): ended, not destroyed (see close below).
      conn.exchange = undefined;
      conn.socket.end();
    };
    return parser;
  }

  function oversize(ex: Exchange): void {
    const { status, headers } = ex;
    settle(ex, () => ex.resolve({ kind: 'oversize', status, headers }));
    // The rest of the answer is left unread: its connection is closed.
    if (ex.conn) drop(ex.conn);
  }

  /** The connection's answer is read, and it may carry another: the next request waiting, or it waits idle. */
  function release(conn: Connection): void {
    conn.exchange = undefined;
    const ex = queue.shift();
    if (ex) return start(ex, conn);
    // An idle connection holds no process open.
    conn.socket.unref();
    idle.push(conn);
  }

  /** Starts the first waiting request if a connection is free or may be opened. */
  function next(): void {
    if (closed || queue.length === 0) return;
    const conn = idle.pop();
    if (conn) {
      conn.socket.ref();
      start(queue.shift() as Exchange, conn);
    } else if (all.size < options.connections) {
      start(queue.shift() as Exchange, newConnection());
    }
  }

  function start(ex: Exchange, conn: Connection): void {
    ex.conn = conn;
    ex.parser = parserFor(ex, conn);
    conn.exchange = ex;
    ex.phase = conn.socket.connecting ? 'connect' : 'headers';
    conn.socket.write(ex.text);
  }

  function post(req: PostRequest): Promise<PostOutcome> {
    return new Promise((resolve, reject) => {
      if (closed) return reject(codedError('UND_ERR_CLOSED', 'the client is closed'));
      let text: string;
      try {
        text = requestText(url.host, req);
      } catch (err) {
        return reject(err as Error);
      }
      const ex: Exchange = { req, text, resolve, reject, phase: 'queued', status: 0, headers: {}, keepAlive: false, settled: false };
      ex.cancel = () => fail(ex, codedError('ABORT_ERR', 'the request was cancelled'));
      if (req.signal?.aborted) return ex.cancel();
      req.signal?.addEventListener('abort', ex.cancel, { once: true });
      // One deadline for the whole request (connect, headers and every byte of the body): a server
      // dripping a byte a second must not keep it open past --timeout. The error carries the code of
      // the phase it ended in, as undici's connect and headers timeouts do.
      ex.timer = setTimeout(() => {
        const err =
          ex.phase === 'queued' || ex.phase === 'connect'
            ? codedError('UND_ERR_CONNECT_TIMEOUT', 'Connect Timeout Error')
            : ex.phase === 'headers'
              ? codedError('UND_ERR_HEADERS_TIMEOUT', 'Headers Timeout Error')
              : codedError('NUMINTEL_ANSWER_TIMEOUT', 'the whole answer did not arrive in time');
        fail(ex, err);
      }, options.timeoutMs);
      queue.push(ex);
      next();
    });
  }

  return {
    post,
    // Idle keep-alive connections are ended (a FIN, which the server answers by closing), not
    // destroyed: Node's destroy of a socket looks at process.stderr, which creates that stream, most
    // of a millisecond of a one-number run that never writes there. Requests still under way (a
    // cancelled run's) or waiting fail, their connections destroyed.
    close: async () => {
      closed = true;
      for (const ex of queue.splice(0)) fail(ex, codedError('UND_ERR_CLOSED', 'the client is closed'));
      for (const conn of all) {
        if (conn.exchange) fail(conn.exchange, codedError('UND_ERR_CLOSED', 'the client is closed'));
        else conn.socket.end();
      }
      idle.length = 0;
    },
  };
}

/** The request's bytes. A header value with a line break or NUL would forge headers: refused, unshown. */
function requestText(host: string, req: PostRequest): string {
  let text = `POST ${req.path} HTTP/1.1\r\nhost: ${host}\r\n`;
  for (const [name, value] of Object.entries(req.headers)) {
    if (/[\r\n\0]/.test(value) || !/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name)) throw codedError('ERR_INVALID_CHAR', `Invalid character in header content ["${name}"]`);
    text += `${name}: ${value}\r\n`;
  }
  return `${text}content-length: ${Buffer.byteLength(req.body)}\r\n\r\n${req.body}`;
}

/** The headers by lower-case name, a repeated one as the list of its values (as undici gives them). */
function headerBag(raw: readonly string[]): HeaderBag {
  const bag: Record<string, string | string[]> = Object.create(null) as Record<string, string | string[]>;
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = (raw[i] as string).toLowerCase();
    const value = raw[i + 1] as string;
    const had = bag[name];
    bag[name] = had === undefined ? value : typeof had === 'string' ? [had, value] : [...had, value];
  }
  return bag;
}

function codedError(code: string, message: string): Error {
  return Object.assign(new Error(message), { code });
}
