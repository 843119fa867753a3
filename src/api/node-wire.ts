// The wire on Node's own http client. It loads in a few milliseconds where undici takes about
// thirty, which for a run of a few numbers is most of the run: such runs use this one, bulk runs
// undici's pool. Both answer alike (the transport tests run each case against both).
import * as http from 'node:http';
import type { Socket } from 'node:net';
import type { HeaderBag } from './rate-headers.js';
import { collectBody, type PostOutcome, type PostRequest, type Wire, type WireOptions } from './wire.js';

type Client = Pick<typeof http, 'Agent' | 'request'>;

export async function createNodeWire(origin: string, options: WireOptions): Promise<Wire> {
  const url = new URL(origin);
  // node:https loads TLS, which a plain-http service (the sandbox) does not need.
  const client: Client = url.protocol === 'https:' ? await import('node:https') : http;
  const agent = new client.Agent({ keepAlive: true, maxSockets: options.connections, ...(options.secureContext ? { secureContext: options.secureContext } : {}) });
  return {
    post: (req) => post(client, agent, url, options, req),
    close: async () => agent.destroy(),
  };
}

function post(client: Client, agent: http.Agent, url: URL, { timeoutMs, maxBytes }: WireOptions, req: PostRequest): Promise<PostOutcome> {
  return new Promise((resolve, reject) => {
    let timer: NodeJS.Timeout | undefined;
    let settled = false;
    const settle = (finish: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      finish();
    };
    const body = Buffer.from(req.body, 'utf8');
    const out = client.request({
      agent,
      protocol: url.protocol,
      // Without the brackets of an IPv6 literal ([::1]), which name no host to resolve.
      hostname: hostname(url),
      port: url.port,
      path: req.path,
      method: 'POST',
      headers: { ...req.headers, 'content-length': String(body.length) },
      signal: req.signal,
    });
    // Each phase (connect, wait for headers, each pause in the body) gets the whole timeout, as
    // undici's connect, headers and body timeouts do; the error carries undici's code for it.
    const arm = (code: string, message: string) => {
      clearTimeout(timer);
      // A settled request keeps no timer: it would hold the event loop open for nothing.
      if (settled) return;
      timer = setTimeout(() => {
        const err = codedError(code, message);
        settle(() => reject(err));
        out.destroy(err);
      }, timeoutMs);
    };
    const awaitHeaders = () => arm('UND_ERR_HEADERS_TIMEOUT', 'Headers Timeout Error');
    arm('UND_ERR_CONNECT_TIMEOUT', 'Connect Timeout Error');
    out.on('socket', (socket: Socket) => {
      if (!socket.connecting) return awaitHeaders();
      socket.once('encrypted' in socket ? 'secureConnect' : 'connect', awaitHeaders);
    });
    out.on('error', (err) => settle(() => reject(err)));
    out.on('response', (res: http.IncomingMessage) => {
      const status = res.statusCode ?? 0;
      const headers = res.headers as HeaderBag;
      const oversize = () => {
        settle(() => resolve({ kind: 'oversize', status, headers }));
        // Destroying an unfinished answer closes its connection: nothing else may read from it.
        res.destroy();
      };
      const answer = collectBody(maxBytes);
      if (answer.declare(res.headers['content-length'])) return oversize();
      const awaitBody = () => arm('UND_ERR_BODY_TIMEOUT', 'Body Timeout Error');
      awaitBody();
      const whole = () => settle(() => resolve({ kind: 'response', status, headers, text: answer.text() }));
      res.on('data', (chunk: Buffer) => {
        const got = answer.add(chunk);
        if (got === 'over') return oversize();
        // All the declared bytes are the whole answer: the caller has it now, not after 'end' and
        // the keep-alive bookkeeping that runs first (a millisecond of a one-number run).
        if (got === 'whole') return whole();
        awaitBody();
      });
      res.on('end', whole);
      res.on('error', (err) => settle(() => reject(err)));
      res.on('close', () => {
        if (!res.complete) settle(() => reject(codedError('ECONNRESET', 'the connection closed before the answer was complete')));
      });
    });
    out.end(body);
  });
}

function hostname(url: URL): string {
  return url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
}

function codedError(code: string, message: string): Error {
  return Object.assign(new Error(message), { code });
}
