// A loopback HTTP proxy that only tunnels (CONNECT), as corporate proxies do for HTTPS, and
// records everything it could log: each CONNECT's target and headers, each plain request it was
// asked to forward (refused with 502), and every byte that passed through its tunnels.
import { createServer, type IncomingMessage } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';

export interface RecordingProxy {
  /** http://127.0.0.1:<port> */
  readonly url: string;
  /** host:port of each CONNECT, in order. */
  readonly connects: string[];
  /** The head of each CONNECT and each plain request, as the proxy read it. */
  readonly heads: string[];
  /** Every byte the clients sent through the tunnels, as text. */
  tunnelled(): string;
  close(): Promise<void>;
}

const headOf = (req: IncomingMessage) => `${req.method ?? ''} ${req.url ?? ''}\n${req.rawHeaders.join('\n')}`;

/** `refuse`: answer every CONNECT with this status (407: credentials wanted) instead of tunnelling. */
export async function startConnectProxy({ refuse }: { refuse?: number } = {}): Promise<RecordingProxy> {
  const connects: string[] = [];
  const heads: string[] = [];
  const chunks: Buffer[] = [];
  const sockets = new Set<Socket>();
  const server = createServer((req, res) => {
    heads.push(headOf(req));
    res.writeHead(502, { 'content-type': 'text/plain' }).end('this proxy only tunnels (CONNECT)\n');
  });
  server.on('connect', (req: IncomingMessage, client: Socket, head: Buffer) => {
    heads.push(headOf(req));
    connects.push(req.url ?? '');
    sockets.add(client);
    if (refuse !== undefined) {
      client.end(`HTTP/1.1 ${refuse} Refused\r\nProxy-Authenticate: Basic realm="test"\r\nContent-Length: 0\r\n\r\n`);
      return;
    }
    const [host, port] = splitTarget(req.url ?? '');
    const upstream = connect(port, host, () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length) {
        chunks.push(head);
        upstream.write(head);
      }
      client.on('data', (d: Buffer) => chunks.push(Buffer.from(d)));
      client.pipe(upstream);
      upstream.pipe(client);
    });
    sockets.add(upstream);
    const end = () => {
      client.destroy();
      upstream.destroy();
    };
    upstream.on('error', () => {
      if (!client.destroyed) client.end('HTTP/1.1 502 Bad Gateway\r\n\r\n');
      end();
    });
    client.on('error', end);
    client.on('close', () => sockets.delete(client));
    upstream.on('close', () => sockets.delete(upstream));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    connects,
    heads,
    tunnelled: () => Buffer.concat(chunks).toString('latin1'),
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

function splitTarget(target: string): [string, number] {
  const i = target.lastIndexOf(':');
  return [target.slice(0, i).replace(/^\[|\]$/g, ''), Number(target.slice(i + 1))];
}
