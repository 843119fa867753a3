// Exit codes, refusals, failing services, a closed stdout, help and version: the real CLI against
// the real sandbox. The API key never shows, whatever happens.
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { ERROR_STYLES } from '../../src/sandbox/options.js';
import { ROOT, hasStackTrace, jsonl, requireBuiltCli, runCli, runCliInProcess, runShell, type CliResult } from '../support/cli.js';
import { sandboxEnv, sandboxStats } from '../support/sandbox.js';
import { tempDir } from '../support/tmp.js';
import { numbersIn } from '../support/numbers.js';

const KEY = 'sk_test_SUPERSECRET_1234567890';
const WRONG_KEY = 'sk_live_WRONGKEY_0987654321abc';
const SECRETS = [KEY, WRONG_KEY, 'SUPERSECRET_1234567890', 'WRONGKEY_0987654321'];
const NUMBERS = numbersIn('973', 12, 1200);

/** Every run: no secret anywhere, no stack trace, never the "unexpected failure" exit code. */
function expectClean(run: CliResult): void {
  for (const secret of SECRETS) {
    expect(run.stdout).not.toContain(secret);
    expect(run.stderr).not.toContain(secret);
  }
  expect(hasStackTrace(run.stderr), run.stderr).toBe(false);
  expect(run.code).not.toBe(1);
  expect(run.signal).toBeNull();
}

let sb: Sandbox;
beforeAll(async () => {
  requireBuiltCli();
  sb = await startSandbox({ port: 0, apiKeys: [KEY] });
});
afterAll(() => sb.close());

describe('usage errors: exit 2, one clear line, nothing sent', () => {
  it('bad flag values, unknown options, a bad --format, a missing file', async () => {
    const env = sandboxEnv(sb);
    const before = (await sandboxStats(sb)).requests.total;
    // The third column is the help hint expected under the message: Commander's own errors point at
    // the help of the command that refused the line; a file that cannot be read gets no hint.
    const cases: [string[], RegExp, string | null][] = [
      [['lrn', '--concurrency', '0', NUMBERS[0]!], /--concurrency.*"0"/, '(see `numintel lrn --help`)'],
      [['lrn', '--rate', 'fast', NUMBERS[0]!], /--rate.*"fast"/, '(see `numintel lrn --help`)'],
      [['cnam', '--retries', '-1', NUMBERS[0]!], /--retries.*"-1"/, '(see `numintel cnam --help`)'],
      [['trust', '--timeout', '0', NUMBERS[0]!], /--timeout.*"0"/, '(see `numintel trust --help`)'],
      [['lrn', '--transport', 'soap', NUMBERS[0]!], /--transport.*soap/, '(see `numintel lrn --help`)'],
      [['lrn', '--format', 'xml', NUMBERS[0]!], /--format.*xml.*table, json, jsonl, csv/, '(see `numintel lrn --help`)'],
      [['lrn', '--spam', NUMBERS[0]!], /unknown option '--spam'/, '(see `numintel lrn --help`)'],
      [['cnam', '--enhanced', NUMBERS[0]!], /unknown option '--enhanced'/, '(see `numintel cnam --help`)'],
      [['lrn', '-i', join(tempDir(), 'missing.txt')], /missing\.txt/, null],
      [['lookup', NUMBERS[0]!], /unknown command 'lookup'/, '(see `numintel --help`)'],
    ];
    // In this process but for the last two (a missing file, an unknown command), which go through
    // the bundle and its launcher as a user's shell runs them.
    const runs = await Promise.all(cases.map(([args], i) => (i < cases.length - 2 ? runCliInProcess : runCli)(args, { env })));
    for (const [i, run] of runs.entries()) {
      const [args, message, hint] = cases[i]!;
      expect(run.code, args.join(' ')).toBe(2);
      expect(run.stdout).toBe('');
      expect(run.stderr.split('\n')[0]).toMatch(/^numintel: /);
      expect(run.stderr).toMatch(message);
      if (hint === null) expect(run.stderr, args.join(' ')).not.toContain('--help');
      else expect(run.stderr, args.join(' ')).toContain(hint);
      expectClean(run);
    }
    expect((await sandboxStats(sb)).requests.total).toBe(before);
  });
});

