// Runs the real CLI (bin/numintel.js, built) as a child process with a clean environment: to the
// end (runCli, runShell) or steered by the test (startCli: stdin, signals, kill). Also readers of
// what the CLI printed. In-process runs are world.ts's runInProcess.
import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseCsvSync } from 'csv-parse/sync';
import type { RunStats } from '../../src/core/run.js';
import { tempDir } from './tmp.js';

export const ROOT = join(import.meta.dirname, '..', '..');
// NUMINTEL_E2E_CLI points the suite at another build of the launcher (e.g. a private copy while
// someone else rebuilds dist/); by default it is this tree's bin/numintel.js.
export const CLI = process.env.NUMINTEL_E2E_CLI ?? join(ROOT, 'bin', 'numintel.js');
const CODE_CACHE = join(ROOT, 'node_modules', '.cache', 'numintel-code');

/** Whether util-linux `script` is here, to give the CLI a pseudo-terminal (the terminal tests skip without it). */
export const HAS_SCRIPT = spawnSync('script', ['--version'], { stdio: 'ignore' }).status === 0;

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

/** Fails early, with the fix, when the CLI was not built (the suite runs bin/numintel.js). */
export function requireBuiltCli(): void {
  const bundle = join(CLI, '..', '..', 'dist', 'bundle', 'main.cjs');
  if (!existsSync(bundle)) throw new Error(`${bundle} is missing: run \`npm run build\` before the e2e tests`);
}

/** Runs `numintel <args…>` as a child process to its end. */
export function runCli(args: string[], opts: CliOptions = {}): Promise<CliResult> {
  return spawnClean(process.execPath, [CLI, ...args], opts);
}

/**
 * runCli's twin for tests that need no process of their own (no signal, terminal, pipe closing,
 * launcher or certificate trusted through NODE_EXTRA_CA_CERTS): the same program run in this
 * process against a test world (world.ts) with the same clean environment, the same result.
 * Skips a Node start and a bundle load per run.
 */
export async function runCliInProcess(args: string[], opts: CliOptions = {}): Promise<CliResult> {
  // Loaded before the file began by preload.ts, once per worker.
  const { runInProcess } = await import('./world.js');
  const env = cleanEnv(opts.env);
  const r = await runInProcess(args, { env, stdin: opts.stdin ?? '', cwd: opts.cwd ?? ROOT, home: env.HOME });
  return { code: r.code, signal: null, stdout: r.stdout, stderr: r.stderr };
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

function spawnClean(command: string, args: string[], opts: CliOptions): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    // A process group of its own, so that a run past its time is killed whole: killing only `sh`
    // would leave the CLI it started holding the pipes, and the test would hang to vitest's
    // timeout instead of failing here with what the run printed.
    const child = spawn(command, args, {
      cwd: opts.cwd ?? ROOT,
      env: cleanEnv(opts.env),
      stdio: ['pipe', 'pipe', 'pipe'],
      detached: true,
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const timeoutMs = opts.timeoutMs ?? 15_000;
    const timer = setTimeout(() => {
      stderr += `\n[test: killed after ${timeoutMs} ms]\n`;
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        child.kill('SIGKILL');
      }
    }, timeoutMs);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
    child.stdin.on('error', () => {});
    child.stdin.end(opts.stdin ?? '');
  });
}

export interface LiveCli {
  readonly child: ChildProcessWithoutNullStreams;
  stdout(): string;
  stderr(): string;
  /** Resolves once `test` holds for stdout (checked on every chunk); rejects if the CLI ends first or `ms` pass. */
  waitForStdout(test: (out: string) => boolean, ms?: number): Promise<void>;
  readonly done: Promise<CliResult>;
}

