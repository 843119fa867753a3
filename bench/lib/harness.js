// Shared by the bulk benchmarks: a sandbox in its own process, input files of unique valid
// numbers under os.tmpdir(), the real CLI run as a child (with its peak RSS), and small helpers.
// Everything is loopback-only and stops by itself (every wait has a deadline).
import { spawn } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { fetch } from 'undici';
import { parseNumber } from '../../dist/core/numbers.js';
// Deterministic, so every run benchmarks the same numbers.
import { prng } from '../../dist/core/prng.js';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const CLI = join(ROOT, 'bin', 'numintel.js');

/** A clean environment for the CLI: temp HOME and config dir, nothing inherited but PATH. */
export function cliEnv(dir, sandbox) {
  return { PATH: process.env.PATH ?? '', HOME: dir, NUMINTEL_CONFIG_DIR: join(dir, 'config'), NUMINTEL_BASE_URL: sandbox.url, NUMINTEL_API_KEY: sandbox.apiKey };
}

export async function tempDir() {
  const dir = await mkdtemp(join(tmpdir(), 'numintel-bench-'));
  return { dir, remove: () => rm(dir, { recursive: true, force: true }) };
}

/**
 * `numintel sandbox --port 0 <args>` in its own process; its URL comes from the first stdout line.
 * `stats()` and `reset()` use the admin endpoints; `stop()` sends SIGTERM and waits for the exit.
 */
