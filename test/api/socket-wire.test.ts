// The socket wire's HTTP framing against a server that writes raw bytes: every way an HTTP/1.x
// answer may be framed, split anywhere; connections kept, replaced and refused as HTTP says. The
// transport, hostile-server and TLS suites run the rest of its behaviour beside undici's.
import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createSocketWire } from '../../src/api/socket-wire.js';
import type { PostRequest, Wire } from '../../src/api/wire.js';

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

/** What the server saw: each connection's received bytes, in order of connection. */
interface Seen {
  readonly connections: string[];
}

/**
 * A server answering each request (a request is whole once its Content-Length of body is in) with
 * what `answer` returns: byte strings written in turn, each piece a separate write a turn apart.
 */
async function rawServer(answer: (n: number, socket: Socket) => (string | 'close')[]): Promise<{ url: string; seen: Seen }> {
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
          else socket.write(Buffer.from(piece, 'latin1'));
          await new Promise((resolve) => setImmediate(resolve));
        }
      }
    });
    socket.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanup.push(
    () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        for (const socket of sockets) socket.destroy();
      }),
  );
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
}

async function wireTo(url: string, connections = 4): Promise<Wire> {
  const wire = await createSocketWire(url, { connections, timeoutMs: 5000, maxBytes: 1 << 20 });
  cleanup.push(() => wire.close());
  return wire;
}

const REQ: PostRequest = { path: '/api/v1/lrn', headers: { 'content-type': 'application/json', authorization: 'Bearer k-1' }, body: '{"phone_number":"12015550123"}' };
const BODY = '{"success":true,"data":{"name":"Zoë"}}';
const bytes = (text: string) => Buffer.from(text, 'utf8').toString('latin1');
const byteByByte = (text: string) => [...text];

const FRAMINGS: Record<string, string> = {
  'a Content-Length': `HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(BODY)}\r\nX-Twice: a\r\nx-twice: b\r\n\r\n${bytes(BODY)}`,
  'chunks with an extension and a trailer': `HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nX-Twice: a\r\nX-Twice: b\r\n\r\n5;note=x\r\n${bytes(BODY).slice(0, 5)}\r\n${(Buffer.byteLength(BODY) - 5).toString(16)}\r\n${bytes(BODY).slice(5)}\r\n0\r\nX-Trailer: t\r\n\r\n`,
  'a 100 Continue first': `HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: ${Buffer.byteLength(BODY)}\r\nX-Twice: a\r\nX-Twice: b\r\n\r\n${bytes(BODY)}`,
};

