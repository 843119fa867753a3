// Proxies end to end: HTTPS_PROXY / HTTP_PROXY / NO_PROXY (either case) on every lookup path,
// through a loopback CONNECT proxy that records all it could log. The key goes only to the
// service, inside the tunnel: never in what the proxy reads in clear.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from '../../src/index.js';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { startConnectProxy, type RecordingProxy } from './connect-proxy.js';
import { jsonl, requireBuiltCli, runCli } from '../support/cli.js';
import { sandboxEnv, startTlsSandbox } from '../support/sandbox.js';
import { tempDir } from '../support/tmp.js';

const NUMBERS = ['12015550123', '13125550188', '14155550142'];
const KEY = 'proxy-test-key-7f3a9c21';
const dir = tempDir('numintel-proxy-e2e-');
const csvPath = join(dir, 'leads.csv');
writeFileSync(csvPath, `name,phone\nAda,(201) 555-0123\n"Smith, J",312.555.0188\nBo,+1 415 555 0142\n`);

const PATHS: { name: string; args: string[]; stdin?: string }[] = [
  { name: 'arguments', args: ['lrn', ...NUMBERS] },
  { name: 'arguments over GraphQL', args: ['cnam', '--transport', 'graphql', ...NUMBERS] },
  { name: 'stdin list', args: ['trust'], stdin: NUMBERS.join('\n') },
  { name: 'CSV file', args: ['cnam', '-i', csvPath, '-f', 'jsonl'] },
  { name: 'enrich', args: ['enrich', csvPath, '-f', 'jsonl'] },
];

let sb: Sandbox;
let proxy: RecordingProxy;
beforeAll(async () => {
  requireBuiltCli();
  sb = await startTlsSandbox({ apiKeys: [KEY] });
});
afterAll(() => sb.close());
afterEach(() => proxy?.close());

const target = (s: Sandbox) => new URL(s.url).host;

/** Nothing the proxy read in clear carries the key (CONNECT heads, and the tunnelled bytes for HTTPS). */
function expectNoKeySeen(p: RecordingProxy, tunnelIsTls: boolean): void {
  for (const head of p.heads) {
    expect(head).not.toContain(KEY);
    expect(head.toLowerCase()).not.toContain('authorization');
  }
  if (tunnelIsTls) {
    expect(p.tunnelled().length).toBeGreaterThan(0);
    expect(p.tunnelled()).not.toContain(KEY);
    expect(p.tunnelled()).not.toContain('Bearer');
  }
}

