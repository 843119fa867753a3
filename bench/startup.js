#!/usr/bin/env node
// Start-up cost: `numintel --version` and one `numintel lrn` (the number given as an argument or
// on one line of stdin) against a running sandbox, beside a bare `node -e 0` and a bare
// one-request script, median of repeated runs (interleaved so machine noise hits all alike).
// Run after `npm run build`: node bench/startup.js [runs] [--against=DIR] [--instructions]
// --against=DIR also runs the lookups with the CLI of another built checkout (DIR/bin/numintel.js),
// in the same rounds, each in caches of its own: a change measured beside the build before it.
// --instructions then counts each case's instructions under valgrind (callgrind), which are
// the same from run to run whatever else the machine does: where page faults are cheap and the
// CPU is all, the times' ratios come near these.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startSandbox } from '../dist/sandbox/index.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const cli = join(root, 'bin', 'numintel.js');
const args = process.argv.slice(2);
const runs = Number(args.find((a) => /^\d+$/.test(a)) ?? 21);
const against = args.find((a) => a.startsWith('--against='))?.slice('--against='.length);
const instructions = args.includes('--instructions');
if (instructions && spawnSync('valgrind', ['--version']).status !== 0) throw new Error('--instructions needs valgrind (callgrind) on the PATH');

const sandbox = await startSandbox({ port: 0 });
const env = { PATH: process.env.PATH, HOME: root, NUMINTEL_CONFIG_DIR: join(root, '.bench-tmp'), NUMINTEL_CODE_CACHE_DIR: join(root, '.bench-tmp', 'code'), NUMINTEL_CACHE_DIR: join(root, '.bench-tmp', 'cache'), NUMINTEL_BASE_URL: sandbox.url, NUMINTEL_API_KEY: sandbox.apiKey };

// What Node alone needs for the same request: load http, one POST, read the answer, exit.
const bareRequest = `const r = require('node:http').request(process.env.NUMINTEL_BASE_URL + '/api/v1/lrn', { method: 'POST',
  headers: { 'content-type': 'application/json', authorization: 'Bearer ' + process.env.NUMINTEL_API_KEY } },
  (res) => { res.resume(); res.on('end', () => process.exit(res.statusCode === 200 ? 0 : 1)); });
r.end(JSON.stringify({ phone_number: '12015550123' }));`;

const missCache = mkdtempSync(join(tmpdir(), 'numintel-startup-'));
const otherCache = mkdtempSync(join(tmpdir(), 'numintel-startup-'));
const countDir = mkdtempSync(join(tmpdir(), 'numintel-startup-'));
const other = against && join(against, 'bin', 'numintel.js');
// The other build's caches (lookups and code) apart from this one's.
const otherDirs = (sub) => ({ NUMINTEL_CACHE_DIR: join(otherCache, sub), NUMINTEL_CODE_CACHE_DIR: join(otherCache, `${sub}-code`) });
// Each run of a new-number case another number.
const newNumber = (i) => `1201555${String(1000 + i).padStart(4, '0')}`;
const cases = [
  { name: 'node -e 0', args: ['-e', '0'] },
  { name: 'node: one bare http.request', args: ['-e', bareRequest] },
  { name: 'numintel --version', args: [cli, '--version'] },
  // A number the cache's LMDB file holds (put there below): LMDB is opened and read, nothing is sent.
  { name: 'numintel lrn 12015550123', args: [cli, 'lrn', '12015550123'] },
  // The same without the lookup cache: what opening the cache (LMDB) costs a one-number run.
  { name: 'numintel lrn … --no-cache', args: [cli, 'lrn', '12015550123', '--no-cache'] },
  // One line on stdin (a shell loop's `echo $n | numintel lrn`): the cache hit, and without the cache.
  { name: 'echo 12015550123 | numintel lrn', args: [cli, 'lrn'], stdin: '12015550123\n' },
  { name: 'echo … | numintel lrn --no-cache', args: [cli, 'lrn', '--no-cache'], stdin: '12015550123\n' },
  // The same drawn as the table an analyst's terminal shows (here to a pipe, so asked for by -f),
  // with a code cache of its own: one that holds the table too is larger to read, and the line
  // above stays a script's run.
  { name: 'numintel lrn … --no-cache -f table', args: [cli, 'lrn', '12015550123', '--no-cache', '-f', 'table'], env: { NUMINTEL_CODE_CACHE_DIR: join(root, '.bench-tmp', 'code-table') } },
  // A number the cache has not seen, each run another (in a cache of its own, empty at the start):
  // a script starting numintel once per new number.
  { name: 'numintel lrn <new number>', args: (i) => [cli, 'lrn', newNumber(i)], env: { NUMINTEL_CACHE_DIR: missCache } },
  ...(other
    ? [
        { name: 'before: lrn 12015550123', args: [other, 'lrn', '12015550123'], env: otherDirs('hit') },
        { name: 'before: lrn … --no-cache', args: [other, 'lrn', '12015550123', '--no-cache'], env: otherDirs('hit') },
        { name: 'before: echo … | lrn --no-cache', args: [other, 'lrn', '--no-cache'], env: otherDirs('hit'), stdin: '12015550123\n' },
        // Its lookups in a cache of their own, its code cache the other build's one, as above.
        { name: 'before: lrn <new number>', args: (i) => [other, 'lrn', newNumber(i)], env: { ...otherDirs('hit'), NUMINTEL_CACHE_DIR: join(otherCache, 'miss') } },
      ]
    : []),
];

