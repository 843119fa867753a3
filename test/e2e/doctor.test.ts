// numintel doctor against a real sandbox: the setup it would use, and one request that the
// service never bills (checked in its own counts), for a good key, a bad key and an untrusted
// certificate.
import { createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { fileSandbox, sandboxEnv, sandboxStats, startTlsSandbox } from '../support/sandbox.js';
import { requireBuiltCli, runCli, startCli } from '../support/cli.js';
import { sleep } from '../support/tmp.js';
import { startSandbox } from '../../src/sandbox/index.js';

requireBuiltCli();
const ctx = fileSandbox({ tls: true });

describe('numintel doctor', () => {
  it('a good key: every line ok, exit 0, one request and nothing billed', async () => {
    const before = await sandboxStats(ctx.sb);
    const r = await runCli(['doctor'], { env: ctx.env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^ok {3}base URL {3}https:\/\/127\.0\.0\.1:\d+ \(from environment\)$/m);
    expect(r.stdout).toMatch(/^ok {3}trust {6}the system CAs \+ NODE_EXTRA_CA_CERTS /m);
    expect(r.stdout).toMatch(/^ok {3}API key {4}sand…\(16 chars\) \(from environment\)$/m);
    expect(r.stdout).toMatch(/^ok {3}key {8}accepted: .*nothing was billed$/m);
    expect(r.stdout).not.toContain(ctx.sb.apiKey);
    const after = await sandboxStats(ctx.sb);
    expect(after.requests.total - before.requests.total).toBe(1);
    expect(after.billed).toBe(before.billed);
  });

  it('--sandbox (its help example): the same six lines as a real check, exit 0', async () => {
    const r = await runCli(['doctor', '--sandbox']);
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines.map((l) => l.slice(0, 15).trimEnd())).toEqual(['ok   base URL', 'ok   proxy', 'ok   trust', 'ok   API key', 'ok   service', 'ok   key']);
    expect(lines[0]).toMatch(/^ok {3}base URL {3}http:\/\/127\.0\.0\.1:\d+ \(the built-in sandbox/);
    expect(lines[3]).toMatch(/^ok {3}API key {4}sand…\(16 chars\)/);
    expect(r.stdout).not.toContain('sandbox-key-0000');
  });

  it('a plain http:// base URL of a remote host: FAIL on the base URL line (not ok), exit 2, the key never sent', async () => {
    const r = await runCli(['doctor'], { env: { NUMINTEL_BASE_URL: 'http://api.example.com', NUMINTEL_API_KEY: 'sk_test_0123456789abcdef' } });
    expect(r.code).toBe(2);
    expect(r.stdout).toMatch(/^FAIL base URL {3}\(from environment\) refusing to send the API key over plain http:\/\/ to api\.example\.com/m);
    expect(r.stdout).not.toMatch(/^ok {3}base URL/m);
    expect(r.stdout + r.stderr).not.toContain('sk_test_0123456789abcdef');
  });

  it('a CA file that is missing or holds no certificate: FAIL on the trust line (not ok), exit 2, nothing sent', async () => {
    const before = await sandboxStats(ctx.sb);
    for (const [caFile, reason] of [
      ['/no/such/ca.pem', /cannot read the CA file \/no\/such\/ca\.pem \(--ca-file\): no such file/],
      [import.meta.filename, /holds no PEM certificate/],
    ] as const) {
      const r = await runCli(['doctor', '--ca-file', caFile], { env: ctx.env });
      expect(r.code).toBe(2);
      const trust = r.stdout.split('\n').find((l) => l.includes('trust'));
      expect(trust).toMatch(/^FAIL trust {6}/);
      expect(trust).toMatch(reason);
    }
    expect((await sandboxStats(ctx.sb)).requests.total).toBe(before.requests.total);
    // NODE_EXTRA_CA_CERTS naming no file: Node only warns and goes on without it.
    const r = await runCli(['doctor'], { env: { ...ctx.env, NODE_EXTRA_CA_CERTS: '/no/such/extra.pem' } });
    expect(r.code).toBe(2);
    expect(r.stdout).toMatch(/^FAIL trust {6}.*NODE_EXTRA_CA_CERTS \/no\/such\/extra\.pem cannot be read, so Node ignores it: no such file/m);
  });

  it('a proxy variable that is no URL: FAIL on the proxy line and the lines after it still shown, exit 2', async () => {
    const r = await runCli(['doctor'], { env: { ...ctx.env, HTTPS_PROXY: '::garbage' } });
    expect(r.code).toBe(2);
    expect(r.stdout).toMatch(/^FAIL proxy {6}HTTPS_PROXY is not an http:\/\/ or https:\/\/ proxy URL/m);
    expect(r.stdout).toMatch(/^ok {3}trust /m);
    expect(r.stdout).toMatch(/^ok {3}API key /m);
  });

  it('a refused key: exit 3, the service refusal in one line, nothing billed, the key never shown', async () => {
    const key = 'sk_wrong_0123456789abcdef';
    const before = await sandboxStats(ctx.sb);
    const r = await runCli(['doctor'], { env: sandboxEnv(ctx.sb, { NUMINTEL_API_KEY: key }) });
    expect(r.code).toBe(3);
    expect(r.stdout).toMatch(/^FAIL key {8}the service refused the API key/m);
    expect(r.stdout + r.stderr).not.toContain(key);
    expect((await sandboxStats(ctx.sb)).billed).toBe(before.billed);
  });

  it('an untrusted certificate: exit 2 with the TLS cause and fix', async () => {
    const other = await startTlsSandbox();
    try {
      const r = await runCli(['doctor'], { env: { NUMINTEL_BASE_URL: other.url, NUMINTEL_API_KEY: other.apiKey } });
      expect(r.code).toBe(2);
      expect(r.stdout).toMatch(/^FAIL connection TLS: the certificate of 127\.0\.0\.1:\d+ is not trusted .*--ca-file/m);
    } finally {
      await other.close();
    }
  });

  it('Ctrl-C while the service keeps silent: exit 130, interrupted, not an unexpected failure', async () => {
    const silent = await startSandbox({ port: 0, hangRate: 1 });
    try {
      const cli = startCli(['doctor'], { env: { NUMINTEL_BASE_URL: silent.url, NUMINTEL_API_KEY: silent.apiKey }, timeoutMs: 15_000 });
      await cli.waitForStdout((out) => out.includes('API key'), 10_000);
      await sleep(300);
      cli.child.kill('SIGINT');
      const r = await cli.done;
      expect(r.code, r.stderr).toBe(130);
      expect(r.stderr).toBe('numintel: interrupted while waiting for the service\n');
    } finally {
      await silent.close();
    }
  });

  it('no base URL: exit 2 naming the setting and the service numintel speaks to', async () => {
    const r = await runCli(['doctor'], { env: { NUMINTEL_API_KEY: 'sk_x_0123456789' } });
    expect(r.code).toBe(2);
    expect(r.stdout).toMatch(/^FAIL base URL {3}none: set one with `numintel config set base-url https:\/\/api-service\.verirouteintel\.io` \(VeriRoute Intel's API\), NUMINTEL_BASE_URL or --base-url; or try --sandbox$/m);
    // A lookup says the same.
    const lookup = await runCli(['lrn', '+12025550123'], { env: { NUMINTEL_API_KEY: 'sk_x_0123456789' } });
    expect(lookup.code).toBe(2);
    expect(lookup.stderr).toContain('no base URL configured');
    expect(lookup.stderr).toContain('`numintel config set base-url https://api-service.verirouteintel.io`');
  });

  it("GET /api/v1/status first, without the key; a service without it: the key's request alone, exit 0", async () => {
    const sb = await startSandbox({ port: 0 });
    for (const hasStatus of [true, false]) {
      const seen: Array<{ method: string; path: string; auth: boolean }> = [];
      // In front of the sandbox: records what doctor sends, and answers 404 for /status when the service has none.
      const front = createServer((req, res) => {
        seen.push({ method: req.method ?? '', path: req.url ?? '', auth: req.headers.authorization !== undefined });
        if (!hasStatus && req.url === '/api/v1/status') {
          res.writeHead(404, { 'content-type': 'text/html' }).end('<h1>Not Found</h1>');
          return;
        }
        const out = httpRequest(`${sb.url}${req.url ?? '/'}`, { method: req.method, headers: req.headers }, (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        });
        req.pipe(out);
      });
      await new Promise<void>((done) => front.listen(0, '127.0.0.1', done));
      try {
        const { port } = front.address() as AddressInfo;
        const before = await sandboxStats(sb);
        const r = await runCli(['doctor'], { env: { NUMINTEL_BASE_URL: `http://127.0.0.1:${port}`, NUMINTEL_API_KEY: sb.apiKey } });
        expect(r.code, r.stderr).toBe(0);
        if (hasStatus) expect(r.stdout).toMatch(/^ok {3}service {4}answered GET \/api\/v1\/status \(status: ok\) \(\d+ ms\); no key sent, nothing billed$/m);
        else expect(r.stdout).toMatch(/^-- {3}service {4}no GET \/api\/v1\/status \(HTTP 404\): the request below checks the service$/m);
        expect(r.stdout).toMatch(/^ok {3}key {8}accepted: .*nothing was billed$/m);
        expect(seen.map((s) => `${s.method} ${s.path} ${s.auth ? 'key' : 'no key'}`)).toEqual(['GET /api/v1/status no key', 'POST /api/v1/lrn key']);
        expect((await sandboxStats(sb)).billed).toBe(before.billed);
      } finally {
        await new Promise((done) => front.close(done));
      }
    }
    await sb.close();
  });
});