describe('through an HTTPS proxy', () => {
  it.each(['HTTPS_PROXY', 'https_proxy'])('%s carries every lookup path through a CONNECT tunnel, the key never seen by the proxy', async (variable) => {
    proxy = await startConnectProxy();
    const env = sandboxEnv(sb, { [variable]: proxy.url });
    const runs = await Promise.all(PATHS.map((p) => runCli(p.args, { env, stdin: p.stdin })));
    for (const [i, run] of runs.entries()) {
      expect(run.code, `${PATHS[i]!.name}: ${run.stderr}`).toBe(0);
      expect(jsonl(run.stdout).map((r) => [r.number, r.ok])).toEqual(NUMBERS.map((n) => [n, true]));
    }
    // At least one tunnel per run, each to the service and nowhere else; no plain forwarded request.
    expect(proxy.connects.length).toBeGreaterThanOrEqual(PATHS.length);
    expect(new Set(proxy.connects)).toEqual(new Set([target(sb)]));
    expect(proxy.heads.every((h) => h.startsWith('CONNECT '))).toBe(true);
    expectNoKeySeen(proxy, true);
    // enrich sends three lookups per number: every billed lookup went through the proxy.
    expect(sb.stats().byKey).not.toEqual({});
  });

  it.each([
    ['127.0.0.1', (s: Sandbox) => s.url],
    ['*', (s: Sandbox) => s.url],
    ['the host:port', (s: Sandbox) => s.url],
    ['localhost (base URL https://localhost)', (s: Sandbox) => s.url.replace('127.0.0.1', 'localhost')],
    ['.example.com,127.0.0.1 (a list, lower case no_proxy)', (s: Sandbox) => s.url],
  ])('NO_PROXY %s bypasses the proxy', async (label, baseUrl) => {
    proxy = await startConnectProxy();
    const noProxy = label === 'the host:port' ? target(sb) : label.split(' ')[0]!;
    const noProxyVar = label.includes('lower case') ? 'no_proxy' : 'NO_PROXY';
    const env = sandboxEnv(sb, { HTTPS_PROXY: proxy.url, HTTP_PROXY: proxy.url, [noProxyVar]: noProxy, NUMINTEL_BASE_URL: baseUrl(sb) });
    const runs = await Promise.all([runCli(['lrn', NUMBERS[0]!], { env }), runCli(['lrn'], { env, stdin: NUMBERS.join('\n') })]);
    for (const run of runs) expect(run.code, run.stderr).toBe(0);
    expect(proxy.connects).toEqual([]);
    expect(proxy.heads).toEqual([]);
  });

  it('a proxy given without a scheme is http://; one that is no http(s) URL is a usage error, the password never shown', async () => {
    proxy = await startConnectProxy();
    const bare = await runCli(['lrn', NUMBERS[0]!], { env: sandboxEnv(sb, { HTTPS_PROXY: proxy.url.replace('http://', '') }) });
    expect(bare.code, bare.stderr).toBe(0);
    expect(proxy.connects).toEqual([target(sb)]);
    const bad = await runCli(['lrn', NUMBERS[0]!], { env: sandboxEnv(sb, { https_proxy: 'socks9://user:hunter2@proxy.example:1080' }) });
    expect(bad).toMatchObject({ code: 2, stdout: '' });
    expect(bad.stderr).toBe('numintel: https_proxy is not an http:// or https:// proxy URL: "socks9://…@proxy.example:1080"\ne.g. https_proxy=http://proxy.example:3128\n');
  });

  it('NO_PROXY for another host or port does not bypass it', async () => {
    proxy = await startConnectProxy();
    const other = `127.0.0.1:${Number(new URL(sb.url).port) === 1 ? 2 : 1}`;
    const env = sandboxEnv(sb, { HTTPS_PROXY: proxy.url, NO_PROXY: `service.example,${other}` });
    const run = await runCli(['lrn', NUMBERS[0]!], { env });
    expect(run.code, run.stderr).toBe(0);
    expect(proxy.connects).toEqual([target(sb)]);
  });

  it.each([
    [407, /refused the tunnel to 127\.0\.0\.1:\d+ \(HTTP 407\); the proxy wants credentials: /],
    [502, /could not reach 127\.0\.0\.1:\d+ \(HTTP 502 to CONNECT\); check the proxy/],
  ])('a proxy that answers %i to CONNECT stops the run with one line naming it (no password), exit 2, at the first failure', async (status, says) => {
    proxy = await startConnectProxy({ refuse: status });
    const requestsBefore = sb.stats().requests.total;
    const shown = proxy.url.replace('//', '//…@');
    const env = sandboxEnv(sb, { HTTPS_PROXY: proxy.url.replace('//', '//user:proxy-pass-93@') });
    const runs = await Promise.all([runCli(['lrn', NUMBERS[0]!], { env }), runCli(['lrn', '--retries', '5'], { env, stdin: NUMBERS.join('\n') })]);
    for (const run of runs) {
      expect(run.code, run.stderr).toBe(2);
      expect(run.stdout).toBe('');
      expect(run.stderr.split('\n').filter(Boolean)).toHaveLength(1);
      expect(run.stderr.startsWith(`numintel: the proxy ${shown} `)).toBe(true);
      expect(run.stderr).toMatch(says);
      expect(run.stderr).not.toContain('proxy-pass-93');
    }
    // Refused at the CONNECT: nothing went through, the CONNECT carried no key (only the proxy's own credentials).
    expect(proxy.tunnelled()).toBe('');
    for (const head of proxy.heads) expect(head).not.toContain(KEY);
    expect(proxy.connects.length).toBeLessThanOrEqual(2 * 16);
    expect(sb.stats().requests.total).toBe(requestsBefore);
  });

  it('a proxy that is down stops the run at once (exit 2, one line), named as the host that refused, never the service (its password not shown)', async () => {
    const down = await startConnectProxy();
    await down.close();
    const url = down.url.replace('//', '//user:proxy-pass-93@');
    const env = sandboxEnv(sb, { HTTPS_PROXY: url });
    const said = `connection refused by the proxy ${down.url.replace('//', '//…@')} (ECONNREFUSED); is the proxy running? check HTTPS_PROXY, HTTP_PROXY and NO_PROXY`;
    const runs = await Promise.all([runCli(['lrn', NUMBERS[0]!], { env }), runCli(['lrn', '-i', csvPath, '-f', 'jsonl'], { env })]);
    for (const run of runs) {
      expect(run.code, run.stderr).toBe(2);
      expect(run.stdout).toBe('');
      expect(run.stderr).toBe(`numintel: ${said}\n`);
    }
    const doctor = await runCli(['doctor'], { env });
    expect(doctor.code, doctor.stderr).toBe(2);
    expect(doctor.stdout).toContain(said);
    for (const run of [...runs, doctor]) {
      expect(run.stdout + run.stderr).not.toContain('proxy-pass-93');
      expect(run.stdout + run.stderr).not.toContain('is the service running');
    }
  });
});

describe('through an HTTP proxy', () => {
  it('HTTP_PROXY tunnels a plain-http service too: the proxy logs no key', async () => {
    const plain = await startSandbox({ port: 0, apiKeys: [KEY] });
    proxy = await startConnectProxy();
    try {
      const env = sandboxEnv(plain, { http_proxy: proxy.url });
      const runs = await Promise.all([runCli(['lrn', NUMBERS[0]!], { env }), runCli(['cnam'], { env, stdin: NUMBERS.join('\n') })]);
      for (const run of runs) expect(run.code, run.stderr).toBe(0);
      expect(new Set(proxy.connects)).toEqual(new Set([target(plain)]));
      // The heads are what a proxy logs; plain HTTP inside the tunnel is the service's business.
      expectNoKeySeen(proxy, false);
    } finally {
      await plain.close();
    }
  });
});

describe('the library', () => {
  it('uses the proxy of the environment it is given, and trusts `ca`', async () => {
    proxy = await startConnectProxy();
    const client = createClient({ baseUrl: sb.url, apiKey: KEY, ca: sb.ca, env: { HTTPS_PROXY: proxy.url } });
    try {
      const records = [];
      for await (const r of client.bulk('lrn', NUMBERS)) records.push(r);
      expect(records.map((r) => [r.number, r.ok])).toEqual(NUMBERS.map((n) => [n, true]));
    } finally {
      await client.close();
    }
    expect(new Set(proxy.connects)).toEqual(new Set([target(sb)]));
    expectNoKeySeen(proxy, true);
  });

  it('uses no proxy without an environment', async () => {
    proxy = await startConnectProxy();
    const client = createClient({ baseUrl: sb.url, apiKey: KEY, ca: sb.ca });
    try {
      expect((await client.lookup('cnam', NUMBERS[0]!)).ok).toBe(true);
    } finally {
      await client.close();
    }
    expect(proxy.connects).toEqual([]);
  });
});
