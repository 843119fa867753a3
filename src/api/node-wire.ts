// The wire on Node's own http client, for a run's first requests: it loads with Node, where undici
// and its WebAssembly parser take longer to load and compile than a run of one number spends on
// the wire (see wire-choice.ts). Both clients answer alike: the transport, hostile-server and TLS
// suites run every case against each.
// Named, not `* as http`: the bundle copies every export of a namespace import at start.
import { Agent, request, type IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import { header, type HeaderBag } from './rate-headers.js';
import { collectBody, type PostOutcome, type PostRequest, type Wire, type WireOptions } from './wire.js';

interface Client {
  readonly Agent: typeof Agent;
  readonly request: typeof request;
}

export async function createNodeWire(origin: string, options: WireOptions): Promise<Wire> {
  const url = new URL(origin);
  // node:https loads TLS, which a plain-http service (the sandbox) does not need.
  const client: Client = url.protocol === 'https:' ? await import('node:https') : { Agent, request };
  const agent = new client.Agent({ keepAlive: true, maxSockets: options.connections, ...(options.secureContext ? { secureContext: options.secureContext } : {}) });
  let closed = false;
  return {
    post: (req) => (closed ? Promise.reject(codedError('UND_ERR_CLOSED', 'the client is closed')) : post(client, agent, url, options, req)),
    // Idle keep-alive connections are ended (a FIN, which the server answers by closing), not
    // destroyed: Node's destroy of a socket looks at process.stderr, which creates that stream, most
    // of a millisecond of a one-number run that never writes there. Idle ones hold no process open
    // (the agent unrefs them); any still busy (a cancelled run's) are destroyed.
    close: async () => {
      closed = true;
      for (const list of Object.values(agent.freeSockets)) for (const socket of list ?? []) socket.end();
      for (const list of Object.values(agent.sockets)) for (const socket of list ?? []) socket.destroy();
    },
  };
}

function post(client: Client, agent: Agent, url: URL, { timeoutMs, maxBytes, onInterim }: WireOptions, req: PostRequest): Promise<PostOutcome> {
  return new Promise((resolve, reject) => {
    let settled = false;
    const settle = (finish: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      req.signal?.removeEventListener('abort', cancel);
      finish();
    };
    let out: ReturnType<typeof request>;
    try {
      out = client.request({
        agent,
        protocol: url.protocol,
        // Without the brackets of an IPv6 literal ([::1]), which name no host to resolve.
        hostname: url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname,
        port: url.port,
        path: req.path,
        method: req.method ?? 'POST',
        headers: req.method === 'GET' ? req.headers : { ...req.headers, 'content-length': String(Buffer.byteLength(req.body)) },
      });
    } catch (err) {
      // A header value Node refuses (a line break would forge headers): nothing was sent.
      return reject(err as Error);
    }
    // The signal is heard here rather than given to http.request, whose own handling (a stream
    // finish watcher per request) costs a one-number run more; the caller answers a cancelled
    // request with the signal's reason, whatever error ends it here.
    const cancel = () => out.destroy(codedError('ABORT_ERR', 'the request was cancelled'));
    if (req.signal?.aborted) cancel();
    else req.signal?.addEventListener('abort', cancel, { once: true });
    // One deadline for the whole request (connect, headers and every byte of the body): a server
    // dripping a byte a second must not keep it open past --timeout. The error carries the code of
    // the phase it ended in, as undici's connect and headers timeouts do.
    let phase: 'connect' | 'headers' | 'body' = 'connect';
    const timer = setTimeout(() => {
      const err =
        phase === 'connect'
          ? codedError('UND_ERR_CONNECT_TIMEOUT', 'Connect Timeout Error')
          : phase === 'headers'
            ? codedError('UND_ERR_HEADERS_TIMEOUT', 'Headers Timeout Error')
            : codedError('NUMINTEL_ANSWER_TIMEOUT', 'the whole answer did not arrive in time');
      settle(() => reject(err));
      out.destroy(err);
    }, timeoutMs);
    const awaitHeaders = () => {
      phase = 'headers';
    };
    out.on('socket', (socket: Socket) => {
      if (!socket.connecting) return awaitHeaders();
      socket.once('encrypted' in socket ? 'secureConnect' : 'connect', awaitHeaders);
    });
    // Node reads interim answers (100 Continue and the rest of 1xx, RFC 9110 §15.2) and goes on to
    // the final one.
    if (onInterim) out.on('information', onInterim);
    out.on('error', (err) => settle(() => reject(err)));
    out.on('response', (res: IncomingMessage) => {
      const status = res.statusCode ?? 0;
      const headers = headerBag(res.rawHeaders);
      const socket = res.socket;
      // Closes the connection the answer came on, whatever request holds it by now (see Wire.discard).
      const discard = () => socket?.destroy();
      const oversize = () => {
        settle(() => resolve({ kind: 'oversize', status, headers, discard }));
        // Destroying an unfinished answer closes its connection: nothing else may read from it.
        res.destroy();
      };
      phase = 'body';
      const answer = collectBody(maxBytes);
      if (answer.declare(header(headers, 'content-length'))) return oversize();
      const whole = () => settle(() => resolve({ kind: 'response', status, headers, text: answer.text(), discard }));
      res.on('data', (chunk: Buffer) => {
        const got = answer.add(chunk);
        if (got === 'over') return oversize();
        // All the declared bytes are the whole answer: the caller has it now, not after 'end' and
        // the keep-alive bookkeeping that runs first.
        if (got === 'whole') return whole();
      });
      res.on('end', whole);
      res.on('error', (err) => settle(() => reject(err)));
      res.on('close', () => {
        if (!res.complete) settle(() => reject(codedError('ECONNRESET', 'the connection closed before the answer was complete')));
      });
    });
    out.end(req.body, 'utf8');
  });
}

/**
 * The headers by lower-case name, a repeated one as the list of its values (as undici gives
 * them). Read from `rawHeaders`: Node's own `headers` object is built on first use by code
 * compiled then.
 */
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
