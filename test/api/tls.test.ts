// The service client over HTTPS against a TLS sandbox, on both HTTP clients: a private CA given as
// `ca` is trusted besides the default; an untrusted certificate, or a `ca` that holds none, is a
// fatal attempt (the run stops as a setup error) rather than a per-number error or a retry.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTransport } from '../../src/api/index.js';
import { wireFailure } from '../../src/api/net-errors.js';
import { CNAM, LRN } from '../../src/core/lookups.js';
import { createClient, NumintelError, startSandbox, type Sandbox } from '../../src/index.js';

let sb: Sandbox;
beforeAll(async () => {
  sb = await startSandbox({ port: 0, tls: true });
});
afterAll(() => sb.close());

describe.each(['undici', 'node'] as const)('HTTPS on the %s HTTP client', (httpClient) => {
  it.each(['rest', 'graphql'] as const)('trusts the sandbox through `ca` (%s)', async (transport) => {
    const t = createTransport({ baseUrl: sb.url, apiKey: sb.apiKey, httpClient, transport, ca: sb.ca });
    try {
      const a = await t.send(CNAM, '12015550123', {});
      expect(a).toMatchObject({ kind: 'ok', result: { number: '12015550123' } });
    } finally {
      await t.close();
    }
  });

  it('an untrusted certificate is fatal, with the cause and the fix', async () => {
    const t = createTransport({ baseUrl: sb.url, apiKey: sb.apiKey, httpClient });
    try {
      const a = await t.send(LRN, '12015550123', {});
      expect(a).toEqual({
        kind: 'fatal',
        setup: 'tls',
        error: {
          code: 'network_error',
          message: `TLS: the certificate of ${new URL(sb.url).host} is not trusted (self-signed certificate); if this is a private CA, pass --ca-file <pem> or set NODE_EXTRA_CA_CERTS`,
        },
      });
    } finally {
      await t.close();
    }
  });

  it('a `ca` without a certificate is fatal, and nothing is sent', async () => {
    const before = sb.stats().requests.total;
    const t = createTransport({ baseUrl: sb.url, apiKey: sb.apiKey, httpClient, ca: 'not a certificate' });
    try {
      const a = await t.send(LRN, '12015550123', {});
      expect(a).toMatchObject({ kind: 'fatal', setup: 'tls', error: { code: 'network_error', message: expect.stringMatching(/holds no PEM certificate/) } });
    } finally {
      await t.close();
    }
    expect(sb.stats().requests.total).toBe(before);
  });
});

describe('the library over HTTPS', () => {
  it('looks up with `ca`, and stops with a usage NumintelError and no records without it', async () => {
    const trusted = createClient({ baseUrl: sb.url, apiKey: sb.apiKey, ca: sb.ca });
    const untrusted = createClient({ baseUrl: sb.url, apiKey: sb.apiKey });
    try {
      expect(await trusted.lookup('trust', '(201) 555-0123')).toMatchObject({ number: '12015550123', ok: true });
      const records: unknown[] = [];
      const err = await (async () => {
        for await (const r of untrusted.bulk('lrn', ['12015550123', '12015550124', '12015550125'])) records.push(r);
      })().catch((e: unknown) => e);
      expect(records).toEqual([]);
      expect(err).toBeInstanceOf(NumintelError);
      expect(err).toMatchObject({ kind: 'usage', message: expect.stringMatching(/^TLS: the certificate of .* is not trusted/) });
    } finally {
      await Promise.all([trusted.close(), untrusted.close()]);
    }
  });
});

