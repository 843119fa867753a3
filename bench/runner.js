// Throughput of the runner alone: an in-memory transport that answers at once, rate 0, so what is
// measured is validation, dedup, queueing and reordering. Run `npm run build` first.
//   node bench/runner.js [rows=200000] [concurrency=16] [no-validate]
import { systemClock } from '../dist/core/clock.js';
import { LRN } from '../dist/core/lookups.js';
import { newRunStats } from '../dist/core/run.js';
import { runPipeline } from '../dist/pipeline/runner.js';
import { newRunDedup } from '../dist/pipeline/dedup/run-dedup.js';

const rows = Number(process.argv[2] ?? 200_000);
const concurrency = Number(process.argv[3] ?? 16);

const transport = {
  name: 'rest',
  send: (_d, number) => Promise.resolve({ kind: 'ok', result: { lrn: number, lrn_activated_at: '2021-09-01T00:00:00+00:00' } }),
  close: async () => {},
};

async function* source() {
  for (let index = 0; index < rows; index++) {
    // Every tenth number repeats an earlier one, as real lists do.
    const n = index % 10 === 9 ? index - 5 : index;
    yield { index, input: `1201${String(2_000_000 + n)}` };
  }
}

const stats = newRunStats(Date.now());
const plan = { mode: 'single', lookups: [LRN], options: {}, validate: process.argv[4] !== 'no-validate' };
const started = performance.now();
const handle = runPipeline(source(), plan, { transport, clock: systemClock, stats, dedup: newRunDedup, concurrency, rates: { lrn: 0 } });
let written = 0;
for await (const _ of handle.records) written++;
const seconds = (performance.now() - started) / 1000;
console.log(
  `${written} records in ${seconds.toFixed(2)} s = ${Math.round(written / seconds)} records/s ` +
    `(lookups ${stats.lookups}, duplicates ${stats.duplicates}, rss ${Math.round(process.memoryUsage().rss / 1e6)} MB)`,
);
