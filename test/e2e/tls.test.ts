// HTTPS end to end: every lookup path (arguments, stdin and CSV; enrich; both transports; a run's
// first requests on Node's client, the rest on undici's, which the run one at a time reaches)
// against a TLS sandbox, trusted through each way a user can trust a private CA; and what a
// certificate the client cannot trust does: one line, exit 2, no rows.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { checkServerIdentity, type PeerCertificate } from 'node:tls';
import { generate } from 'selfsigned';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { startCli, jsonl, parseCsv, requireBuiltCli, runCli, type CliResult } from '../support/cli.js';
import { restResult } from './harness.js';
import { sandboxEnv, sandboxStats, startTlsSandbox } from '../support/sandbox.js';
import { tempDir } from '../support/tmp.js';
import { numbers } from '../support/numbers.js';

const NUMBERS = ['12015550123', '13125550188', '14155550142'];
const dir = tempDir('numintel-tls-e2e-');
const csvPath = join(dir, 'leads.csv');
writeFileSync(csvPath, `name,phone\nAda,(201) 555-0123\n"Smith, J",312.555.0188\nBo,+1 415 555 0142\n`);

let sb: Sandbox;
beforeAll(async () => {
  requireBuiltCli();
  sb = await startTlsSandbox();
});
afterAll(() => sb.close());

/** Every way to run lookups, each with what its records must hold. */
const PATHS: { name: string; args: string[]; stdin?: string; kind: 'lrn' | 'cnam' | 'trust' | 'enrich' }[] = [
  { name: 'arguments', args: ['lrn', ...NUMBERS], kind: 'lrn' },
  { name: 'arguments over GraphQL', args: ['cnam', '--transport', 'graphql', ...NUMBERS], kind: 'cnam' },
  { name: 'stdin list', args: ['trust'], stdin: NUMBERS.join('\n'), kind: 'trust' },
  { name: 'stdin list one at a time (undici after the first answer)', args: ['lrn', '--concurrency', '1'], stdin: NUMBERS.join('\n'), kind: 'lrn' },
  { name: 'stdin list over GraphQL', args: ['lrn', '--transport', 'graphql'], stdin: NUMBERS.join('\n'), kind: 'lrn' },
  { name: 'CSV file', args: ['cnam', '-i', csvPath, '-f', 'jsonl'], kind: 'cnam' },
  { name: 'enrich', args: ['enrich', csvPath, '-f', 'jsonl'], kind: 'enrich' },
];

async function expectAllLookedUp(path: (typeof PATHS)[number], run: CliResult, how: string): Promise<void> {
  expect(run.code, `${path.name} trusted by ${how}: ${run.stderr}`).toBe(0);
  const records = jsonl(run.stdout);
  expect(records.map((r) => r.number)).toEqual(NUMBERS);
  if (path.kind === 'enrich') {
    for (const r of records) {
      expect(r.ok).toBe(true);
      expect((r.results as Record<string, unknown>).lrn).toEqual(await restResult(sb, 'lrn', r.number as string));
    }
    return;
  }
  for (const r of records) expect(r.result).toEqual(await restResult(sb, path.kind, r.number as string));
}

