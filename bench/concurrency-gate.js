#!/usr/bin/env node
// The concurrency gate's own cost per request: src/pipeline/dispatch/gate.ts beside p-limit doing
// the same job (16 requests in flight, each answered on the next microtask, one run feeding them
// as it has one ready), in one process, the faster of 5 rounds of each. What a request costs
// beyond the gate (HTTP, parsing, output) is bench/cpu-per-lookup.js.
// Run after `npm run build`: node bench/concurrency-gate.js [requests=1000000]
import pLimit from 'p-limit';
import { ConcurrencyGate } from '../dist/pipeline/dispatch/gate.js';

const n = Number(process.argv[2] ?? 1_000_000);
const concurrency = 16;

/** The dispatcher's way: take a slot when the gate is free, else wait to be woken by a release. */
function gate() {
  const g = new ConcurrencyGate(concurrency);
  let sent = 0;
  let done = 0;
  return new Promise((resolve) => {
    const wake = () => pump();
    const pump = () => {
      while (sent < n) {
        if (!g.free) return g.wait(wake);
        g.take();
        sent += 1;
        Promise.resolve().then(() => {
          g.release(wake);
          if (++done === n) resolve();
          else pump();
        });
      }
    };
    pump();
  });
}

/** p-limit's way: each request a function queued on the limit, as many queued as are let in flight. */
function limit() {
  const l = pLimit(concurrency);
  let sent = 0;
  let done = 0;
  return new Promise((resolve) => {
    const feed = () => {
      while (sent < n && sent - done < concurrency) {
        sent += 1;
        l(() => Promise.resolve()).then(() => {
          if (++done === n) resolve();
          else feed();
        });
      }
    };
    feed();
  });
}

const best = { 'ConcurrencyGate (ours)': Infinity, 'p-limit': Infinity };
for (let round = 0; round < 5; round++) {
  for (const [name, run] of [['ConcurrencyGate (ours)', gate], ['p-limit', limit]]) {
    const start = process.hrtime.bigint();
    await run();
    best[name] = Math.min(best[name], Number(process.hrtime.bigint() - start) / n);
  }
}
console.log(`concurrency gate, ${n.toLocaleString('en-US')} requests, ${concurrency} in flight (node ${process.version}):`);
for (const [name, ns] of Object.entries(best)) console.log(`  ${name.padEnd(24)} ${ns.toFixed(0).padStart(5)} ns per request`);
console.log(`BENCH ${JSON.stringify({ name: 'concurrency-gate', requests: n, oursNs: best['ConcurrencyGate (ours)'], pLimitNs: best['p-limit'] })}`);
