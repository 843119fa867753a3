// Small scripted HTTP servers on 127.0.0.1, port 0, for the transport's integration tests.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export interface Seen {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingMessage['headers'];
  /** The header names and values as sent, in order. */
  readonly rawHeaders: readonly string[];
  readonly body: string;
}

export type Script = (req: Seen, res: ServerResponse, socket: Socket) => void;

export interface ScriptedServer {
  readonly url: string;
  readonly seen: Seen[];
  /** TCP connections accepted so far. */
  connections(): number;
  /** TCP connections accepted and not yet closed. */
  open(): number;
  close(): Promise<void>;
}

export async function serve(script: Script): Promise<ScriptedServer> {
  const seen: Seen[] = [];
  let connections = 0;
  let open = 0;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const s = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, rawHeaders: req.rawHeaders, body: Buffer.concat(chunks).toString('utf8') };
      seen.push(s);
      script(s, res, req.socket);
    });
  });
  server.on('connection', (socket: Socket) => {
    connections++;
    open++;
    socket.on('close', () => open--);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    connections: () => connections,
    open: () => open,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export const json = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
};

/** A port nobody listens on: bound once, then released. */
export async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  const { port } = s.address() as AddressInfo;
  await new Promise<void>((resolve) => s.close(() => resolve()));
  return port;
}