describe('every lookup path over HTTPS', () => {
  it.each([
    ['NODE_EXTRA_CA_CERTS', (): { args: string[]; env: Record<string, string | undefined> } => ({ args: [], env: sandboxEnv(sb) })],
    ['--ca-file', () => ({ args: ['--ca-file', sb.caFile!], env: sandboxEnv(sb, { NODE_EXTRA_CA_CERTS: undefined }) })],
    ['NUMINTEL_CA_FILE', () => ({ args: [], env: sandboxEnv(sb, { NODE_EXTRA_CA_CERTS: undefined, NUMINTEL_CA_FILE: sb.caFile }) })],
    [
      'config ca-file',
      () => {
        const config = join(tempDir('numintel-tls-config-'), 'cfg');
        mkdirSync(config);
        writeFileSync(join(config, 'config.json'), JSON.stringify({ profiles: { default: { 'ca-file': sb.caFile } } }));
        return { args: [], env: sandboxEnv(sb, { NODE_EXTRA_CA_CERTS: undefined, NUMINTEL_CONFIG_DIR: config }) };
      },
    ],
  ])('trusted through %s', async (how, trust) => {
    const { args, env } = trust();
    const runs = await Promise.all(PATHS.map((p) => runCli([...p.args, ...args], { env, stdin: p.stdin })));
    for (const [i, p] of PATHS.entries()) await expectAllLookedUp(p, runs[i]!, how);
  });

  it('--ca-file adds to the trust: NODE_EXTRA_CA_CERTS still counts, and a relative path is read from the working directory', async () => {
    const other = await startTlsSandbox();
    try {
      const work = tempDir();
      writeFileSync(join(work, 'other.pem'), other.ca!);
      // Trusts `sb` by NODE_EXTRA_CA_CERTS and `other` by --ca-file: both work in the same setup.
      const env = { NODE_EXTRA_CA_CERTS: sb.caFile };
      const [own, extra] = await Promise.all([
        runCli(['lrn', NUMBERS[0]!, '--ca-file', 'other.pem'], { env: sandboxEnv(other, env), cwd: work }),
        runCli(['lrn', '--ca-file', 'other.pem'], { env: sandboxEnv(sb, env), cwd: work, stdin: NUMBERS[0] }),
      ]);
      for (const r of [own, extra]) {
        expect(r.code, r.stderr).toBe(0);
        expect(jsonl(r.stdout)[0]).toMatchObject({ number: NUMBERS[0], ok: true });
      }
    } finally {
      await other.close();
    }
  });

  // Some Node releases (22.23) cannot match any IPv6 address in a certificate: nothing to test there.
  const nodeVerifiesIpv6 = checkServerIdentity('::1', { subjectaltname: 'IP Address:0:0:0:0:0:0:0:1' } as PeerCertificate) === undefined;
  it.skipIf(!nodeVerifiesIpv6)('an IPv6 base URL (https://[::1]:port), by argument and on stdin', async () => {
    const v6 = await startTlsSandbox({ host: '::1' });
    try {
      expect(v6.url).toMatch(/^https:\/\/\[::1\]:\d+$/);
      const runs = await Promise.all([runCli(['lrn', NUMBERS[0]!], { env: sandboxEnv(v6) }), runCli(['lrn'], { env: sandboxEnv(v6), stdin: NUMBERS[0] })]);
      for (const r of runs) {
        expect(r.code, r.stderr).toBe(0);
        expect(jsonl(r.stdout)[0]).toMatchObject({ number: NUMBERS[0], ok: true });
      }
    } finally {
      await v6.close();
    }
  });

  it('a CA file that cannot be used is a usage error before anything is sent', async () => {
    const notPem = join(dir, 'not.pem');
    writeFileSync(notPem, 'hello\n');
    const env = sandboxEnv(sb, { NODE_EXTRA_CA_CERTS: undefined });
    const before = (await sandboxStats(sb)).requests.total;
    const [missing, garbage] = await Promise.all([
      runCli(['lrn', NUMBERS[0]!, '--ca-file', join(dir, 'missing.pem')], { env }),
      runCli(['lrn', NUMBERS[0]!], { env: { ...env, NUMINTEL_CA_FILE: notPem } }),
    ]);
    expect(missing).toMatchObject({ code: 2, stdout: '' });
    expect(missing.stderr).toBe(`numintel: cannot read the CA file ${join(dir, 'missing.pem')} (--ca-file): no such file (ENOENT)\n`);
    expect(garbage).toMatchObject({ code: 2, stdout: '' });
    expect(garbage.stderr).toMatch(/^numintel: the CA file .*not\.pem \(NUMINTEL_CA_FILE\) holds no PEM certificate/);
    expect((await sandboxStats(sb)).requests.total).toBe(before);
  });
});

/** One stderr line: the cause and the fix, nothing else (no summary, no stack, no row errors). */
function expectOneTlsLine(run: CliResult, pattern: RegExp): void {
  expect(run.code, run.stderr).toBe(2);
  expect(run.stderr.split('\n').filter(Boolean)).toHaveLength(1);
  expect(run.stderr).toMatch(pattern);
  expect(run.stdout).toBe('');
}

