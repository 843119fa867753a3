// Runs the real CLI (bin/numintel.js, built) as a child process, with a clean environment.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { parse as parseCsvSync } from 'csv-parse/sync';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { Agent, fetch as undiciFetch } from 'undici';
import { startSandbox, type Sandbox, type SandboxOptions } from '../../src/sandbox/index.js';
import type { RunStats } from '../../src/core/run.js';

export const ROOT = join(import.meta.dirname, '..', '..');
// NUMINTEL_E2E_CLI points the suite at another build of the launcher (e.g. a private copy while
// someone else rebuilds dist/); by default it is this tree's bin/numintel.js.
export const CLI = process.env.NUMINTEL_E2E_CLI ?? join(ROOT, 'bin', 'numintel.js');
const CODE_CACHE = join(ROOT, 'node_modules', '.cache', 'numintel-code');

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface CliOptions {
  env?: Record<string, string | undefined>;
  stdin?: string;
  cwd?: string;
  timeoutMs?: number;
}

// Every directory tempDir makes, removed once the test file that made it is done. (Test files run
// with their own copy of this module, so the hook is registered for each file that imports it.)
const madeDirs: string[] = [];
afterAll(async () => {
  for (const dir of madeDirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  await Promise.all([...agents.values()].map((a) => a.close()));
  agents.clear();
});

/** A fresh temporary directory, removed after the current test file. */
export function tempDir(prefix = 'numintel-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  madeDirs.push(dir);
  return dir;
}

/**
 * A fresh environment: no key, no base URL, a private HOME and config directory (new for every
 * call, removed after the test file), no colour forcing.
 */
export function cleanEnv(extra: Record<string, string | undefined> = {}): Record<string, string> {
  const root = tempDir('numintel-env-');
  const home = join(root, 'home');
  const config = join(root, 'config');
  mkdirSync(home);
  mkdirSync(config);
  const env: Record<string, string | undefined> = {
    PATH: process.env.PATH,
    HOME: home,
    NUMINTEL_CONFIG_DIR: config,
    // One V8 code cache for the whole suite (the launcher's, keyed by the bundle): a fresh one per
    // run would make every spawn compile the bundle and write a cache.
    NUMINTEL_CODE_CACHE_DIR: CODE_CACHE,
    ...extra,
  };
  return Object.fromEntries(Object.entries(env).filter((e): e is [string, string] => e[1] !== undefined));
}

export function runCli(args: string[], opts: CliOptions = {}): Promise<CliResult> {
  return spawnClean(process.execPath, [CLI, ...args], opts);
}

function spawnClean(command: string, args: string[], opts: CliOptions): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd: opts.cwd ?? ROOT,
      env: cleanEnv(opts.env),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 15_000);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
    child.stdin.on('error', () => {});
    child.stdin.end(opts.stdin ?? '');
  });
}