/**
 * Millions of instructions of one run under callgrind, less what V8 spends drawing its hash seed's
 * primes at random as it starts (`detail::sprp`, 4 to 13 M, different in every run).
 */
function count(args, extra, stdin) {
  const out = join(countDir, 'callgrind.out');
  return new Promise((resolve, reject) => {
    const child = spawn('valgrind', ['--tool=callgrind', `--callgrind-out-file=${out}`, process.execPath, ...args], { env: { ...env, ...extra }, stdio: [stdin === undefined ? 'ignore' : 'pipe', 'ignore', 'pipe'] });
    child.stdin?.end(stdin);
    let err = '';
    child.stderr.on('data', (d) => (err += d));
    child.on('error', reject);
    child.on('close', (code) => {
      const total = Number(/Collected : (\d+)/.exec(err)?.[1]);
      if (code !== 0 || !Number.isFinite(total)) return reject(new Error(`${args.join(' ')} under valgrind exited ${code}: ${err.slice(-300)}`));
      const annotated = spawnSync('callgrind_annotate', [out], { encoding: 'utf8', maxBuffer: 64 << 20 }).stdout;
      const seed = annotated
        .split('\n')
        .filter((line) => line.includes('detail::sprp'))
        .reduce((sum, line) => sum + Number(line.trim().split(' ')[0].replaceAll(',', '')), 0);
      rmSync(out, { force: true });
      resolve((total - seed) / 1e6);
    });
  });
}

function time(args, extra, stdin) {
  return new Promise((resolve, reject) => {
    const start = process.hrtime.bigint();
    const child = spawn(process.execPath, args, { env: { ...env, ...extra }, stdio: [stdin === undefined ? 'ignore' : 'pipe', 'ignore', 'inherit'] });
    child.stdin?.end(stdin);
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0) reject(new Error(`${args.join(' ')} exited ${code}`));
      else resolve(Number(process.hrtime.bigint() - start) / 1e6);
    });
  });
}

// The number of the cache hit goes into the LMDB file.
await time([cli, 'lrn'], {}, '12015550123\n');
if (other) await time([other, 'lrn'], otherDirs('hit'), '12015550123\n');
const argsOf = (c, i) => (typeof c.args === 'function' ? c.args(i) : c.args);
const samples = cases.map(() => []);
for (let i = 0; i < runs; i++) for (const [j, c] of cases.entries()) samples[j].push(await time(argsOf(c, i), c.env, c.stdin));
// After the timed rounds, so the code caches are the ones those runs left; new numbers past theirs.
// The fewer of two runs, as a run now and then also prunes the cache.
const counts = [];
if (instructions) for (const c of cases) counts.push(Math.min(await count(argsOf(c, runs), c.env, c.stdin), await count(argsOf(c, runs + 1), c.env, c.stdin)));
await sandbox.close();
for (const dir of [missCache, otherCache, countDir]) rmSync(dir, { recursive: true, force: true });

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;
const base = median(samples[0]);
console.log(`start-up, median of ${runs} runs (node ${process.version}), and the mean:`);
for (const [j, c] of cases.entries()) {
  const m = median(samples[j]);
  const n = counts[j] === undefined ? '' : `   ${counts[j].toFixed(1).padStart(6)} M instructions, ${(counts[j] / counts[0]).toFixed(2)}×`;
  console.log(`  ${c.name.padEnd(36)} ${m.toFixed(1).padStart(7)} ms  ${(m / base).toFixed(2)}× node -e 0   mean ${mean(samples[j]).toFixed(1).padStart(7)} ms${n}`);
}
