import { request } from 'node:http';
import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { lrn, post } from './helpers.js';
import { sandbox } from '../support/sandbox.js';

/** Raw HTTP exchange, for bodies fetch would not send. */
function raw(url: string, text: string): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const s = connect(Number(port), hostname, () => s.write(text));
    let got = '';
    s.on('data', (d) => (got += d.toString()));
    s.on('end', () => resolve(got));
    s.on('close', () => resolve(got));
    s.on('error', reject);
  });
}

describe('oversized and odd bodies', () => {
  it('answers 413 to a declared Content-Length over 64 KiB without reading it', async () => {
    const sb = await sandbox();
    const reply = await raw(
      sb.url,
      `POST /api/v1/lrn HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${sb.apiKey}\r\nContent-Type: application/json\r\nContent-Length: 10000000\r\n\r\n{"phone_number":`,
    );
    expect(reply).toMatch(/^HTTP\/1\.1 413/);
    expect(reply).toContain('"error":"Payload too large"');
    expect(reply.toLowerCase()).toContain('connection: close');
  });

  it('answers 413 to a chunked body that grows past 64 KiB', async () => {
    const sb = await sandbox();
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(`${sb.url}/api/v1/cnam`, {
        method: 'POST',
        headers: { authorization: `Bearer ${sb.apiKey}`, 'content-type': 'application/json' },
      });
      req.on('response', (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', reject);
      req.write(`{"phone_number":"${'1'.repeat(70 * 1024)}`);
      // never ended: the server must answer without waiting for the rest
    });
    expect(status).toBe(413);
  });

  it('survives fetch-sent large bodies, binary junk and deep JSON', async () => {
    const sb = await sandbox();
    // Either a 413 answer or the server cutting the connection short is a refusal; nothing else is.
    const big = await post(sb, '/api/v1/trust', { phone_number: '1'.repeat(80 * 1024) }).then(
      (r) => `HTTP ${r.status}`,
      (e: unknown) => `connection ${String((e as { cause?: { code?: unknown } }).cause?.code)}`,
    );
    expect(['HTTP 413', 'connection ECONNRESET', 'connection EPIPE']).toContain(big);
    expect((await post(sb, '/api/v1/lrn', undefined, { raw: '\u0000\u00ff\ufffd' })).status).toBe(400);
    const deep = '['.repeat(5000) + ']'.repeat(5000);
    expect((await post(sb, '/api/v1/lrn', undefined, { raw: deep })).status).toBe(400);
    expect((await post(sb, '/graphql', { query: `{${'lookupLrn(phoneNumber:"1"){lrn} '.repeat(1)}}`.repeat(1) + '{'.repeat(3000) })).status).toBe(400);
    expect((await post(sb, '/api/v1/lrn', { __proto__: { x: 1 }, phone_number: '12125550123' })).status).toBe(200);
    // still serving after all of it
    expect((await lrn(sb, { phone_number: '12125550123' })).status).toBe(200);
  });

  it('handles garbage HTTP without crashing', async () => {
    const sb = await sandbox();
    const reply = await raw(sb.url, 'NOT HTTP AT ALL\r\n\r\n');
    expect(reply).toMatch(/^HTTP\/1\.1 400/);
    expect((await lrn(sb, { phone_number: '12125550123' })).status).toBe(200);
  });
});