export async function startSandboxProcess(args, { timeoutMs = 15_000 } = {}) {
  const child = spawn(process.execPath, [CLI, 'sandbox', '--port', '0', ...args], {
    env: { PATH: process.env.PATH ?? '' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const first = await withDeadline(
    new Promise((resolve, reject) => {
      let text = '';
      child.stdout.setEncoding('utf8');
      child.stdout.on('data', (chunk) => {
        text += chunk;
        const nl = text.indexOf('\n');
        if (nl >= 0) resolve(text.slice(0, nl));
      });
      child.once('exit', (code) => reject(new Error(`sandbox exited ${code} before listening`)));
      child.once('error', reject);
    }),
    timeoutMs,
    'sandbox start',
  ).catch((err) => {
    child.kill('SIGKILL');
    throw err;
  });
  const url = /listening on (\S+)/.exec(first)?.[1];
  const apiKey = /API key: ([^\s)]+)/.exec(first)?.[1];
  if (!url || !apiKey) throw new Error(`unexpected sandbox banner: ${first}`);
  child.stdout.resume();
  const admin = async (path, method = 'GET') => {
    const res = await fetch(`${url}/__sandbox/${path}`, { method, signal: AbortSignal.timeout(timeoutMs) });
    if (!res.ok) throw new Error(`sandbox ${path}: ${res.status}`);
    return res.json();
  };
  return {
    url,
    apiKey,
    pid: child.pid,
    stats: () => admin('stats'),
    reset: () => admin('reset', 'POST'),
    async stop() {
      if (child.exitCode !== null) return;
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      await withDeadline(exited, 5000, 'sandbox stop').catch(() => child.kill('SIGKILL'));
    },
  };
}

/** Waits for `child` to exit (killed after `timeoutMs`); its exit code and what it wrote to stderr. */
export async function exited(child, timeoutMs = 600_000) {
  let stderr = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (c) => (stderr += c));
  const killer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  const [code] = await once(child, 'exit');
  clearTimeout(killer);
  return { code, stderr };
}

/** bench/lib/fixed-server.js in its own process: the cheapest service, so the client is what is measured. */
async function startFixedServer() {
  const child = spawn(process.execPath, [join(ROOT, 'bench', 'lib', 'fixed-server.js')], { stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await withDeadline(
    new Promise((resolve, reject) => {
      child.stdout.setEncoding('utf8');
      child.stdout.once('data', (d) => resolve(/listening (\d+)/.exec(d)?.[1]));
      child.once('exit', (c) => reject(new Error(`fixed server exited ${c}`)));
    }),
    15_000,
    'the fixed server to listen',
  );
  return { url: `http://127.0.0.1:${port}`, stop: () => child.kill('SIGTERM') };
}

/**
 * The fixed server and `rows` unique numbers both as a CSV (`id,phone`) and as a list, in a temp
 * dir, with the CLI's environment for them: the setting of the client-CPU benchmarks. `close()`
 * stops the server and removes the files.
 */
export async function fixedServerSetting(rows) {
  const tmp = await tempDir();
  const server = await startFixedServer();
  const numbers = validNumbers(rows, 11);
  const csv = join(tmp.dir, 'in.csv');
  const list = join(tmp.dir, 'in.txt');
  await writeLines(csv, 'id,phone', numbers, (n, i) => `${i},${n}`);
  await writeLines(list, null, numbers);
  const env = { PATH: process.env.PATH ?? '', HOME: tmp.dir, NUMINTEL_CONFIG_DIR: join(tmp.dir, 'config'), NUMINTEL_BASE_URL: server.url, NUMINTEL_API_KEY: 'sandbox-key-0000' };
  return {
    dir: tmp.dir,
    url: server.url,
    csv,
    list,
    env,
    async close() {
      server.stop();
      await tmp.remove();
    },
  };
}

/**
 * `count` distinct numbers that numintel accepts as valid U.S. numbers, spread uniformly over the
 * whole NANP range (so no cache keyed by a prefix gets an easy ride), as 11-digit strings.
 */
export function validNumbers(count, seed = 1) {
  const random = prng(seed);
  const seen = new Set();
  const out = [];
  const cap = count * 20;
  for (let tries = 0; out.length < count && tries < cap; tries++) {
    const npa = 200 + Math.floor(random() * 800);
    const nxx = 200 + Math.floor(random() * 800);
    const line = Math.floor(random() * 10_000);
    const n = npa * 1e7 + nxx * 1e4 + line;
    if (seen.has(n)) continue;
    const parsed = parseNumber(`1${n}`);
    if (!parsed.ok) continue;
    seen.add(n);
    out.push(parsed.number);
  }
  if (out.length < count) throw new Error(`only ${out.length} valid numbers found`);
  return out;
}

/** Writes lines through a stream with back-pressure (a 1M-row file never sits in memory whole). */
export async function writeLines(path, header, numbers, row = (n) => n) {
  const out = createWriteStream(path);
  if (header !== null) out.write(`${header}\n`);
  let buf = '';
  for (let i = 0; i < numbers.length; i++) {
    buf += `${row(numbers[i], i)}\n`;
    if (buf.length > 65_536) {
      if (!out.write(buf)) await once(out, 'drain');
      buf = '';
    }
  }
  out.end(buf);
  await once(out, 'finish');
}

/**
 * Runs the CLI (`cli`: another build's launcher, to compare two builds) to the end and measures it. Peak RSS is the kernel's high-water mark (VmHWM) of the
 * CLI process, polled until it exits (it only grows, so the last reading is at most one poll late);
 * so is what it sent towards the disk (`write_bytes` of /proc/<pid>/io: pages it made dirty, a page
 * dirtied again before the kernel wrote it back counted once), and the CPU seconds it used (utime
 * and stime of /proc/<pid>/stat: on a busy machine work per CPU second says more than wall time).
 */
export async function runCli(args, env, { timeoutMs = 600_000, pollMs = 50, cli = CLI } = {}) {
  const started = performance.now();
  const child = spawn(process.execPath, [cli, ...args], { env, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (c) => (stderr += c));
  let peakKb = 0;
  // Of the resident pages, those of mapped files (the node binary, the cache's LMDB file): the
  // kernel can drop them once written back, unlike the process's own memory.
  let fileKb = 0;
  let diskBytes = 0;
  let cpuSeconds = 0;
  const poll = async () => {
    try {
      const status = await readFile(`/proc/${child.pid}/status`, 'utf8');
      const kb = Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0);
      if (kb > peakKb) peakKb = kb;
      fileKb = Math.max(fileKb, Number(/RssFile:\s+(\d+)/.exec(status)?.[1] ?? 0));
      const io = await readFile(`/proc/${child.pid}/io`, 'utf8');
      diskBytes = Math.max(diskBytes, Number(/write_bytes: (\d+)/.exec(io)?.[1] ?? 0));
      // Fields 14 and 15 (after the command's name in brackets), in clock ticks of 1/100 s.
      const stat = (await readFile(`/proc/${child.pid}/stat`, 'utf8')).split(') ')[1]?.split(' ') ?? [];
      cpuSeconds = Math.max(cpuSeconds, (Number(stat[11]) + Number(stat[12])) / 100 || 0);
    } catch {
      // The process is gone (or /proc is missing): keep the last reading.
    }
  };
  const timer = setInterval(poll, pollMs);
  const killer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  const [code, signal] = await once(child, 'exit');
  clearInterval(timer);
  clearTimeout(killer);
  const seconds = (performance.now() - started) / 1000;
  if (code !== 0) throw new Error(`numintel ${args.join(' ')} ended ${code ?? signal}:\n${stderr.slice(-2000)}`);
  return { seconds, peakMb: peakKb / 1024, fileMb: fileKb / 1024, diskMb: diskBytes / 2 ** 20, cpuSeconds, stderr };
}

export async function withDeadline(promise, ms, what) {
  let timer;
  const deadline = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} took longer than ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

/** Lines in a file, counted without holding it as one string. */
export async function countLines(path) {
  const { createReadStream } = await import('node:fs');
  let n = 0;
  for await (const chunk of createReadStream(path)) for (let i = 0; i < chunk.length; i++) if (chunk[i] === 10) n++;
  return n;
}

export const fmt = (n, digits = 0) => n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

/** Benchmarks print one JSON line `BENCH {…}` for bench/run.js to collect into its summary. */
export function report(name, figures) {
  console.log(`BENCH ${JSON.stringify({ name, ...figures })}`);
}