describe('a --resume that cannot continue the file', () => {
  it('is refused (exit 2) before the file is cut or written, torn last line included', async () => {
    const env = sandboxEnv(sb);
    const dir = tempDir();
    for (const format of ['csv', 'jsonl'] as const) {
      const out = join(dir, `out.${format}`);
      const first = await runCli(['lrn', '-f', format, '-o', out, NUMBERS[0]!, NUMBERS[1]!], { env });
      expect(first.code).toBe(0);
      // An interrupted run's torn last line, which a resume that goes ahead would cut off.
      writeFileSync(out, `${readFileSync(out, 'utf8')}${format === 'csv' ? '19735551' : '{"input":"1973'}`);
      const before = readFileSync(out);
      const requests = (await sandboxStats(sb)).requests.total;

      const other = await runCli(['cnam', '-f', format, '-o', out, '--resume', NUMBERS[0]!, NUMBERS[1]!, NUMBERS[2]!], { env });
      expectClean(other);
      expect(other.code).toBe(2);
      expect(other.stderr).toMatch(/cannot resume .*differ from what this command writes/);
      expect(readFileSync(out).equals(before)).toBe(true);
      expect((await sandboxStats(sb)).requests.total).toBe(requests);
    }
  });
});

// Refusals and failures read the same whatever the service's error bodies: our description's, or
// the real service's codes and three body formats (sandbox --error-style vri).
describe.each(ERROR_STYLES)('%s error bodies', (errorStyle) => {
  describe('the service refuses: exit 3, an actionable message, nothing more sent', () => {
    it('a wrong key (401)', async () => {
      const own = await startSandbox({ port: 0, errorStyle, apiKeys: [KEY] });
      try {
        const run = await runCli(['lrn', '-v', '--concurrency', '2', ...NUMBERS], {
          env: { NUMINTEL_BASE_URL: own.url, NUMINTEL_API_KEY: WRONG_KEY },
        });
        expect(run.code).toBe(3);
        expectClean(run);
        expect(run.stdout).toBe('');
        const messages = run.stderr.split('\n').filter((l) => l.startsWith('numintel:'));
        expect(messages).toHaveLength(1);
        expect(messages[0]).toMatch(/401/);
        // Where the key comes from, said once (not repeated by the hint).
        expect(run.stderr.match(/NUMINTEL_API_KEY/g)).toHaveLength(1);
        const stats = await sandboxStats(own);
        expect(stats.requests.lrn).toBeLessThanOrEqual(2);
        expect(stats.unauthorized).toBe(stats.requests.lrn);
      } finally {
        await own.close();
      }
    });

    it('quota used up (402): the rows answered before are written, in order', async () => {
      const [own, other] = await Promise.all([0, 1].map(() => startSandbox({ port: 0, errorStyle, apiKeys: [KEY], quota: 3 })));
      try {
        const [run, json] = await Promise.all([
          runCli(['cnam', '-v', '--concurrency', '1', ...NUMBERS], { env: sandboxEnv(own!) }),
          runCli(['cnam', '-q', '--concurrency', '1', '-f', 'json', ...NUMBERS], { env: sandboxEnv(other!) }),
        ]);
        expect(run.code).toBe(3);
        // A stopped run still leaves a complete JSON document.
        expect(json.code).toBe(3);
        expect((JSON.parse(json.stdout) as unknown[]).length).toBe(3);
        expectClean(run);
        expect(jsonl(run.stdout).map((r) => [r.input, r.ok])).toEqual(NUMBERS.slice(0, 3).map((n) => [n, true]));
        const messages = run.stderr.split('\n').filter((l) => l.startsWith('numintel:'));
        expect(messages).toHaveLength(1);
        expect(messages[0]).toMatch(/402|payment/);
        expect(run.stderr.match(/fund the account/g)).toHaveLength(1);
        const stats = await sandboxStats(own!);
        expect(stats.billed).toBe(3);
        expect(stats.paymentRequired).toBe(1);
      } finally {
        await Promise.all([own!.close(), other!.close()]);
      }
    });
  });

  describe('a failing service', () => {
    it('a 5xx that persists becomes a server_error record after the retries, exit 4, quickly', async () => {
      const own = await startSandbox({ port: 0, errorStyle, apiKeys: [KEY], failRate: 1 });
      try {
        const started = performance.now();
        const run = await runCli(['trust', '-v', '--retries', '1', NUMBERS[0]!, NUMBERS[1]!], { env: sandboxEnv(own) });
        expect(performance.now() - started).toBeLessThan(5000);
        expect(run.code).toBe(4);
        expectClean(run);
        const records = jsonl(run.stdout);
        expect(records).toHaveLength(2);
        for (const r of records) {
          expect(r).toMatchObject({ ok: false, result: null, error: { code: 'server_error' } });
          expect((r.error as { status: number }).status).toBeGreaterThanOrEqual(500);
        }
        expect((await sandboxStats(own)).requests.trust).toBe(4);
        expect(run.stderr).toMatch(/failed: 2, retries: 2/);
      } finally {
        await own.close();
      }
    });

    it('timeouts and reset connections become timeout / network_error records, exit 4', async () => {
      const [hang, reset] = await Promise.all([
        startSandbox({ port: 0, errorStyle, apiKeys: [KEY], hangRate: 1 }),
        startSandbox({ port: 0, errorStyle, apiKeys: [KEY], resetRate: 1 }),
      ]);
      try {
        const args = ['lrn', '--retries', '0', '--timeout', '0.3', NUMBERS[0]!];
        const runs = await Promise.all([runCli(args, { env: sandboxEnv(hang) }), runCli(args, { env: sandboxEnv(reset) })]);
        expect(runs.map((r) => r.code)).toEqual([4, 4]);
        runs.forEach(expectClean);
        expect(runs.map((r) => (jsonl(r.stdout)[0]!.error as { code: string }).code)).toEqual(['timeout', 'network_error']);
      } finally {
        await Promise.all([hang.close(), reset.close()]);
      }
    });

    it('a 403 is a refused key too (exit 3), whatever the body', async () => {
      const server = createServer((_req, res) => res.writeHead(403, { 'content-type': 'text/plain' }).end('Forbidden'));
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      try {
        const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
        const run = await runCli(['cnam', ...NUMBERS.slice(0, 3)], { env: { NUMINTEL_BASE_URL: url, NUMINTEL_API_KEY: WRONG_KEY } });
        expect(run.code).toBe(3);
        expectClean(run);
        expect(run.stderr).toMatch(/^numintel: .*403/m);
      } finally {
        server.closeAllConnections();
        await new Promise((resolve) => server.close(resolve));
      }
    });
  });
});