describe('a certificate the client cannot trust', () => {
  const UNTRUSTED = /^numintel: TLS: the certificate of 127\.0\.0\.1:\d+ is not trusted \(self-signed certificate\); if this is a private CA, pass --ca-file <pem> or set NODE_EXTRA_CA_CERTS\n$/;

  it('stops every path at the first failure: one line, exit 2, no records, nothing reached the service', async () => {
    const many = numbers(200);
    const out = join(dir, 'untrusted.csv');
    const env = sandboxEnv(sb, { NODE_EXTRA_CA_CERTS: undefined });
    const before = await sandboxStats(sb);
    const runs = await Promise.all([
      ...PATHS.map((p) => runCli(p.args, { env, stdin: p.stdin })),
      runCli(['lrn', '--retries', '5'], { env, stdin: many.join('\n') }),
      runCli(['lrn', '-i', csvPath, '-o', out], { env }),
    ]);
    for (const run of runs) expectOneTlsLine(run, UNTRUSTED);
    // The output file holds no row: nothing was looked up, so nothing is written as an error.
    expect(readFileSync(out, 'utf8').split('\n').filter(Boolean).length).toBeLessThanOrEqual(1);
    // No handshake completed, so no request reached the service.
    expect((await sandboxStats(sb)).requests.total).toBe(before.requests.total);
  });

  it('the service sees one failed handshake per connection tried: one for a number, at most --concurrency for a file', async () => {
    const own = await startTlsSandbox();
    try {
      const env = sandboxEnv(own, { NODE_EXTRA_CA_CERTS: undefined });
      const single = await runCli(['cnam', '--retries', '5', NUMBERS[0]!], { env });
      expect(single.code).toBe(2);
      expect(own.stats()).toMatchObject({ tlsFailures: 1, requests: { total: 0 } });
      const many = numbers(300, 1000);
      const bulk = await runCli(['cnam', '--retries', '5', '--concurrency', '4'], { env, stdin: many.join('\n') });
      expect(bulk.code).toBe(2);
      const failed = own.stats().tlsFailures - 1;
      expect(failed).toBeGreaterThanOrEqual(1);
      expect(failed).toBeLessThanOrEqual(4);
      expect(own.stats().requests.total).toBe(0);
    } finally {
      await own.close();
    }
  });

  it('is not retried: one request, one failure, with --retries 5', async () => {
    const env = sandboxEnv(sb, { NODE_EXTRA_CA_CERTS: undefined });
    const [single, bulk] = await Promise.all([
      runCli(['lrn', '--verbose', '--retries', '5', NUMBERS[0]!], { env }),
      runCli(['lrn', '--verbose', '--retries', '5', '--concurrency', '1'], { env, stdin: NUMBERS.join('\n') }),
    ]);
    for (const run of [single, bulk]) {
      expect(run.code).toBe(2);
      // --verbose traces each request as it leaves: one, not six.
      expect(run.stderr.match(/POST https:\/\/127\.0\.0\.1:\d+\/api\/v1\/lrn/g)).toHaveLength(1);
      expect(run.stderr).not.toMatch(/retry/i);
    }
  });

  it('a certificate for another name: not for that name, exit 2', async () => {
    const pems = await generate([{ name: 'commonName', value: 'service.example' }], {
      keyType: 'ec',
      algorithm: 'sha256',
      extensions: [{ name: 'subjectAltName', altNames: [{ type: 2, value: 'service.example' }] }],
    });
    const other = await startSandbox({ port: 0, tls: { cert: pems.cert, key: pems.private } });
    try {
      const runs = await Promise.all([
        runCli(['lrn', NUMBERS[0]!], { env: sandboxEnv(other) }),
        runCli(['lrn', '--ca-file', other.caFile!], { env: sandboxEnv(other, { NODE_EXTRA_CA_CERTS: undefined }), stdin: NUMBERS.join('\n') }),
      ]);
      for (const run of runs) {
        expectOneTlsLine(run, /^numintel: TLS: the certificate of 127\.0\.0\.1:\d+ is not for that name \(it is for DNS:service\.example\); use a host name the certificate names in the base URL\n$/);
      }
      expect(other.stats().requests.total).toBe(0);
    } finally {
      await other.close();
    }
  });

  it('an expired certificate: not valid now, exit 2', async () => {
    const day = 86_400_000;
    const pems = await generate([{ name: 'commonName', value: 'localhost' }], {
      keyType: 'ec',
      algorithm: 'sha256',
      notBeforeDate: new Date(Date.now() - 30 * day),
      notAfterDate: new Date(Date.now() - day),
      extensions: [{ name: 'subjectAltName', altNames: [{ type: 7, ip: '127.0.0.1' }] }],
    });
    const old = await startSandbox({ port: 0, tls: { cert: pems.cert, key: pems.private } });
    try {
      const runs = await Promise.all([runCli(['trust', NUMBERS[0]!], { env: sandboxEnv(old) }), runCli(['trust'], { env: sandboxEnv(old), stdin: NUMBERS.join('\n') })]);
      for (const run of runs) expectOneTlsLine(run, /^numintel: TLS: the certificate of 127\.0\.0\.1:\d+ is not valid now \(certificate has expired\); .*clock/);
    } finally {
      await old.close();
    }
  });

  it('https:// to a plain-http service: it did not answer in TLS, exit 2', async () => {
    const plain = await startSandbox({ port: 0 });
    try {
      const env = sandboxEnv(plain, { NUMINTEL_BASE_URL: plain.url.replace('http:', 'https:') });
      const runs = await Promise.all([runCli(['lrn', NUMBERS[0]!], { env }), runCli(['lrn'], { env, stdin: NUMBERS.join('\n') })]);
      for (const run of runs) expectOneTlsLine(run, /^numintel: TLS: 127\.0\.0\.1:\d+ did not answer in TLS \(wrong version number\); is the service plain http:\/\/\? check the base URL\n$/);
    } finally {
      await plain.close();
    }
  });
});

