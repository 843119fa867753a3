// Which HTTP client carries each request: Node's until the service has answered once (a run of one
// number never loads undici, by argument or on stdin), undici's pool after, Node's again for a
// service that sends interim answers. Against stand-in wires, then the real ones.
import { afterEach, describe, expect, it } from 'vitest';
import { chooseWire, type HttpClient } from '../../src/api/wire-choice.js';
import type { PostOutcome, PostRequest, Wire } from '../../src/api/wire.js';
import { createTransport } from '../../src/api/index.js';
import { LRN } from '../../src/core/lookups.js';
import { KEY } from './fixtures.js';
import { serve } from './server.js';

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

const REQ: PostRequest = { path: '/x', headers: {}, body: '{}' };

/** Stand-in wires that answer when told to, recording which client carried each request and which were opened and closed. */
function standIns() {
  const log: string[] = [];
  const waiting: { client: HttpClient; answer: () => void }[] = [];
  let interim: (() => void) | undefined;
  const open = (client: HttpClient, onInterim: () => void): Promise<Wire> => {
    log.push(`open ${client}`);
    interim = onInterim;
    return Promise.resolve({
      post: () =>
        new Promise<PostOutcome>((resolve) => {
          log.push(`post ${client}`);
          waiting.push({ client, answer: () => resolve({ kind: 'response', status: 200, headers: {}, text: '{}', discard: () => undefined }) });
        }),
      close: async () => void log.push(`close ${client}`),
    });
  };
  /** Answers every request waiting. */
  const answerAll = async () => {
    for (const w of waiting.splice(0)) w.answer();
    await new Promise((resolve) => setImmediate(resolve));
  };
  const posted = async () => {
    await new Promise((resolve) => setImmediate(resolve));
    return log.filter((l) => l.startsWith('post'));
  };
  return { log, open, answerAll, posted, heardInterim: () => interim?.() };
}

describe('chooseWire', () => {
  it("sends on Node's client until the first answer, the requests made meanwhile too, then on undici's", async () => {
    const s = standIns();
    const wire = chooseWire(s.open);
    void wire.post(REQ);
    void wire.post(REQ);
    expect(await s.posted()).toEqual(['post node', 'post node']);
    await s.answerAll();
    void wire.post(REQ);
    void wire.post(REQ);
    expect(await s.posted()).toEqual(['post node', 'post node', 'post undici', 'post undici']);
    await wire.close();
    expect(s.log.filter((l) => !l.startsWith('post'))).toEqual(['open node', 'open undici', 'close node', 'close undici']);
  });

  it('never loads undici for a run that sends one request', async () => {
    const s = standIns();
    const wire = chooseWire(s.open);
    void wire.post(REQ);
    await s.posted();
    await s.answerAll();
    await wire.close();
    expect(s.log).toEqual(['open node', 'post node', 'close node']);
  });

  it("keeps to Node's client, or goes back to it, for a service that sends interim answers", async () => {
    const s = standIns();
    const wire = chooseWire(s.open);
    void wire.post(REQ);
    await s.posted();
    s.heardInterim();
    await s.answerAll();
    void wire.post(REQ);
    expect(await s.posted()).toEqual(['post node', 'post node']);

    const t = standIns();
    const other = chooseWire(t.open);
    void other.post(REQ);
    await t.posted();
    await t.answerAll();
    void other.post(REQ);
    await new Promise((resolve) => setImmediate(resolve));
    t.heardInterim();
    void other.post(REQ);
    expect(await t.posted()).toEqual(['post node', 'post undici', 'post node']);
  });

  it.each(['node', 'undici'] as const)('with only %s, sends every request on it', async (only) => {
    const s = standIns();
    const wire = chooseWire(s.open, only);
    void wire.post(REQ);
    await s.posted();
    await s.answerAll();
    void wire.post(REQ);
    expect(await s.posted()).toEqual([`post ${only}`, `post ${only}`]);
    await wire.close();
    expect(s.log.filter((l) => l.startsWith('open'))).toEqual([`open ${only}`]);
  });
});

/** The client that sent a request: Node's writes the host header it adds as `Host`, undici's as `host`. */
const client = (seen: { rawHeaders: readonly string[] }) => (seen.rawHeaders.includes('Host') ? 'node' : seen.rawHeaders.includes('host') ? 'undici' : 'unknown');

describe('the transport on the chosen clients', () => {
  it("reads answers after an unsolicited 100 Continue: each sent once, on Node's client throughout", async () => {
    const server = await serve((_req, res) => {
      res.writeContinue();
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ lrn: '12015550000', lrn_activated_at: null }));
    });
    const t = createTransport({ baseUrl: server.url, apiKey: KEY });
    cleanup.push(() => server.close(), () => t.close());
    for (let i = 0; i < 3; i++) expect(await t.send(LRN, `1201555012${i}`, {})).toMatchObject({ kind: 'ok' });
    expect(await Promise.all([0, 1, 2].map((i) => t.send(LRN, `1201555013${i}`, {})))).toMatchObject([{ kind: 'ok' }, { kind: 'ok' }, { kind: 'ok' }]);
    expect(server.seen).toHaveLength(6);
    expect(server.seen.map(client)).toEqual(Array(6).fill('node'));
  });

  it("moves to undici's pool after the first answer", async () => {
    const server = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ lrn: '12015550000', lrn_activated_at: null }));
    });
    const t = createTransport({ baseUrl: server.url, apiKey: KEY });
    cleanup.push(() => server.close(), () => t.close());
    for (let i = 0; i < 3; i++) expect(await t.send(LRN, `1201555012${i}`, {})).toMatchObject({ kind: 'ok' });
    expect(server.seen.map(client)).toEqual(['node', 'undici', 'undici']);
  });
});