const quote = (s: string) => `'${s.replaceAll("'", `'\\''`)}'`;

/**
 * Starts the CLI and leaves stdin open; `timeoutMs` kills it (SIGKILL) so no test can hang.
 * `terminal`: in a pseudo-terminal made by util-linux `script` (stdin, stdout and stderr all the
 * terminal: what it shows arrives on stdout, and what is written to stdin is typed into it),
 * `columns` wide.
 */
export function startCli(
  args: string[],
  opts: { env?: Record<string, string | undefined>; cwd?: string; timeoutMs?: number; terminal?: boolean; columns?: number } = {},
): LiveCli {
  const command = [process.execPath, CLI, ...args];
  // script: -q quiet, -f flush as it comes, -e the CLI's exit code, -c the command; no typescript file.
  // `columns`: the terminal's width, set (stty) before the CLI starts.
  const shell = `${opts.columns ? `stty cols ${opts.columns} rows 50; ` : ''}${command.map(quote).join(' ')}`;
  const [file, argv] = opts.terminal ? ['script', ['-qfec', shell, '/dev/null']] : [command[0]!, command.slice(1)];
  const child = spawn(file, argv, { cwd: opts.cwd ?? ROOT, env: cleanEnv(opts.env), stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  const waiters = new Set<() => void>();
  child.stdout.setEncoding('utf8').on('data', (d: string) => {
    out += d;
    for (const w of [...waiters]) w();
  });
  child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
  child.stdin.on('error', () => {});
  const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 20_000);
  const done = new Promise<CliResult>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      for (const w of [...waiters]) w();
      resolve({ code, signal, stdout: out, stderr: err });
    });
  });
  let ended = false;
  void done.then(() => (ended = true));
  return {
    child,
    stdout: () => out,
    stderr: () => err,
    done,
    waitForStdout: (test, ms) =>
      new Promise<void>((resolve, reject) => {
        const limit = ms === undefined ? undefined : setTimeout(() => finish(new Error(`the expected output did not come within ${ms} ms; stdout:\n${out}\nstderr:\n${err}`)), ms);
        const finish = (e?: Error) => {
          clearTimeout(limit);
          waiters.delete(check);
          if (e) reject(e);
          else resolve();
        };
        const check = () => {
          if (test(out)) finish();
          else if (ended || child.exitCode !== null || child.signalCode !== null) finish(new Error(`the CLI ended before the expected output; stdout:\n${out}\nstderr:\n${err}`));
        };
        waiters.add(check);
        check();
      }),
  };
}

/**
 * Waits (up to `timeoutMs`) until the process's main thread has slept, using no CPU, for `quietMs`
 * (its state and utime + stime in /proc): started, and now waiting for its input. A test that sends
 * Ctrl-C after a fixed sleep alone could, on a loaded machine, hit a CLI still starting, before it
 * listens for the signal (Node's own start-up handler then ends it by the signal: no exit code).
 * Resolves false when it never went quiet (or has no /proc).
 */
export async function waitUntilIdle(pid: number | undefined, { quietMs = 150, timeoutMs = 10_000 } = {}): Promise<boolean> {
  const cpu = (): string | undefined => {
    try {
      // The main thread alone (V8's helper threads may still compile). After the command name (which
      // may hold spaces): the state first, utime and stime the 12th and 13th fields. Only a sleeping
      // thread ('S') is waiting: a runnable one ('R') on a busy machine gains no CPU time while it
      // waits for a core, and is not idle.
      const fields = readFileSync(`/proc/${pid}/task/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ');
      return fields && (fields[0] === 'S' ? `${fields[11]} ${fields[12]}` : `busy ${Date.now()}`);
    } catch {
      return undefined;
    }
  };
  const until = Date.now() + timeoutMs;
  let last = cpu();
  let since = Date.now();
  while (pid !== undefined && last !== undefined && Date.now() < until) {
    await new Promise((resolve) => setTimeout(resolve, 25));
    const now = cpu();
    if (now === undefined) return false;
    if (now !== last) {
      last = now;
      since = Date.now();
    } else if (Date.now() - since >= quietMs) {
      return true;
    }
  }
  return false;
}

/** Parses JSON-lines output. */
export function jsonl(text: string): Record<string, unknown>[] {
  return text
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

/** The CLI's CSV output as rows of cells, parsed strictly: every row as wide as the header, quotes well formed. */
export function parseCsv(text: string): string[][] {
  return parseCsvSync(text, { relax_column_count: false }) as string[][];
}

/**
 * An input fixture's CSV text → rows of cells (header included), read as leniently as the CLI reads
 * its input (BOM, ragged rows, stray quotes). Never for the CLI's own output: parse that strictly
 * with `parseCsv`.
 */
export function csvRows(text: string): string[][] {
  return parseCsvSync(text, { bom: true, relax_column_count: true, relax_quotes: true }) as string[][];
}

/** A Node stack trace line, or an uncaught error banner: never on a user's stderr. */
export function hasStackTrace(text: string): boolean {
  return /^\s+at .+[:(]\d+:\d+\)?$/m.test(text) || /\b(?:Type|Reference|Range)?Error \[?[A-Z_]*\]?:/.test(text) || text.includes('node:internal');
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

/**
 * Output with every fetch time (`fetched_at`, ISO 8601 with milliseconds) replaced by a marker: two
 * runs over the same numbers write the same records except when each answer was fetched. (The
 * service's own times, such as trust's last_updated, have no milliseconds and stay.)
 */
export function timeless(text: string): string {
  return text.replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z/g, '<fetched_at>');
}