describe('the API key never shows', () => {
  it('--verbose traces every request with the key masked: success, invalid numbers, GraphQL, a key file', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'key'), `${KEY}\n`);
    const env = sandboxEnv(sb);
    const runs = await Promise.all([
      runCli(['lrn', '-v', '--enhanced', '--messaging', NUMBERS[0]!, '123'], { env }),
      runCli(['cnam', '-v', '--spam', '--transport', 'graphql', NUMBERS[1]!], { env }),
      runCli(['trust', '-v', '-f', 'table', NUMBERS[2]!], { env }),
      runCli(['trust', '-v', '--api-key-file', 'key', NUMBERS[2]!], { env: { NUMINTEL_BASE_URL: sb.url }, cwd: dir }),
    ]);
    expect(runs.map((r) => r.code)).toEqual([4, 0, 0, 0]);
    for (const run of runs) {
      expectClean(run);
      expect(run.stderr).toMatch(/^\d\d:\d\d:\d\d\.\d{3} → POST http:\/\/127\.0\.0\.1:\d+\/(api\/v1\/\w+|graphql)/m);
      expect(run.stderr).toMatch(/^\d\d:\d\d:\d\d\.\d{3} ← 200 /m);
      expect(run.stderr).toMatch(/sk_t…/);
    }
  });
});

