// The baseline of bench/cpu-per-lookup.js: the least a client can do per lookup. Reads the numbers
// (one per line), POSTs each to /api/v1/lrn through an undici pool with `concurrency` requests in
// flight, reads and parses every body, and writes nothing. Run as its own process so its CPU time
// is measured the same way as the CLI's. `concurrency` workers each take the next number: no
// promise or closure per number waits in a queue (a p-limit queue of every number up front cost
// the baseline about a sixth more CPU, mostly garbage collection, which flattered the CLI).
//   node bench/lib/bare-loop.js <base-url> <key> <numbers file> <concurrency>
import { readFileSync } from 'node:fs';
import { Pool } from 'undici';

const [url, key, file, conc] = process.argv.slice(2);
const concurrency = Number(conc ?? 16);
const numbers = readFileSync(file, 'utf8').split('\n').filter(Boolean);
const pool = new Pool(url, { connections: concurrency, pipelining: 1 });
const headers = { 'content-type': 'application/json', accept: 'application/json', authorization: `Bearer ${key}` };
let ok = 0;
let next = 0;
async function worker() {
  while (next < numbers.length) {
    const n = numbers[next++];
    const res = await pool.request({ path: '/api/v1/lrn', method: 'POST', headers, body: JSON.stringify({ phone_number: n }) });
    const json = JSON.parse(await res.body.text());
    if (res.statusCode === 200 && json.lrn) ok++;
  }
}
await Promise.all(Array.from({ length: concurrency }, worker));
await pool.close();
if (ok !== numbers.length) throw new Error(`bare loop: ${numbers.length - ok} lookups failed`);