/** Parses JSON-lines output. */
export function jsonl(text: string): Record<string, unknown>[] {
  return text
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

// ---- additions for the lookup, settings and error suites ----

/** The sandbox facts the CLI needs in its environment: base URL and key, and with TLS its certificate. */
export interface SandboxLike {
  readonly url: string;
  readonly apiKey: string;
  /** PEM of a TLS sandbox's certificate. */
  readonly ca?: string;
  /** A file holding `ca`. */
  readonly caFile?: string;
}

/**
 * NUMINTEL_BASE_URL and NUMINTEL_API_KEY pointing at a sandbox; for a TLS sandbox also
 * NODE_EXTRA_CA_CERTS naming its certificate, as a user trusting a private CA would set it.
 */
export function sandboxEnv(sb: SandboxLike, extra: Record<string, string | undefined> = {}): Record<string, string | undefined> {
  return { NUMINTEL_BASE_URL: sb.url, NUMINTEL_API_KEY: sb.apiKey, ...(sb.caFile ? { NODE_EXTRA_CA_CERTS: sb.caFile } : {}), ...extra };
}

/** A sandbox on a free port that speaks HTTPS with a certificate made at start (see sandboxEnv). */
export function startTlsSandbox(options: Partial<SandboxOptions> = {}): Promise<Sandbox> {
  return startSandbox({ port: 0, tls: true, ...options });
}

// One client per certificate: the test process trusts a TLS sandbox without NODE_EXTRA_CA_CERTS.
const agents = new Map<string, Agent>();

/** fetch() that trusts the sandbox's certificate when it has one. */
export function sandboxFetch(sb: SandboxLike, path: string, init: { method?: string; headers?: Record<string, string>; body?: string } = {}) {
  let dispatcher: Agent | undefined;
  if (sb.ca) {
    dispatcher = agents.get(sb.ca);
    if (!dispatcher) agents.set(sb.ca, (dispatcher = new Agent({ connect: { ca: sb.ca } })));
  }
  return undiciFetch(`${sb.url}${path}`, { ...init, ...(dispatcher ? { dispatcher } : {}) });
}

/** Fails early, with the fix, when the CLI was not built (the suite runs bin/numintel.js). */
export function requireBuiltCli(): void {
  const bundle = join(CLI, '..', '..', 'dist', 'bundle', 'main.cjs');
  if (!existsSync(bundle)) throw new Error(`${bundle} is missing: run \`npm run build\` before the e2e tests`);
}

export type Kind = 'lrn' | 'cnam' | 'trust';

/**
 * The service's result for one number straight from its REST API, envelope removed, written from
 * the service description (not from numintel's code) so the CLI is compared with an outside view.
 */
export async function restResult(
  sb: SandboxLike,
  kind: Kind,
  number: string,
  opts: { enhanced?: boolean; messaging?: boolean; spam?: boolean } = {},
): Promise<Record<string, unknown>> {
  const body: Record<string, unknown> = { phone_number: number };
  if (opts.enhanced) body.include_enhanced_lrn = true;
  if (opts.messaging) body.messaging_lookup = true;
  if (opts.spam) body.include_spam = true;
  const res = await sandboxFetch(sb, `/api/v1/${kind}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${sb.apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const json = (await res.json()) as Record<string, unknown>;
  if (res.status !== 200) throw new Error(`direct ${kind} lookup of ${number}: HTTP ${res.status} ${JSON.stringify(json)}`);
  return kind === 'lrn' ? json : (json.data as Record<string, unknown>);
}

/** The sandbox's admin stats over HTTP, as any client would see them. */
export async function sandboxStats(sb: SandboxLike): Promise<{
  requests: Record<Kind | 'graphql' | 'total', number>;
  byNumber: Record<string, number>;
  invalid: number;
  unauthorized: number;
  paymentRequired: number;
  billed: number;
  rateLimited: number;
}> {
  const res = await sandboxFetch(sb, '/__sandbox/stats');
  return (await res.json()) as Awaited<ReturnType<typeof sandboxStats>>;
}

/**
 * Runs a shell script in which `numintel` is the CLI under test (for `| head -1` and friends);
 * same clean environment as runCli.
 */
export function runShell(script: string, opts: CliOptions = {}): Promise<CliResult> {
  const define = 'numintel() { "$NUMINTEL_NODE" "$NUMINTEL_CLI" "$@"; }';
  return spawnClean('sh', ['-c', `${define}\n${script}`], {
    ...opts,
    env: { NUMINTEL_NODE: process.execPath, NUMINTEL_CLI: CLI, ...opts.env },
  });
}

/** A Node stack trace line, or an uncaught error banner: never on a user's stderr. */
export function hasStackTrace(text: string): boolean {
  return /^\s+at .+[:(]\d+:\d+\)?$/m.test(text) || /\b(?:Type|Reference|Range)?Error \[?[A-Z_]*\]?:/.test(text) || text.includes('node:internal');
}

/** The CLI's CSV output as rows of cells, parsed strictly: every row as wide as the header, quotes well formed. */
export function parseCsv(text: string): string[][] {
  return parseCsvSync(text, { relax_column_count: false }) as string[][];
}

/** What the closing summary shows of the run's counters. */
export type Summary = Pick<RunStats, 'rows' | 'lookups' | 'duplicates' | 'invalid' | 'failed' | 'retries' | 'rateLimited'>;

/** The counters of the closing summary on stderr (its wording is part of the contract); throws when it is missing. */
export function readSummary(stderr: string): Summary {
  const num = (re: RegExp) => {
    const m = re.exec(stderr);
    if (!m?.[1]) throw new Error(`no summary in stderr: ${stderr}`);
    return Number(m[1]);
  };
  return {
    rows: num(/rows: (\d+)/),
    lookups: num(/lookups sent: (\d+)/),
    duplicates: num(/duplicates saved: (\d+)/),
    invalid: num(/invalid: (\d+)/),
    failed: num(/failed: (\d+)/),
    retries: num(/retries: (\d+)/),
    rateLimited: num(/429s: (\d+)/),
  };
}

export interface LookupCase {
  kind: Kind;
  flags: string[];
  opts: { enhanced?: boolean; messaging?: boolean; spam?: boolean };
}

/** Every lookup command with every combination of its options. */
export const LOOKUP_CASES: LookupCase[] = [
  { kind: 'lrn', flags: [], opts: {} },
  { kind: 'lrn', flags: ['--enhanced'], opts: { enhanced: true } },
  { kind: 'lrn', flags: ['--messaging'], opts: { messaging: true } },
  { kind: 'lrn', flags: ['--enhanced', '--messaging'], opts: { enhanced: true, messaging: true } },
  { kind: 'cnam', flags: [], opts: {} },
  { kind: 'cnam', flags: ['--spam'], opts: { spam: true } },
  { kind: 'trust', flags: [], opts: {} },
];

/** The CSV columns and cells a REST result flattens to, by the contract's rules (not numintel's code). */
export function flattenResult(kind: Kind, result: Record<string, unknown>): Record<string, string> {
  const out: Record<string, string> = {};
  const put = (name: string, v: unknown) => (out[name] = v === null || v === undefined ? '' : String(v));
  for (const [k, v] of Object.entries(result)) {
    if (k === 'enhanced_lrn_data') for (const [sk, sv] of Object.entries(v as object)) put(sk, sv);
    else if (k === 'messaging') for (const [sk, sv] of Object.entries(v as object)) put(`messaging_${sk}`, sv);
    // CNAM's own `number` would collide with the added `number` column.
    else put(kind === 'cnam' && k === 'number' ? 'cnam_number' : k, v);
  }
  return out;
}

/**
 * One sandbox for the whole test file: started before its tests (after checking the CLI is
 * built), closed after them. Read `ctx.sb` and `ctx.env` inside the tests. `{ tls: true }`: over
 * HTTPS, trusted through NODE_EXTRA_CA_CERTS in `ctx.env`.
 */
export function fileSandbox(options: Partial<SandboxOptions> = {}): { sb: Sandbox; env: Record<string, string | undefined> } {
  const ctx = {} as { sb: Sandbox; env: Record<string, string | undefined> };
  beforeAll(async () => {
    requireBuiltCli();
    ctx.sb = await startSandbox({ port: 0, ...options });
    ctx.env = sandboxEnv(ctx.sb);
  });
  afterAll(() => ctx.sb.close());
  return ctx;
}

/**
 * Output with every fetch time (`fetched_at`, ISO 8601 with milliseconds) replaced by a marker: two
 * runs over the same numbers write the same records except when each answer was fetched. (The
 * service's own times, such as trust's last_updated, have no milliseconds and stay.)
 */
export function timeless(text: string): string {
  return text.replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z/g, '<fetched_at>');
}
