// A loopback server that writes raw bytes, for the HTTP clients' framing tests and the CLI's:
// what no well-behaved HTTP server would send. Closed after each test.
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { afterThisTest } from './cleanup.js';

/** What the server saw: each connection's received bytes, in order of connection. */
export interface Seen {
  readonly connections: string[];
}

/**
 * A server answering each request (a request is whole once its Content-Length of body is in) with
 * what `answer` returns: byte strings written in turn, each piece a separate write a turn apart.
 */
export async function rawServer(answer: (n: number, socket: Socket) => (string | 'close')[]): Promise<{ url: string; seen: Seen; requests: () => number }> {
  const seen: Seen = { connections: [] };
  let requests = 0;
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    const index = seen.connections.push('') - 1;
    let pending = '';
    socket.on('data', async (chunk) => {
      seen.connections[index] += chunk.toString('latin1');
      pending += chunk.toString('latin1');
      for (;;) {
        const head = pending.indexOf('\r\n\r\n');
        if (head < 0) return;
        const length = Number(/content-length: (\d+)/i.exec(pending.slice(0, head))?.[1] ?? 0);
        if (pending.length < head + 4 + length) return;
        pending = pending.slice(head + 4 + length);
        for (const piece of answer(requests++, socket)) {
          if (piece === 'close') socket.end();
          else if (!socket.destroyed) socket.write(Buffer.from(piece, 'latin1'));
          await new Promise((resolve) => setImmediate(resolve));
        }
      }
    });
    socket.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  afterThisTest(
    () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const socket of sockets) socket.destroy();
      }),
  );
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen, requests: () => requests };
}
