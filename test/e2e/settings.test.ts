// Where the CLI's settings come from, end to end: flag > environment > config profile > default,
// the API key's sources, and the setup errors that must stop a run before anything is sent.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { jsonl, requireBuiltCli, runCli, runCliInProcess, type CliResult } from '../support/cli.js';
import { sandboxStats } from '../support/sandbox.js';
import { tempDir } from '../support/tmp.js';

const KEY = 'sk_test_SUPERSECRET_1234567890';
const UNUSED_PORT_URL = 'http://127.0.0.1:1';

// Three services that accept the same key: which one a lookup reached tells where its base URL came from.
let a: Sandbox;
let b: Sandbox;
let c: Sandbox;
beforeAll(async () => {
  requireBuiltCli();
  const start = () => startSandbox({ port: 0, apiKeys: [KEY], latencyMs: 20 });
  [a, b, c] = await Promise.all([start(), start(), start()]);
});
afterAll(async () => {
  await Promise.all([a, b, c].map((s) => s.close()));
});

/** Which sandbox billed a lookup of `number` (each run below uses its own number). */
async function reached(kind: string, number: string): Promise<string[]> {
  const out: string[] = [];
  for (const [name, sb] of [['a', a], ['b', b], ['c', c]] as const) {
    if ((await sandboxStats(sb)).byNumber[`${kind}:${number}`]) out.push(name);
  }
  return out;
}

/** A private config directory and a `numintel config ...` runner bound to it. */
function configDir() {
  const dir = tempDir('numintel-cfg-');
  const config = async (args: string[], stdin?: string) => {
    const run = await runCliInProcess(['config', ...args], { env: { NUMINTEL_CONFIG_DIR: dir }, stdin });
    expect(run.code, run.stderr).toBe(0);
    return run;
  };
  return { dir, config };
}

function expectOk(run: CliResult): void {
  expect(run.code, run.stderr).toBe(0);
  expect(jsonl(run.stdout)[0]).toMatchObject({ ok: true });
}

describe('base URL and API key precedence', () => {
  it('config profile, then NUMINTEL_BASE_URL, then --base-url; the stored key works without the environment', async () => {
    const { dir, config } = configDir();
    await config(['set', 'base-url', a.url]);
    await config(['set', 'api-key'], `${KEY}\n`);
    const [fromConfig, fromEnv, fromFlag] = await Promise.all([
      runCliInProcess(['lrn', '12015550001'], { env: { NUMINTEL_CONFIG_DIR: dir } }),
      runCliInProcess(['lrn', '12015550002'], { env: { NUMINTEL_CONFIG_DIR: dir, NUMINTEL_BASE_URL: b.url } }),
      runCliInProcess(['lrn', '12015550003', '--base-url', c.url], { env: { NUMINTEL_CONFIG_DIR: dir, NUMINTEL_BASE_URL: b.url } }),
    ]);
    for (const run of [fromConfig, fromEnv, fromFlag]) expectOk(run);
    expect(await reached('lrn', '12015550001')).toEqual(['a']);
    expect(await reached('lrn', '12015550002')).toEqual(['b']);
    expect(await reached('lrn', '12015550003')).toEqual(['c']);
  });

  it('--profile and NUMINTEL_PROFILE pick a profile, the flag first; an unknown profile is exit 2', async () => {
    const { dir, config } = configDir();
    await config(['set', 'base-url', a.url]);
    await config(['set', '--profile', 'staging', 'base-url', b.url]);
    const env = { NUMINTEL_CONFIG_DIR: dir, NUMINTEL_API_KEY: KEY };
    const [flag, variable, both, unknown] = await Promise.all([
      runCliInProcess(['cnam', '12015550011', '--profile', 'staging'], { env }),
      runCliInProcess(['cnam', '12015550012'], { env: { ...env, NUMINTEL_PROFILE: 'staging' } }),
      runCliInProcess(['cnam', '12015550013', '--profile', 'default'], { env: { ...env, NUMINTEL_PROFILE: 'staging' } }),
      runCliInProcess(['cnam', '12015550014', '--profile', 'stagign'], { env }),
    ]);
    for (const run of [flag, variable, both]) expectOk(run);
    expect(await reached('cnam', '12015550011')).toEqual(['b']);
    expect(await reached('cnam', '12015550012')).toEqual(['b']);
    expect(await reached('cnam', '12015550013')).toEqual(['a']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/unknown profile "stagign"[\s\S]*staging/);
  });

  it('the key: NUMINTEL_API_KEY over the config file, --api-key-file (path or -) over both', async () => {
    const { dir, config } = configDir();
    await config(['set', 'api-key'], 'sk_wrong_key_from_config_000\n');
    const keyFile = join(dir, 'key.txt');
    writeFileSync(keyFile, `${KEY}\n`);
    const env = { NUMINTEL_CONFIG_DIR: dir, NUMINTEL_BASE_URL: a.url };
    const wrongEnv = { ...env, NUMINTEL_API_KEY: 'sk_wrong_key_from_env_00000' };
    const [configOnly, fromEnv, fromFile, fromStdin] = await Promise.all([
      runCliInProcess(['trust', '12015550021'], { env }),
      runCliInProcess(['trust', '12015550022'], { env: { ...env, NUMINTEL_API_KEY: KEY } }),
      runCliInProcess(['trust', '12015550023', '--api-key-file', keyFile], { env: wrongEnv }),
      runCliInProcess(['trust', '12015550024', '12015550025', '--api-key-file', '-'], { env: wrongEnv, stdin: `${KEY}\n` }),
    ]);
    expect(configOnly.code).toBe(3);
    expectOk(fromEnv);
    expectOk(fromFile);
    expectOk(fromStdin);
    expect(jsonl(fromStdin.stdout).map((r) => r.number)).toEqual(['12015550024', '12015550025']);
  });

  it('--api-key-file - with the numbers also on stdin is a usage error, not a silent empty run', async () => {
    const [dash, none] = await Promise.all([
      runCliInProcess(['lrn', '-i', '-', '--api-key-file', '-'], { env: { NUMINTEL_BASE_URL: a.url }, stdin: `${KEY}\n12015550123\n` }),
      runCliInProcess(['lrn', '--api-key-file', '-'], { env: { NUMINTEL_BASE_URL: a.url }, stdin: `${KEY}\n` }),
    ]);
    for (const run of [dash, none]) {
      expect(run.code).toBe(2);
      expect(run.stderr).toMatch(/--api-key-file -.*standard input/);
      expect(run.stderr).not.toContain(KEY);
    }
  });
});

