// Throughput of the sandbox's REST LRN endpoint over keep-alive loopback.
// Run after `npm run build`: node bench/sandbox.js [seconds]
// The sandbox runs in a child process so the load generator does not share its event loop.
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';

const CHILD = process.argv[2] === '--child';

if (CHILD) {
  const { startSandbox } = await import('../dist/sandbox/index.js');
  const sb = await startSandbox({ port: 0, limits: { lrn: 0, cnam: 0, trust: 0 } });
  process.send?.({ url: sb.url, apiKey: sb.apiKey });
  process.on('message', async (m) => {
    if (m === 'stats') process.send?.({ stats: sb.stats() });
    if (m === 'stop') {
      await sb.close();
      process.exit(0);
    }
  });
} else {
  const seconds = Number(process.argv[2] ?? 10);
  const child = fork(fileURLToPath(import.meta.url), ['--child'], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const ask = (msg) => new Promise((resolve) => { child.once('message', resolve); if (msg) child.send(msg); });
  const { url, apiKey } = await ask();
  // Many distinct numbers across real area codes, cycled by autocannon without per-request work.
  const npas = ['201', '212', '213', '312', '415', '512', '617', '702', '305', '949', '999'];
  const requests = Array.from({ length: 2000 }, (_, i) => ({
    method: 'POST',
    path: '/api/v1/lrn',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${apiKey}` },
    body: JSON.stringify({ phone_number: `1${npas[i % npas.length]}${String(2000000 + i * 3917).slice(0, 7)}`, include_enhanced_lrn: i % 4 === 0 }),
  }));
  const result = await autocannon({ url, connections: 50, pipelining: 1, duration: seconds, requests });
  const { stats } = await ask('stats');
  child.send('stop');
  const ok = result['2xx'];
  const rate = ok / (result.duration || seconds);
  console.log(`sandbox REST /api/v1/lrn over ${result.duration.toFixed(1)} s, 50 keep-alive connections:`);
  console.log(`  ${Math.round(rate).toLocaleString('en-US')} lookups/s (${ok} ok, ${result.non2xx} non-2xx, ${result.errors} errors, ${stats.billed} billed)`);
  console.log(`  latency ms: p50 ${result.latency.p50}, p97.5 ${result.latency.p97_5}, p99 ${result.latency.p99}, max ${result.latency.max}`);
  if (result.non2xx > 0 || result.errors > 0) process.exitCode = 1;
}