describe('a closed stdout (`| head -1`)', () => {
  it('ends the run quietly, for every format, and stops sending', async () => {
    const formats = ['jsonl', 'csv', 'json', 'table'];
    // One service per run, so each run's requests can be counted.
    const services = await Promise.all(formats.map(() => startSandbox({ port: 0, apiKeys: [KEY] })));
    try {
      const dir = tempDir();
      const list = join(dir, 'many.txt');
      const many = numbersIn('609', 1000);
      writeFileSync(list, many.join('\n'));
      const pipe = (args: string, sb: Sandbox) =>
        runShell(`{ numintel ${args}; echo "numintel-exit=$?" >&2; } | head -1`, { env: sandboxEnv(sb) });
      const runs = await Promise.all([
        ...formats.map((f, i) => pipe(`lrn -i ${list} -f ${f}`, services[i]!)),
        pipe('lrn 12015550123', sb),
      ]);
      for (const run of runs) {
        expect(run.code).toBe(0);
        expect(run.stdout.split('\n').filter(Boolean)).toHaveLength(1);
        expect(run.stderr).toMatch(/numintel-exit=0/);
        expectClean(run);
      }
      expect(jsonl(runs[0]!.stdout)[0]).toMatchObject({ input: many[0], ok: true });
      expect(runs[1]!.stdout).toMatch(/^input,number,lrn,/);
      expect(runs[4]!.stdout).toMatch(/^\{"input":"12015550123"/);
      // At the default 200/s a run to the end takes five seconds; these stopped when the reader left.
      for (const service of services) expect((await sandboxStats(service)).requests.lrn).toBeLessThan(many.length);
    } finally {
      await Promise.all(services.map((s) => s.close()));
    }
  });
});

describe('help and version', () => {
  const COMMON = [
    '-i, --input', '--csv', '--column', '--delimiter', '--no-header', '--no-validate', '-f, --format', '-o, --output',
    '--resume', '--raw-csv', '--no-color', '--concurrency', '--rate', '--retries', '--timeout', '--base-url',
    '--api-key-file', '--profile', '--transport', '--sandbox', '--no-progress', '-q, --quiet', '-v, --verbose',
  ];
  const OWN: Record<string, string[]> = { lrn: ['--enhanced', '--messaging'], cnam: ['--spam'], trust: [] };

  it('each command lists its flags; --version prints the package version', async () => {
    const version = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
    const kinds = Object.keys(OWN);
    const [top, v, V, ...helps] = await Promise.all([
      runCli(['--help']),
      runCli(['--version']),
      runCli(['-V']),
      ...kinds.map((k) => runCliInProcess([k, '--help'])),
    ]);
    expect(top.code).toBe(0);
    for (const k of kinds) expect(top.stdout).toMatch(new RegExp(`^\\s+${k} `, 'm'));
    expect(top.stdout).toMatch(/Exit codes:/);
    for (const run of [v, V]) {
      expect(run.code).toBe(0);
      expect(run.stdout.trim()).toBe(version);
    }
    for (const [i, k] of kinds.entries()) {
      const help = helps[i]!;
      expect(help.code).toBe(0);
      expect(help.stdout).toMatch(new RegExp(`^Usage: numintel ${k} `, 'm'));
      for (const flag of [...COMMON, ...OWN[k]!]) expect(help.stdout, `${k} --help lists ${flag}`).toContain(flag);
      for (const other of Object.values(OWN).flat()) if (!OWN[k]!.includes(other)) expect(help.stdout).not.toContain(other);
    }
  });
});
