#!/usr/bin/env node
// Start-up cost: `numintel --version` and one `numintel lrn` against a running sandbox, beside a
// bare `node -e 0` and a bare one-request script, median of repeated runs (interleaved so machine
// noise hits all alike).
// Run after `npm run build`: node bench/startup.js [runs]
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startSandbox } from '../dist/sandbox/index.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const cli = join(root, 'bin', 'numintel.js');
const runs = Number(process.argv[2] ?? 21);

const sandbox = await startSandbox({ port: 0 });
const env = { PATH: process.env.PATH, HOME: root, NUMINTEL_CONFIG_DIR: join(root, '.bench-tmp'), NUMINTEL_CODE_CACHE_DIR: join(root, '.bench-tmp', 'code'), NUMINTEL_CACHE_DIR: join(root, '.bench-tmp', 'cache'), NUMINTEL_BASE_URL: sandbox.url, NUMINTEL_API_KEY: sandbox.apiKey };

// What Node alone needs for the same request: load http, one POST, read the answer, exit.
const bareRequest = `const r = require('node:http').request(process.env.NUMINTEL_BASE_URL + '/api/v1/lrn', { method: 'POST',
  headers: { 'content-type': 'application/json', authorization: 'Bearer ' + process.env.NUMINTEL_API_KEY } },
  (res) => { res.resume(); res.on('end', () => process.exit(res.statusCode === 200 ? 0 : 1)); });
r.end(JSON.stringify({ phone_number: '12015550123' }));`;

const missCache = mkdtempSync(join(tmpdir(), 'numintel-startup-'));
const cases = [
  { name: 'node -e 0', args: ['-e', '0'] },
  { name: 'node: one bare http.request', args: ['-e', bareRequest] },
  { name: 'numintel --version', args: [cli, '--version'] },
  { name: 'numintel lrn 12015550123', args: [cli, 'lrn', '12015550123'] },
  // The same without the lookup cache: what opening the cache (LMDB) costs a one-number run.
  { name: 'numintel lrn … --no-cache', args: [cli, 'lrn', '12015550123', '--no-cache'] },
  // A number the cache has not seen, each run another (in a cache of its own, empty at the start):
  // a script starting numintel once per new number opens the cache, misses, sends, and commits.
  { name: 'numintel lrn <new number>', args: (i) => [cli, 'lrn', `1201555${String(1000 + i).padStart(4, '0')}`], env: { NUMINTEL_CACHE_DIR: missCache } },
];

function time(args, extra) {
  return new Promise((resolve, reject) => {
    const start = process.hrtime.bigint();
    const child = spawn(process.execPath, args, { env: { ...env, ...extra }, stdio: ['ignore', 'ignore', 'inherit'] });
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0) reject(new Error(`${args.join(' ')} exited ${code}`));
      else resolve(Number(process.hrtime.bigint() - start) / 1e6);
    });
  });
}

const samples = cases.map(() => []);
for (let i = 0; i < runs; i++) for (const [j, c] of cases.entries()) samples[j].push(await time(typeof c.args === 'function' ? c.args(i) : c.args, c.env));
await sandbox.close();
rmSync(missCache, { recursive: true, force: true });

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const base = median(samples[0]);
console.log(`start-up, median of ${runs} runs (node ${process.version}):`);
for (const [j, c] of cases.entries()) {
  const m = median(samples[j]);
  console.log(`  ${c.name.padEnd(28)} ${m.toFixed(1).padStart(7)} ms  ${(m / base).toFixed(2)}× node -e 0`);
}