describe('the socket wire', () => {
  it.each(Object.keys(FRAMINGS))('reads an answer framed by %s, written a byte at a time, and keeps the connection', async (framing) => {
    const answer = FRAMINGS[framing] as string;
    const { url, seen } = await rawServer(() => byteByByte(answer));
    const wire = await wireTo(url);
    for (let i = 0; i < 2; i++) {
      const out = await wire.post(REQ);
      expect(out).toMatchObject({ kind: 'response', status: 200, text: BODY });
      expect(out.headers['x-twice']).toEqual(['a', 'b']);
    }
    expect(seen.connections).toHaveLength(1);
  });

  it('reads an answer that runs to the end of the connection (HTTP/1.0, no length), then opens another', async () => {
    const { url, seen } = await rawServer(() => ['HTTP/1.0 200 OK\r\n\r\n', bytes(BODY).slice(0, 9), bytes(BODY).slice(9), 'close']);
    const wire = await wireTo(url);
    expect(await wire.post(REQ)).toMatchObject({ kind: 'response', status: 200, text: BODY });
    expect(await wire.post(REQ)).toMatchObject({ kind: 'response', status: 200, text: BODY });
    expect(seen.connections).toHaveLength(2);
  });

  it('writes the request as HTTP/1.1 with the host, the headers and the body length in bytes', async () => {
    const { url, seen } = await rawServer(() => [`HTTP/1.1 204 No Content\r\n\r\n`]);
    const wire = await wireTo(url);
    const body = '{"name":"Zoë"}';
    expect(await wire.post({ ...REQ, body })).toMatchObject({ kind: 'response', status: 204, text: '' });
    const host = new URL(url).host;
    expect(seen.connections[0]).toBe(
      `POST /api/v1/lrn HTTP/1.1\r\nhost: ${host}\r\ncontent-type: application/json\r\nauthorization: Bearer k-1\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${bytes(body)}`,
    );
  });

  it('opens a new connection after `Connection: close`, and after the server closed an idle one', async () => {
    const ok = `HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}`;
    const { url, seen } = await rawServer((n, socket) => (n === 0 ? [`HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 2\r\n\r\n{}`] : n === 1 ? [ok, 'close'] : (socket.write(ok), [])));
    const wire = await wireTo(url);
    expect(await wire.post(REQ)).toMatchObject({ kind: 'response', text: '{}' });
    expect(await wire.post(REQ)).toMatchObject({ kind: 'response', text: '{}' });
    // The second connection was closed by the server while idle: the third request does not fail on it.
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await wire.post(REQ)).toMatchObject({ kind: 'response', text: '{}' });
    expect(seen.connections).toHaveLength(3);
  });

  it.each([
    ['with the answer', (): string[] => [`HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}HTTP/1.1 200 OK\r\n`]],
    ['while idle', (socket: Socket): string[] => (setTimeout(() => socket.write('HTTP/1.1 200 OK\r\n'), 10), [`HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}`])],
  ])('drops a connection that sends bytes nobody asked for (%s), and answers the next request on another', async (_, answer) => {
    const { url, seen } = await rawServer((_n, socket) => answer(socket));
    const wire = await wireTo(url);
    expect(await wire.post(REQ)).toMatchObject({ kind: 'response', text: '{}' });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await wire.post(REQ)).toMatchObject({ kind: 'response', text: '{}' });
    expect(seen.connections).toHaveLength(2);
  });

  it.each([
    ['a status line that is not HTTP', 'HTTP/1.1 OK\r\n\r\n', 'HPE_INVALID_CONSTANT'],
    ['a Content-Length that is not a length', 'HTTP/1.1 200 OK\r\nContent-Length: 12abc\r\n\r\n{}', 'HPE_INVALID_CONTENT_LENGTH'],
    ['two Content-Lengths that differ', 'HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{}', 'HPE_UNEXPECTED_CONTENT_LENGTH'],
    ['an answer cut short', 'HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n{"part', 'ECONNRESET'],
    ['no answer at all', '', 'ECONNRESET'],
  ])('fails a request on %s with a code, and closes that connection', async (_, answer, code) => {
    const { url, seen } = await rawServer((n) => (n === 0 ? [answer, 'close'] : ['HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}']));
    const wire = await wireTo(url);
    await expect(wire.post(REQ)).rejects.toMatchObject({ code });
    expect(await wire.post(REQ)).toMatchObject({ kind: 'response', text: '{}' });
    expect(seen.connections).toHaveLength(2);
  });

  it('refuses a header value with a line break before anything is sent, the value unshown', async () => {
    const { url, seen } = await rawServer(() => ['HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}']);
    const wire = await wireTo(url);
    const err = await wire.post({ ...REQ, headers: { authorization: 'Bearer k-1\r\nx-forged: 1' } }).catch((e: unknown) => e as Error);
    expect(err).toMatchObject({ code: 'ERR_INVALID_CHAR' });
    expect(String((err as Error).message)).not.toContain('k-1');
    expect(seen.connections).toHaveLength(0);
  });

  it('queues requests beyond its connections and answers each in turn', async () => {
    const { url, seen } = await rawServer((n) => [`HTTP/1.1 200 OK\r\nContent-Length: ${String(n).length}\r\n\r\n${n}`]);
    const wire = await wireTo(url, 1);
    const outs = await Promise.all([0, 1, 2, 3].map(() => wire.post(REQ)));
    expect(outs.map((o) => (o.kind === 'response' ? o.text : o.kind))).toEqual(['0', '1', '2', '3']);
    expect(seen.connections).toHaveLength(1);
  });

  it('close() fails the requests under way and waiting, closes every connection, and sends nothing after', async () => {
    const closed: Promise<void>[] = [];
    const { url, seen } = await rawServer((n, socket) => {
      closed.push(new Promise((resolve) => socket.on('close', () => resolve())));
      return n === 0 ? ['HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}'] : [];
    });
    const wire = await wireTo(url, 2);
    expect(await wire.post(REQ)).toMatchObject({ kind: 'response', text: '{}' });
    const busy = [wire.post(REQ), wire.post(REQ), wire.post(REQ)].map((p) => p.catch((e: unknown) => e));
    await new Promise((resolve) => setTimeout(resolve, 50));
    await wire.close();
    for (const out of await Promise.all(busy)) expect(out).toMatchObject({ code: 'UND_ERR_CLOSED' });
    await Promise.all(closed);
    await expect(wire.post(REQ)).rejects.toMatchObject({ code: 'UND_ERR_CLOSED' });
    expect(seen.connections).toHaveLength(2);
  });
});
