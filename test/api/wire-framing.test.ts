// Each HTTP client's wire against a server that writes raw bytes: every way an HTTP/1.x answer may
// be framed, split anywhere; interim answers; framings that must be refused at once (never read
// for ever); connections kept, replaced and discarded as HTTP and the caller say. The transport,
// hostile-server and TLS suites run the rest of their behaviour.
import { afterEach, describe, expect, it } from 'vitest';
import { createNodeWire } from '../../src/api/node-wire.js';
import { createUndiciWire } from '../../src/api/undici-wire.js';
import type { PostRequest, Wire, WireOptions } from '../../src/api/wire.js';
import { unreadableAnswer } from '../../src/api/net-errors.js';
import type { Socket } from 'node:net';
import { rawServer } from '../support/raw-server.js';

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

const CLIENTS = {
  node: createNodeWire,
  undici: createUndiciWire,
} satisfies Record<string, (origin: string, options: WireOptions) => Promise<Wire>>;

const REQ: PostRequest = { path: '/api/v1/lrn', headers: { 'content-type': 'application/json', authorization: 'Bearer k-1' }, body: '{"phone_number":"12015550123"}' };
const BODY = '{"success":true,"data":{"name":"Zoë"}}';
const bytes = (text: string) => Buffer.from(text, 'utf8').toString('latin1');
const byteByByte = (text: string) => [...text];
const OK = 'HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}';

const FRAMINGS: Record<string, string> = {
  'a Content-Length': `HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(BODY)}\r\nX-Twice: a\r\nx-twice: b\r\n\r\n${bytes(BODY)}`,
  'chunks with an extension and a trailer': `HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nX-Twice: a\r\nX-Twice: b\r\n\r\n5;note=x\r\n${bytes(BODY).slice(0, 5)}\r\n${(Buffer.byteLength(BODY) - 5).toString(16)}\r\n${bytes(BODY).slice(5)}\r\n0\r\nX-Trailer: t\r\n\r\n`,
  'a 103 Early Hints first': `HTTP/1.1 103 Early Hints\r\nLink: </x>; rel=preload\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: ${Buffer.byteLength(BODY)}\r\nX-Twice: a\r\nX-Twice: b\r\n\r\n${bytes(BODY)}`,
};

