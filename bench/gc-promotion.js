#!/usr/bin/env node
// What a bulk run leaves to the old generation: each client below runs the same numbers against
// the fixed-response server (bench/lib/fixed-server.js) under `node --trace-gc --trace-gc-nvp`, and
// the young collections' lines are summed: bytes a row "promoted" (moved to the old generation,
// which only the full collections sweep) and their pauses, µs a row. Rows kept alive longer than
// they are used show here first: a bare undici loop (bench/lib/bare-loop.js) is the floor, the
// library's bulk() is the pipeline without the CLI, and the CLI runs CSV in → CSV out with the
// cache off and on (an empty cache: every answer stored). --against=DIR adds another built
// checkout's CLI (--no-cache), for a before and after.
// Run after `npm run build`:
//   node bench/gc-promotion.js [rows=100000] [--against=DIR]
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { CLI, ROOT, exited, fixedServerSetting, fmt, report } from './lib/harness.js';

const rows = Number(process.argv.slice(2).find((a) => !a.startsWith('--')) ?? 100_000);
const against = process.argv.find((a) => a.startsWith('--against='))?.slice('--against='.length);

/** Runs `argv` under the GC trace; the young collections' promoted bytes and pauses, summed. */
async function traced(argv, env) {
  const child = spawn(process.execPath, ['--trace-gc', '--trace-gc-nvp', ...argv], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let promoted = 0;
  let pauseMs = 0;
  let scavenges = 0;
  let rest = '';
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk) => {
    const lines = (rest + chunk).split('\n');
    rest = lines.pop() ?? '';
    for (const line of lines) {
      if (!/\bgc=s\b/.test(line)) continue;
      scavenges += 1;
      promoted += Number(/\bpromoted=(\d+)/.exec(line)?.[1] ?? 0);
      pauseMs += Number(/\bpause=([\d.]+)/.exec(line)?.[1] ?? 0);
    }
  });
  const { code, stderr } = await exited(child);
  if (code !== 0) throw new Error(`${argv.join(' ')} ended ${code}:\n${stderr.slice(-2000)}`);
  return { promoted: promoted / rows, pauseUs: (pauseMs * 1000) / rows, scavenges };
}

const setting = await fixedServerSetting(rows);
const { csv, list, env } = setting;
try {
  const cli = (launcher, ...extra) => [launcher, 'lrn', '-i', csv, '-o', join(setting.dir, 'out.csv'), '--rate', '0', '--concurrency', '16', '--no-progress', '-q', ...extra];
  const clients = [
    ['bare undici loop', [join(ROOT, 'bench', 'lib', 'bare-loop.js'), setting.url, 'sandbox-key-0000', list, '16']],
    ['library bulk()', [join(ROOT, 'bench', 'lib', 'bulk-loop.js'), setting.url, 'sandbox-key-0000', list, '16']],
    ['CLI --no-cache', cli(CLI, '--no-cache')],
    ['CLI, cache on (empty)', cli(CLI), { NUMINTEL_CACHE_DIR: join(setting.dir, 'cache') }],
    ...(against ? [[`${against} CLI --no-cache`, cli(join(against, 'bin', 'numintel.js'), '--no-cache')]] : []),
  ];
  console.log(`GC of a bulk run: ${fmt(rows)} rows, concurrency 16, fixed-response server, young collections (node ${process.version})`);
  for (const [name, argv, extra] of clients) {
    const t = await traced(argv, { ...env, ...extra });
    console.log(`  ${name.padEnd(34)} promoted ${fmt(t.promoted).padStart(4)} bytes a row, pauses ${t.pauseUs.toFixed(2)} µs a row (${t.scavenges} collections)`);
    report('gc-promotion', { client: name, rows, promotedBytes: t.promoted, pauseUs: t.pauseUs, scavenges: t.scavenges });
  }
} finally {
  await setting.close();
}