describe('TLS and proxy failures as attempts', () => {
  const ctx = { origin: 'https://api.example.com', timeoutMs: 1000, secret: 'sk_secret_123' };
  const coded = (code: string, message: string, extra: object = {}) => Object.assign(new Error(message), { code }, extra);

  it.each([
    ['DEPTH_ZERO_SELF_SIGNED_CERT', 'self-signed certificate', /is not trusted \(self-signed certificate\); if this is a private CA, pass --ca-file <pem> or set NODE_EXTRA_CA_CERTS$/],
    ['UNABLE_TO_GET_ISSUER_CERT_LOCALLY', 'unable to get local issuer certificate', /is not trusted \(unable to get local issuer certificate\)/],
    ['CERT_HAS_EXPIRED', 'certificate has expired', /api\.example\.com is not valid now \(certificate has expired\)/],
    ['ERR_SSL_SSLV3_ALERT_HANDSHAKE_FAILURE', 'C0:error:0A000410:SSL routines:ssl3_read_bytes:sslv3 alert handshake failure:../deps', /the handshake with api\.example\.com failed \(sslv3 alert handshake failure\)/],
  ])('%s is fatal', (code, message, expected) => {
    const a = wireFailure(coded(code, message), ctx);
    expect(a).toMatchObject({ kind: 'fatal', setup: 'tls' });
    expect('error' in a && a.error.message).toMatch(expected);
  });

  it('a name mismatch says which names the certificate is for, also when undici wraps the error', () => {
    const inner = coded('ERR_TLS_CERT_ALTNAME_INVALID', "Hostname/IP does not match certificate's altnames", { cert: { subjectaltname: 'DNS:other.example' } });
    const wrapped = Object.assign(new Error('secure proxy connection failed'), { code: 'UND_ERR_PRX_TLS', cause: inner });
    for (const err of [inner, wrapped]) {
      expect(wireFailure(err, ctx)).toMatchObject({ kind: 'fatal', error: { message: expect.stringMatching(/is not for that name \(it is for DNS:other\.example\)/) } });
    }
  });

  it('a proxy refusing the tunnel or unable to reach the service is fatal, the proxy named without its password; a dropped connection is retried', () => {
    const viaProxy = { ...ctx, proxy: 'http://user:secret-93@proxy.example:3128' };
    expect(wireFailure(coded('UND_ERR_ABORTED', 'Proxy response (407) !== 200 when HTTP Tunneling'), viaProxy)).toMatchObject({
      kind: 'fatal',
      setup: 'proxy',
      error: { message: expect.stringMatching(/^the proxy http:\/\/…@proxy\.example:3128 refused the tunnel to api\.example\.com \(HTTP 407\)/) },
    });
    expect(wireFailure(coded('UND_ERR_ABORTED', 'Proxy response (403) !== 200 when HTTP Tunneling'), viaProxy)).toMatchObject({ kind: 'fatal', error: { message: expect.stringMatching(/\(HTTP 403\); check HTTPS_PROXY/) } });
    expect(wireFailure(coded('UND_ERR_ABORTED', 'Proxy response (502) !== 200 when HTTP Tunneling'), viaProxy)).toMatchObject({
      kind: 'fatal',
      setup: 'proxy',
      error: { message: 'the proxy http://…@proxy.example:3128 could not reach api.example.com (HTTP 502 to CONNECT); check the proxy, HTTPS_PROXY, NO_PROXY and the base URL' },
    });
    for (const attempt of [wireFailure(coded('UND_ERR_ABORTED', 'Proxy response (407) !== 200 when HTTP Tunneling'), viaProxy), wireFailure(coded('UND_ERR_ABORTED', 'Proxy response (502) !== 200 when HTTP Tunneling'), viaProxy)]) {
      expect(JSON.stringify(attempt)).not.toContain('secret-93');
    }
    expect(wireFailure(coded('ECONNRESET', 'socket hang up'), ctx).kind).toBe('retry');
  });

  it('an answer that arrived but could not be read is a bad_response tried once more at most, saying so', () => {
    for (const err of [coded('HPE_INVALID_CONTENT_LENGTH', 'Parse Error: Invalid character in Content-Length'), Object.assign(new Error('Response does not match the HTTP/1.1 protocol (Invalid character in chunk size)'), { name: 'HTTPParserError' })]) {
      expect(wireFailure(err, ctx)).toMatchObject({ kind: 'retry', once: true, error: { code: 'bad_response', message: expect.stringMatching(/answered but the answer could not be read .*retried once at most/) } });
    }
  });
});
