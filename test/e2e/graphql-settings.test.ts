// Where the transport choice comes from: --transport, NUMINTEL_TRANSPORT, the config file (set by
// `numintel config set transport`), default rest; flag > env > config. Each run gets a sandbox of
// its own, whose stats say which endpoint the CLI really used.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jsonl, timeless } from '../support/cli.js';
import { sandboxEnv } from '../support/sandbox.js';
import { tempDir } from '../support/tmp.js';
import { cli, restRequests, sandbox, type Sandbox, type TransportName } from './graphql-support.js';

const opened: Sandbox[] = [];
const configs = {} as Record<TransportName, string>;

beforeAll(async () => {
  await Promise.all((['rest', 'graphql'] as const).map(async (t) => (configs[t] = await configDir(t))));
});

afterAll(async () => {
  await Promise.all(opened.map((sb) => sb.close()));
});

/** A config directory whose default profile says `transport <value>`, written by the CLI itself. */
async function configDir(value: TransportName): Promise<string> {
  const dir = tempDir('numintel-graphql-config-');
  const set = await cli(['config', 'set', 'transport', value], { env: { NUMINTEL_CONFIG_DIR: dir } });
  expect(set.code).toBe(0);
  const got = await cli(['config', 'get', 'transport'], { env: { NUMINTEL_CONFIG_DIR: dir } });
  expect(got.stdout.trim()).toBe(value);
  return dir;
}

interface Sources {
  readonly config?: TransportName;
  readonly env?: TransportName;
  readonly flag?: TransportName;
}

const COMMANDS = [
  ['lrn', '--enhanced', '--messaging'],
  ['cnam', '--spam'],
  ['trust'],
  ['enrich', '--spam', '--enhanced'],
] as const;

/** Runs one command with the transport set from these sources; says which endpoints it used. */
async function used(sources: Sources, command: readonly string[]): Promise<TransportName> {
  const sb = await sandbox();
  opened.push(sb);
  const env: Record<string, string | undefined> = sandboxEnv(sb);
  if (sources.config) env.NUMINTEL_CONFIG_DIR = configs[sources.config];
  if (sources.env) env.NUMINTEL_TRANSPORT = sources.env;
  const flag = sources.flag ? ['--transport', sources.flag] : [];
  const out = await cli([...command, ...flag, '-q', '-f', 'jsonl'], { env, stdin: '12015550123\n17024567890\n' });
  expect(out.stderr).toBe('');
  expect(out.code).toBe(0);
  expect(jsonl(out.stdout).map((r) => r.ok)).toEqual([true, true]);
  const stats = sb.stats();
  expect(stats.billed).toBe(command[0] === 'enrich' ? 6 : 2);
  const graphql = stats.requests.graphql;
  const rest = restRequests(sb);
  // Never both: a run talks to one transport only.
  expect(Math.min(graphql, rest)).toBe(0);
  return graphql > 0 ? 'graphql' : 'rest';
}

describe('every lookup command and enrich take the transport from each source', () => {
  const sources: [string, Sources][] = [
    ['default', {}],
    ['--transport graphql', { flag: 'graphql' }],
    ['NUMINTEL_TRANSPORT=graphql', { env: 'graphql' }],
    ['config set transport graphql', { config: 'graphql' }],
  ];
  it.each(COMMANDS.map((c) => [c.join(' '), c] as const))('%s', async (_name, command) => {
    const got = await Promise.all(sources.map(([, s]) => used(s, command)));
    expect(Object.fromEntries(sources.map(([name], i) => [name, got[i]]))).toEqual({
      default: 'rest',
      '--transport graphql': 'graphql',
      'NUMINTEL_TRANSPORT=graphql': 'graphql',
      'config set transport graphql': 'graphql',
    });
  });
});

describe('transport precedence: flag > env > config', () => {
  const CASES: (Sources & { name: string; expected: TransportName })[] = [
    { name: 'env rest beats config graphql', config: 'graphql', env: 'rest', expected: 'rest' },
    { name: 'env graphql beats config rest', config: 'rest', env: 'graphql', expected: 'graphql' },
    { name: 'flag rest beats env graphql', env: 'graphql', flag: 'rest', expected: 'rest' },
    { name: 'flag rest beats config graphql', config: 'graphql', flag: 'rest', expected: 'rest' },
    { name: 'flag graphql beats env and config rest', config: 'rest', env: 'rest', flag: 'graphql', expected: 'graphql' },
  ];
  it('holds in every combination', async () => {
    const got = await Promise.all(CASES.map((c) => used(c, ['lrn'])));
    expect(Object.fromEntries(CASES.map((c, i) => [c.name, got[i]]))).toEqual(Object.fromEntries(CASES.map((c) => [c.name, c.expected])));
  });
});

describe('a bad transport is a usage error (exit 2) wherever it comes from', () => {
  it('from the flag, the environment and `config set`', async () => {
    const sb = await sandbox();
    opened.push(sb);
    const [flag, env, set] = await Promise.all([
      cli(['lrn', '--transport', 'soap', '12015550123'], { env: sandboxEnv(sb) }),
      cli(['lrn', '12015550123'], { env: sandboxEnv(sb, { NUMINTEL_TRANSPORT: 'soap' }) }),
      cli(['config', 'set', 'transport', 'soap']),
    ]);
    expect(flag.code).toBe(2);
    expect(flag.stderr).toMatch(/rest, graphql/);
    expect(env.code).toBe(2);
    expect(env.stderr).toContain('NUMINTEL_TRANSPORT');
    expect(set.code).toBe(2);
    expect(set.stderr).toMatch(/rest, graphql or bulk/);
    expect(sb.stats().requests.total).toBe(0);
  });
});

describe('--verbose is the only place the transport shows', () => {
  it('traces the GraphQL request with the key masked; the record is the same as over REST', async () => {
    const sb = await sandbox();
    opened.push(sb);
    const [rest, graphql] = await Promise.all(
      (['rest', 'graphql'] as const).map((t) => cli(['trust', '-v', '--transport', t, '-f', 'json', '12129876543'], { env: sandboxEnv(sb) })),
    );
    expect(graphql?.code).toBe(0);
    expect(timeless(graphql?.stdout ?? '')).toBe(timeless(rest?.stdout ?? ''));
    expect(graphql?.stderr).toMatch(/→ POST http:\/\/127\.0\.0\.1:\d+\/graphql \[graphql trustLookup\] \{"phoneNumber":"12129876543"\}/);
    expect(graphql?.stderr).toMatch(/← 200 \/graphql \[graphql trustLookup\] \d+ms/);
    expect(graphql?.stderr).not.toContain(sb.apiKey);
    expect(rest?.stderr).toMatch(/→ POST http:\/\/127\.0\.0\.1:\d+\/api\/v1\/trust /);
    expect(rest?.stderr).not.toMatch(/graphql/);
  });

  it('works against the built-in sandbox too (--sandbox --transport graphql)', async () => {
    const [rest, graphql] = await Promise.all(
      (['rest', 'graphql'] as const).map((t) => cli(['lrn', '--sandbox', '--enhanced', '-v', '--transport', t, '-f', 'jsonl', '12015550123'])),
    );
    expect(graphql?.code).toBe(0);
    expect(timeless(graphql?.stdout ?? '')).toBe(timeless(rest?.stdout ?? ''));
    expect(graphql?.stderr).toContain('[graphql lookupLrn] {"phoneNumber":"12015550123","includeEnhancedLrn":true}');
  });
});