/** Framings no client may read on, each refused at once as an answer that could not be read, never looped on. */
const REFUSED: [string, string][] = [
  ['a status line that is not HTTP', 'HTTP/1.1 OK\r\n\r\n'],
  ['a Content-Length that is not a length', 'HTTP/1.1 200 OK\r\nContent-Length: 12abc\r\n\r\n{}'],
  ['a negative Content-Length', 'HTTP/1.1 200 OK\r\nContent-Length: -40\r\n\r\n{}'],
  ['two Content-Lengths that differ', 'HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{}'],
  ['a negative chunk size', 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n-5\r\nhello\r\n0\r\n\r\n'],
  ['a chunk size that is not hex', 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nhello\r\n0\r\n\r\n'],
  ['an interim answer with a negative length', 'HTTP/1.1 103 Early Hints\r\nContent-Length: -40\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}'],
];

describe.each(Object.keys(CLIENTS) as (keyof typeof CLIENTS)[])('the %s wire', (client) => {
  const interim: string[] = [];
  async function wireTo(url: string, connections = 4): Promise<Wire> {
    interim.length = 0;
    const wire = await CLIENTS[client](url, { connections, timeoutMs: 5000, maxBytes: 1 << 20, onInterim: () => interim.push('1xx') });
    cleanup.push(() => wire.close());
    return wire;
  }

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
    expect(interim.length > 0).toBe(framing.includes('103'));
  });

  it('hears an unsolicited 100 Continue: Node reads the answer after it, undici refuses it under a code of its own', async () => {
    const { url } = await rawServer(() => [`HTTP/1.1 100 Continue\r\n\r\n${OK}`]);
    const wire = await wireTo(url);
    if (client === 'node') expect(await wire.post(REQ)).toMatchObject({ kind: 'response', status: 200, text: '{}' });
    else expect(unreadableAnswer(await wire.post(REQ).catch((e: unknown) => e))).toBe(true);
    expect(interim).toEqual(['1xx']);
  });

  it('reads an answer that runs to the end of the connection (HTTP/1.0, no length), then opens another', async () => {
    const { url, seen } = await rawServer(() => ['HTTP/1.0 200 OK\r\n\r\n', bytes(BODY).slice(0, 9), bytes(BODY).slice(9), 'close']);
    const wire = await wireTo(url);
    expect(await wire.post(REQ)).toMatchObject({ kind: 'response', status: 200, text: BODY });
    expect(await wire.post(REQ)).toMatchObject({ kind: 'response', status: 200, text: BODY });
    expect(seen.connections).toHaveLength(2);
  });

  it('opens a new connection after `Connection: close`, and after the server closed an idle one', async () => {
    const { url, seen } = await rawServer((n, socket) => (n === 0 ? [`HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 2\r\n\r\n{}`] : n === 1 ? [OK, 'close'] : (socket.write(OK), [])));
    const wire = await wireTo(url);
    expect(await wire.post(REQ)).toMatchObject({ kind: 'response', text: '{}' });
    expect(await wire.post(REQ)).toMatchObject({ kind: 'response', text: '{}' });
    // The second connection was closed by the server while idle: the third request does not fail on it.
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await wire.post(REQ)).toMatchObject({ kind: 'response', text: '{}' });
    expect(seen.connections).toHaveLength(3);
  });

  it.each([
    ['with the answer', (n: number): string[] => [`HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\n${n}${n === 0 ? 'HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\nX' : ''}`]],
    ['while idle', (n: number, socket: Socket): string[] => (n === 0 && setTimeout(() => socket.write('HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\nX'), 10), [`HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\n${n}`])],
  ])('never takes an answer nobody asked for (sent %s) as the next request\'s', async (_, answer) => {
    const { url } = await rawServer((n, socket) => answer(n, socket));
    const wire = await wireTo(url, 1);
    expect(await wire.post(REQ)).toMatchObject({ kind: 'response', text: '0' });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await wire.post(REQ)).toMatchObject({ kind: 'response', text: '1' });
  });

  it('discard() closes the connection an answer came on: the next request goes out on a new one', async () => {
    const { url, seen } = await rawServer(() => [OK]);
    const wire = await wireTo(url);
    expect(await wire.post(REQ)).toMatchObject({ kind: 'response', text: '{}' });
    const out = await wire.post(REQ);
    expect(seen.connections).toHaveLength(1);
    out.discard();
    out.discard();
    expect(await wire.post(REQ)).toMatchObject({ kind: 'response', text: '{}' });
    expect(await wire.post(REQ)).toMatchObject({ kind: 'response', text: '{}' });
    expect(seen.connections).toHaveLength(2);
  });

  it('discard() leaves a request under way on another connection to be answered, and sends nothing more on its own', async () => {
    const { url, seen } = await rawServer((n, socket) => (setTimeout(() => socket.write(OK), n === 0 ? 30 : n === 1 ? 150 : 0), []));
    const wire = await wireTo(url, 2);
    const first = wire.post({ ...REQ, body: '{"first":1}' });
    const second = wire.post(REQ);
    (await first).discard();
    expect(await second).toMatchObject({ kind: 'response', text: '{}' });
    expect(await wire.post(REQ)).toMatchObject({ kind: 'response', text: '{}' });
    const posts = (bytes: string) => bytes.split('POST ').length - 1;
    const discarded = seen.connections.find((bytes) => bytes.includes('{"first":1}')) ?? '';
    expect(posts(discarded)).toBe(1);
    expect(posts(seen.connections.join(''))).toBe(3);
  });

  it.each(REFUSED)('fails a request on %s at once, as an answer that could not be read, and answers the next on a new connection', async (_, answer) => {
    const { url, seen } = await rawServer((n) => (n === 0 ? [answer] : [OK]));
    const wire = await wireTo(url);
    const started = performance.now();
    const err = await wire.post(REQ).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(unreadableAnswer(err)).toBe(true);
    expect(performance.now() - started).toBeLessThan(2000);
    expect(await wire.post(REQ)).toMatchObject({ kind: 'response', text: '{}' });
    expect(seen.connections).toHaveLength(2);
  });

  it('fails a request whose answer was cut short, and answers the next on a new connection', async () => {
    const { url, seen } = await rawServer((n) => (n === 0 ? ['HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n{"part', 'close'] : [OK]));
    const wire = await wireTo(url);
    await expect(wire.post(REQ)).rejects.toMatchObject({ code: expect.stringMatching(/^(ECONNRESET|UND_ERR_SOCKET|UND_ERR_RES_CONTENT_LENGTH_MISMATCH)$/) });
    expect(await wire.post(REQ)).toMatchObject({ kind: 'response', text: '{}' });
    expect(seen.connections).toHaveLength(2);
  });

  it('refuses a header value with a line break before anything is sent, the value unshown', async () => {
    const { url, seen } = await rawServer(() => [OK]);
    const wire = await wireTo(url);
    const err = await wire.post({ ...REQ, headers: { authorization: 'Bearer k-1\r\nx-forged: 1' } }).catch((e: unknown) => e as Error);
    expect(err).toBeInstanceOf(Error);
    expect(String((err as Error).message)).not.toContain('k-1');
    expect(seen.connections.join('')).not.toContain('x-forged');
  });

  it('queues requests beyond its connections and answers each in turn', async () => {
    const { url, seen } = await rawServer((n) => [`HTTP/1.1 200 OK\r\nContent-Length: ${String(n).length}\r\n\r\n${n}`]);
    const wire = await wireTo(url, 1);
    const outs = await Promise.all([0, 1, 2, 3].map(() => wire.post(REQ)));
    expect(outs.map((o) => (o.kind === 'response' ? o.text : o.kind))).toEqual(['0', '1', '2', '3']);
    expect(seen.connections).toHaveLength(1);
  });

  it('sends nothing after close()', async () => {
    const { url, seen } = await rawServer(() => [OK]);
    const wire = await wireTo(url);
    expect(await wire.post(REQ)).toMatchObject({ kind: 'response', text: '{}' });
    await wire.close();
    await expect(wire.post(REQ)).rejects.toMatchObject({ code: 'UND_ERR_CLOSED' });
    expect(seen.connections).toHaveLength(1);
  });
});