describe('other settings follow the same precedence', () => {
  it('transport: config, then NUMINTEL_TRANSPORT, then --transport', async () => {
    const { dir, config } = configDir();
    await config(['set', 'transport', 'graphql']);
    const env = { NUMINTEL_CONFIG_DIR: dir, NUMINTEL_API_KEY: KEY };
    const before = await Promise.all([a, b, c].map((s) => sandboxStats(s)));
    const runs = await Promise.all([
      runCliInProcess(['lrn', '12015550031', '--base-url', a.url], { env }),
      runCliInProcess(['lrn', '12015550032', '--base-url', b.url], { env: { ...env, NUMINTEL_TRANSPORT: 'rest' } }),
      runCliInProcess(['lrn', '12015550033', '--base-url', c.url, '--transport', 'graphql'], { env: { ...env, NUMINTEL_TRANSPORT: 'rest' } }),
    ]);
    runs.forEach(expectOk);
    const after = await Promise.all([a, b, c].map((s) => sandboxStats(s)));
    const used = after.map((s, i) => (s.requests.graphql > before[i]!.requests.graphql ? 'graphql' : 'rest'));
    expect(used).toEqual(['graphql', 'rest', 'graphql']);
  });

  it('concurrency and retries: config profile, overridden by the flag', async () => {
    const { dir, config } = configDir();
    await config(['set', 'concurrency', '1']);
    await config(['set', 'retries', '0']);
    const env = { NUMINTEL_CONFIG_DIR: dir, NUMINTEL_API_KEY: KEY, NUMINTEL_BASE_URL: a.url };
    const numbers = ['12015550041', '12015550042', '12015550043', '12015550044', '12015550045', '12015550046'];
    const [serial, parallel, noRetry, retried] = await Promise.all([
      runCliInProcess(['lrn', '-v', ...numbers], { env }),
      runCliInProcess(['lrn', '-v', '--concurrency', '3', ...numbers.map((n) => n.replace(/^1201/, '1202'))], { env }),
      // A closed port: every attempt fails at once, so the trace shows each attempt (the summary
      // counts none: nothing reached a service).
      runCliInProcess(['lrn', '-v', '12015550047', '12015550048'], { env: { ...env, NUMINTEL_BASE_URL: UNUSED_PORT_URL } }),
      runCliInProcess(['lrn', '-v', '12015550047', '12015550048', '--retries', '1'], { env: { ...env, NUMINTEL_BASE_URL: UNUSED_PORT_URL } }),
    ]);
    expectOk(serial);
    expectOk(parallel);
    expect(maxInFlight(serial.stderr)).toBe(1);
    expect(maxInFlight(parallel.stderr)).toBeGreaterThan(1);
    expect(maxInFlight(parallel.stderr)).toBeLessThanOrEqual(3);
    expect(noRetry.code).toBe(4);
    const attempts = (trace: string) => trace.split('\n').filter((l) => l.slice(13, 15) === '→ ').length;
    expect(attempts(noRetry.stderr)).toBe(2);
    expect(retried.code).toBe(4);
    expect(attempts(retried.stderr)).toBe(4);
    expect(retried.stderr).toMatch(/lookups sent: 0, .*\n.*retries: 0\b/);
    expect(jsonl(retried.stdout).map((r) => (r.error as { code: string }).code)).toEqual(['network_error', 'network_error']);
  });
});