describe('numintel sandbox --tls (the built program)', () => {
  it('serves HTTPS with the certificate it prints, which the CLI trusts through NODE_EXTRA_CA_CERTS; the file goes at stop', async () => {
    const server = startCli(['sandbox', '--tls', '--port', '0']);
    try {
      await server.waitForStdout((out) => out.split('\n').length > 2);
      const [listening, certificate] = server.stdout().split('\n');
      const url = /listening on (https:\/\/127\.0\.0\.1:\d+) /.exec(listening!)?.[1];
      const file = /^numintel sandbox certificate: (\S+) \(trust it with NODE_EXTRA_CA_CERTS=\1 or --ca-file \1\)$/.exec(certificate!)?.[1];
      expect(url).toBeDefined();
      expect(readFileSync(file!, 'utf8')).toMatch(/^-----BEGIN CERTIFICATE-----/);
      const env = { NUMINTEL_BASE_URL: url, NUMINTEL_API_KEY: 'sandbox-key-0000' };
      const [trusted, untrusted] = await Promise.all([
        runCli(['lrn', NUMBERS[0]!], { env: { ...env, NODE_EXTRA_CA_CERTS: file } }),
        runCli(['lrn', NUMBERS[0]!], { env }),
      ]);
      expect(trusted.code, trusted.stderr).toBe(0);
      expect(jsonl(trusted.stdout)[0]).toMatchObject({ number: NUMBERS[0], ok: true });
      expect(untrusted.code).toBe(2);
      server.child.kill('SIGTERM');
      // Stopped by a signal: interrupted, as every command is (sandbox-stop.test.ts).
      expect((await server.done).code).toBe(130);
      expect(existsSync(file!)).toBe(false);
    } finally {
      server.child.kill('SIGKILL');
    }
  });
});

describe('plain http on loopback still works', () => {
  it('arguments and stdin against an http:// sandbox', async () => {
    const plain = await startSandbox({ port: 0 });
    try {
      const [args, piped] = await Promise.all([
        runCli(['lrn', '-f', 'csv', NUMBERS[0]!], { env: sandboxEnv(plain) }),
        runCli(['lrn', '-f', 'csv'], { env: sandboxEnv(plain), stdin: NUMBERS[0] }),
      ]);
      expect(args.code, args.stderr).toBe(0);
      expect(parseCsv(args.stdout)[1]).toContain(NUMBERS[0]);
      expect(piped.stdout).toBe(args.stdout);
    } finally {
      await plain.close();
    }
  });
});
