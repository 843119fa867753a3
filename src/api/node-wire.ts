// The wire on Node's own http client. It loads in a few milliseconds where undici takes about
// thirty, which for a run of a few numbers is most of the run: such runs use this one, bulk runs
// undici's pool. Both answer alike (the transport tests run each case against both).
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
  return {
    post: (req) => post(client, agent, url, options, req),
    // Idle keep-alive connections are ended (a FIN, which the server answers by closing), not
    // destroyed: Node's destroy of a socket looks at process.stderr, which creates that stream, most
    // of a millisecond of a one-number run that never writes there. Idle ones hold no process open
    // (the agent unrefs them); any still busy (a cancelled run's) are destroyed.
    close: async () => {
      for (const list of Object.values(agent.freeSockets)) for (const socket of list ?? []) socket.end();
      for (const list of Object.values(agent.sockets)) for (const socket of list ?? []) socket.destroy();
    },
  };
}

function post(client: Client, agent: Agent, url: URL, { timeoutMs, maxBytes }: WireOptions, req: PostRequest): Promise<PostOutcome> {
  return new Promise((resolve, reject) => {
    let settled = false;
    const settle = (finish: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      req.signal?.removeEventListener('abort', cancel);
      finish();
    };
    const out = client.request({
      agent,
      protocol: url.protocol,
      // Without the brackets of an IPv6 literal ([::1]), which name no host to resolve.
      hostname: hostname(url),
      port: url.port,
      path: req.path,
      method: 'POST',
      headers: { ...req.headers, 'content-length': String(Buffer.byteLength(req.body)) },
    });
    // The signal is heard here rather than given to http.request, whose own handling (a stream
    // finish watcher per request) cost a one-number run a tenth of a millisecond or two; the caller
    // answers a cancelled request with the signal's reason, whatever error ends it here.
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
    out.on('error', (err) => settle(() => reject(err)));
    out.on('response', (res: IncomingMessage) => {
      const status = res.statusCode ?? 0;
      const headers = headerBag(res.rawHeaders);
      const oversize = () => {
        settle(() => resolve({ kind: 'oversize', status, headers }));
        // Destroying an unfinished answer closes its connection: nothing else may read from it.
        res.destroy();
      };
      phase = 'body';
      const answer = collectBody(maxBytes);
      if (answer.declare(header(headers, 'content-length'))) return oversize();
      const whole = () => settle(() => resolve({ kind: 'response', status, headers, text: answer.text() }));
      res.on('data', (chunk: Buffer) => {
        const got = answer.add(chunk);
        if (got === 'over') return oversize();
        // All the declared bytes are the whole answer: the caller has it now, not after 'end' and
        // the keep-alive bookkeeping that runs first (a millisecond of a one-number run).
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
 * compiled then, a tenth of a millisecond or two of a one-number run.
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

function hostname(url: URL): string {
  return url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
}

function codedError(code: string, message: string): Error {
  return Object.assign(new Error(message), { code });
}