/** Requests in flight at most, from the --verbose trace (→ request, ← answer). */
function maxInFlight(trace: string): number {
  let now = 0;
  let max = 0;
  for (const line of trace.split('\n')) {
    // Each trace line starts with its time, HH:MM:SS.mmm.
    const arrow = line.slice(13, 15);
    if (arrow === '→ ') max = Math.max(max, ++now);
    else if (arrow === '← ') now--;
  }
  return max;
}

describe('setup errors stop the run before anything is sent (exit 2)', () => {
  it('--sandbox with --base-url: a usage error naming both (lrn, enrich, doctor); with a base URL from the environment, the sandbox', async () => {
    const before = await sandboxStats(a);
    const runs = await Promise.all([
      runCli(['lrn', '--sandbox', '--base-url', a.url, '12015550123']),
      runCli(['enrich', '--sandbox', '--base-url', a.url, '-i', '-'], { stdin: '12015550123\n' }),
      runCli(['doctor', '--sandbox', '--base-url', a.url]),
    ]);
    for (const run of runs) {
      expect(run.code).toBe(2);
      expect(run.stdout).toBe('');
      expect(run.stderr).toBe(`numintel: --sandbox and --base-url name two services\ndrop --base-url to use the built-in sandbox, or --sandbox to use ${a.url}\n`);
    }
    expect((await sandboxStats(a)).requests.total).toBe(before.requests.total);
    const fromEnv = await runCli(['lrn', '--sandbox', '12015550123'], { env: { NUMINTEL_BASE_URL: a.url, NUMINTEL_API_KEY: KEY } });
    expectOk(fromEnv);
    expect((await sandboxStats(a)).requests.total).toBe(before.requests.total);
  });

  it('no base URL, no key, or a plain-http remote base URL; --sandbox needs neither', async () => {
    const before = await sandboxStats(a);
    const [noUrl, noKey, plainHttp, sandbox] = await Promise.all([
      runCliInProcess(['lrn', '12015550123'], { env: { NUMINTEL_API_KEY: KEY } }),
      runCliInProcess(['lrn', '12015550123'], { env: { NUMINTEL_BASE_URL: a.url } }),
      runCliInProcess(['lrn', '-v', '12015550123', '--base-url', 'http://numintel.example.invalid'], { env: { NUMINTEL_API_KEY: KEY } }),
      runCliInProcess(['cnam', '--sandbox', '12015550123']),
    ]);
    expect(noUrl.code).toBe(2);
    expect(noUrl.stderr).toMatch(/base URL/);
    expect(noUrl.stderr).toContain('--sandbox');
    expect(noKey.code).toBe(2);
    expect(noKey.stderr).toMatch(/API key/);
    expect(noKey.stderr).toContain('NUMINTEL_API_KEY');
    expect(plainHttp.code).toBe(2);
    expect(plainHttp.stderr).toMatch(/http:\/\//);
    expect(plainHttp.stderr).toMatch(/https:\/\//);
    expect(plainHttp.stderr).not.toMatch(/→ POST/);
    expect(plainHttp.stderr).not.toContain(KEY);
    for (const run of [noUrl, noKey, plainHttp]) expect(run.stdout).toBe('');
    expect((await sandboxStats(a)).requests.total).toBe(before.requests.total);
    expectOk(sandbox);
  });
});
