import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { generate } from 'selfsigned';
import { Agent, fetch as undiciFetch } from 'undici';
import { describe, expect, it } from 'vitest';
import { systemClock } from '../../src/core/clock.js';
import { NumintelError } from '../../src/core/errors.js';
import { sandboxCommand } from '../../src/cli/sandbox-command.js';
import type { World } from '../../src/cli/world.js';
import { tempDir } from '../support/tmp.js';
import { until } from '../support/until.js';

function fakeWorld() {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const out: string[] = [];
  const err: string[] = [];
  stdout.on('data', (d) => out.push(String(d)));
  stderr.on('data', (d) => err.push(String(d)));
  const ac = new AbortController();
  const world: World = { env: {}, stdin: new PassThrough(), stdout, stderr, cwd: '/', home: '/nonexistent', clock: systemClock, interrupt: ac.signal };
  return { world, out, err, abort: () => ac.abort() };
}

/** The exit code a command sets is the program's business (tested end to end): ignored here. */
const ignoreExitCode = () => {};


describe('numintel sandbox', () => {
  it('prints one line with the URL and the key, serves, and stops on interrupt', async () => {
    const { world, out, err, abort } = fakeWorld();
    let exitCode: number | undefined;
    const run = sandboxCommand(world, (code) => (exitCode = code)).parseAsync(['--port', '0', '--limit-lrn', '3', '--seed', 'abc'], { from: 'user' });
    await until('the listening line', () => out.length > 0, 10_000, 2);
    const line = out.join('');
    expect(line).toMatch(/^numintel sandbox listening on http:\/\/127\.0\.0\.1:\d+ \(API key: sandbox-key-0000\)\n$/);
    const url = /on (\S+) /.exec(line)![1]!;
    const res = await fetch(`${url}/api/v1/lrn`, {
      method: 'POST',
      headers: { authorization: 'Bearer sandbox-key-0000', 'content-type': 'application/json' },
      body: JSON.stringify({ phone_number: '12125550123' }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-ratelimit-limit')).toBe('3');
    abort();
    await run;
    expect(err.join('')).toContain('stopped');
    expect(exitCode).toBe(130);
    await expect(fetch(`${url}/__sandbox/stats`)).rejects.toThrow();
  });

  it('--limit <lookup>=<n> sets limits per lookup, repeatable or as a comma list, over the --limit-<lookup> aliases and the defaults', async () => {
    const { world, out, abort } = fakeWorld();
    const run = sandboxCommand(world, ignoreExitCode).parseAsync(['--port', '0', '--limit', 'lrn=20,trust=5', '--limit', 'cnam=7', '--limit-cnam', '3', '--limit-trust', '9'], { from: 'user' });
    await until('the listening line', () => out.length > 0, 10_000, 2);
    const url = /on (\S+) /.exec(out.join(''))![1]!;
    const limitOf = async (kind: string) => {
      const res = await fetch(`${url}/api/v1/${kind}`, {
        method: 'POST',
        headers: { authorization: 'Bearer sandbox-key-0000', 'content-type': 'application/json' },
        body: JSON.stringify({ phone_number: '12125550123' }),
      });
      return res.headers.get('x-ratelimit-limit');
    };
    expect([await limitOf('lrn'), await limitOf('cnam'), await limitOf('trust')]).toEqual(['20', '7', '5']);
    abort();
    await run;
    for (const args of [['--limit', 'lrn'], ['--limit', 'lrn=x'], ['--limit', 'lrn=1=2'], ['--limit', 'dnc=5'], ['--limit', 'lrn=-1']]) {
      const err = await sandboxCommand(fakeWorld().world, ignoreExitCode).exitOverride().parseAsync(['--port', '0', ...args], { from: 'user' }).catch((e: unknown) => e);
      expect(err, args.join(' ')).toBeInstanceOf(NumintelError);
      expect((err as NumintelError).kind, args.join(' ')).toBe('usage');
    }
  });

  it('--host 0.0.0.0 prints where it really listens and that the admin endpoints need the key', async () => {
    const { world, out, abort } = fakeWorld();
    const run = sandboxCommand(world, ignoreExitCode).parseAsync(['--port', '0', '--host', '0.0.0.0'], { from: 'user' });
    await until('the listening line', () => out.length > 0, 10_000, 2);
    const text = out.join('');
    expect(text).toMatch(/^numintel sandbox listening on http:\/\/0\.0\.0\.0:(\d+) \(from this machine: http:\/\/127\.0\.0\.1:\1\) \(API key: sandbox-key-0000\)\n/);
    expect(text).toContain('the admin endpoints (/__sandbox/*) need the API key');
    expect(text).toContain('warning: the sandbox is reachable from the network, where the published key sandbox-key-0000 answers lookups for anyone\n');
    expect(text).toContain('refuse the published one: give --api-key <key> of your own to use them\n');
    abort();
    await run;
  });

  it('--host 0.0.0.0 with a key of its own: the warning says the network can reach it, with that key only', async () => {
    const { world, out, abort } = fakeWorld();
    const run = sandboxCommand(world, ignoreExitCode).parseAsync(['--port', '0', '--host', '0.0.0.0', '--api-key', 'my-own-key-123456'], { from: 'user' });
    await until('the listening line', () => out.length > 0, 10_000, 2);
    const text = out.join('');
    expect(text).toContain('warning: the sandbox is reachable from the network: its lookups answer anyone there who has the API key\nthe admin endpoints (/__sandbox/*) need the API key, as the service does\n');
    expect(text).not.toContain('my-own-key-123456');
    expect(text).not.toContain('sandbox-key-0000');
    abort();
    await run;
  });

  it('on loopback, no warning', async () => {
    const { world, out, abort } = fakeWorld();
    const run = sandboxCommand(world, ignoreExitCode).parseAsync(['--port', '0'], { from: 'user' });
    await until('the listening line', () => out.length > 0, 10_000, 2);
    // The banner is one write: all of it is here.
    expect(out.join('')).not.toMatch(/warning|network/);
    abort();
    await run;
  });

  it('masks a custom key in its banner and accepts several keys', async () => {
    const { world, out, abort } = fakeWorld();
    const run = sandboxCommand(world, ignoreExitCode).parseAsync(['--port', '0', '--api-key', 'my-own-key-123456', '--api-key', 'my-own-key-654321'], { from: 'user' });
    await until('the listening line', () => out.length > 0, 10_000, 2);
    expect(out.join('')).not.toContain('my-own-key-123456');
    expect(out.join('')).toContain('(API key: my-o…(17 chars) +1 more)');
    abort();
    await run;
  });

  it('--tls serves HTTPS with a certificate made at start, printed as a PEM file, removed at stop', async () => {
    const { world, out, abort } = fakeWorld();
    const run = sandboxCommand(world, ignoreExitCode).parseAsync(['--port', '0', '--tls'], { from: 'user' });
    await until('two lines', () => out.join('').split('\n').length > 2, 10_000, 2);
    const text = out.join('');
    expect(text).toMatch(/^numintel sandbox listening on https:\/\/127\.0\.0\.1:\d+ \(API key: sandbox-key-0000\)\nnumintel sandbox certificate: (\S+) \(trust it with NODE_EXTRA_CA_CERTS=\1 or --ca-file \1\)\n$/);
    const url = /on (\S+) /.exec(text)![1]!;
    const certFile = /certificate: (\S+) /.exec(text)![1]!;
    const cert = readFileSync(certFile, 'utf8');
    const agent = new Agent({ connect: { ca: cert } });
    try {
      const res = await undiciFetch(`${url}/api/v1/lrn`, {
        method: 'POST',
        headers: { authorization: 'Bearer sandbox-key-0000', 'content-type': 'application/json' },
        body: JSON.stringify({ phone_number: '12125550123' }),
        dispatcher: agent,
      });
      expect(res.status).toBe(200);
      // Not trusted by default: a self-signed certificate.
      await expect(undiciFetch(`${url}/__sandbox/stats`)).rejects.toThrow();
    } finally {
      await agent.close();
    }
    abort();
    await run;
    expect(existsSync(certFile)).toBe(false);
  });

  it('--tls-cert and --tls-key serve the given files; one without the other, or a file without PEM, is a usage error', async () => {
    const dir = tempDir('numintel-sandbox-tls-');
    const pems = await generate([{ name: 'commonName', value: 'localhost' }], { keyType: 'ec', algorithm: 'sha256' });
    writeFileSync(join(dir, 'cert.pem'), pems.cert);
    writeFileSync(join(dir, 'key.pem'), pems.private);
    const { world, out, abort } = fakeWorld();
    const run = sandboxCommand(world, ignoreExitCode).parseAsync(['--port', '0', '--tls-cert', join(dir, 'cert.pem'), '--tls-key', join(dir, 'key.pem')], { from: 'user' });
    await until('two lines', () => out.join('').split('\n').length > 2, 10_000, 2);
    expect(out.join('')).toMatch(/listening on https:\/\/127\.0\.0\.1:\d+ .*\nnumintel sandbox certificate: .*cert\.pem /);
    abort();
    await run;
    for (const args of [['--tls-cert', join(dir, 'cert.pem')], ['--tls-cert', join(dir, 'key.pem'), '--tls-key', join(dir, 'key.pem')], ['--tls-cert', join(dir, 'none.pem'), '--tls-key', join(dir, 'key.pem')]]) {
      const err = await sandboxCommand(fakeWorld().world, ignoreExitCode).exitOverride().parseAsync(['--port', '0', ...args], { from: 'user' }).catch((e: unknown) => e);
      expect(err, args.join(' ')).toBeInstanceOf(NumintelError);
      expect((err as NumintelError).kind).toBe('usage');
    }
  });

  it('refuses bad values as usage errors', async () => {
    for (const args of [['--port', 'abc'], ['--port', '70000'], ['--fail-rate', '2'], ['--limit-cnam', '-1'], ['--api-key', 'short'], ['--latency', '1.5'], ['--window', '0'], ['--window', '1.5'], ['--burst', '0.5'], ['--shared-limit', 'x'], ['--rate-headers', 'draft']]) {
      const { world } = fakeWorld();
      const err = await sandboxCommand(world, ignoreExitCode).exitOverride().parseAsync(args, { from: 'user' }).catch((e: unknown) => e);
      expect(err, args.join(' ')).toBeInstanceOf(NumintelError);
      expect((err as NumintelError).kind).toBe('usage');
    }
  });

  it('--bulk-max, --bulk-limit, --bulk-rows and --no-bulk shape the bulk endpoints; bad values are usage errors', async () => {
    const started = async (args: string[]) => {
      const { world, out, abort } = fakeWorld();
      const run = sandboxCommand(world, ignoreExitCode).parseAsync(['--port', '0', ...args], { from: 'user' });
      await until('the listening line', () => out.length > 0, 10_000, 2);
      const url = /on (\S+) /.exec(out.join(''))![1]!;
      const bulk = (kind: string, numbers: string[]) =>
        fetch(`${url}/api/v1/${kind}/bulk`, {
          method: 'POST',
          headers: { authorization: 'Bearer sandbox-key-0000', 'content-type': 'application/json' },
          body: JSON.stringify({ phone_numbers: numbers }),
        });
      return { bulk, stop: async () => (abort(), await run) };
    };
    const a = await started(['--bulk-max', '2', '--bulk-limit', '7', '--bulk-limit', 'cnam=3', '--bulk-rows', 'single', '--bulk-fail-rate', '1']);
    const l = await a.bulk('lrn', ['12125550123', '12125550124']);
    expect(l.status).toBe(200);
    expect(l.headers.get('x-ratelimit-limit')).toBe('7');
    expect(((await l.json()) as { results: Array<{ status: string }> }).results.map((r) => r.status)).toEqual(['failed', 'failed']);
    expect((await a.bulk('cnam', ['12125550123'])).headers.get('x-ratelimit-limit')).toBe('3');
    expect((await a.bulk('lrn', ['12125550123', '12125550124', '12125550125'])).status).toBe(400);
    await a.stop();
    const b = await started(['--bulk-rows', 'single']);
    const row = ((await (await b.bulk('lrn', ['12125550123'])).json()) as { results: Array<Record<string, unknown>> }).results[0];
    expect(row).toHaveProperty('lrn');
    expect(row).not.toHaveProperty('lrn_value');
    await b.stop();
    const c = await started(['--no-bulk']);
    expect((await c.bulk('lrn', ['12125550123'])).status).toBe(404);
    await c.stop();
    for (const args of [['--bulk-max', '0'], ['--bulk-max', '100001'], ['--bulk-limit', 'trust=3'], ['--bulk-limit', 'x'], ['--bulk-limit', 'lrn=1=2'], ['--bulk-fail-rate', '2']]) {
      const err = await sandboxCommand(fakeWorld().world, ignoreExitCode).exitOverride().parseAsync(['--port', '0', ...args], { from: 'user' }).catch((e: unknown) => e);
      expect(err, args.join(' ')).toBeInstanceOf(NumintelError);
      expect((err as NumintelError).kind, args.join(' ')).toBe('usage');
    }
    const err = await sandboxCommand(fakeWorld().world, ignoreExitCode).exitOverride().configureOutput({ writeErr: () => {} }).parseAsync(['--port', '0', '--bulk-rows', 'flat'], { from: 'user' }).catch((e: unknown) => e);
    expect((err as Error).message).toMatch(/--bulk-rows.*flat/);
  });

  it('a --window out of range is told in the flag\'s own name and unit, not the option object\'s', async () => {
    for (const value of ['0', '86401']) {
      const { world } = fakeWorld();
      const err = await sandboxCommand(world, ignoreExitCode).exitOverride().parseAsync(['--window', value], { from: 'user' }).catch((e: unknown) => e);
      expect((err as Error).message).toBe(`--window must be from 1 to 86400 seconds, got "${value}"`);
    }
  });

  it('documents its choices in --help', () => {
    const cmd = sandboxCommand(fakeWorld().world, ignoreExitCode);
    let text = '';
    cmd.configureOutput({ writeOut: (s) => (text += s) }).exitOverride();
    expect(() => cmd.parse(['--help'], { from: 'user' })).toThrow();
    for (const word of ['--fail-rate', '--limit-trust', '401', '402', 'WWW-Authenticate', 'timestamp for CNAM and Trust', 'retry_after', 'INVALID_NUMBER', '/__sandbox/stats', 'TOLLFREE', 'high|medium|low', '--window', '--shared-limit', '--burst', '--hide-limit', '--rate-headers', 'RateLimit-Policy', '--no-bulk', '--bulk-max', '--bulk-limit', '--bulk-rows', '--bulk-fail-rate', '/api/v1/lrn/bulk', 'include_enhanced', 'input_indices', 'lrn_value', 'voice_provider', 'cnam_record']) {
      expect(text).toContain(word);
    }
  });
});
