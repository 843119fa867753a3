// The closing summary on stderr. Its wording is part of the contract (README and tests quote it):
//   rows: 1000, lookups sent: 950, duplicates saved: 40, cache hits: 0
//   invalid: 10, failed: 2, retries: 5, 429s: 3, lookups billed: 948
//   elapsed: 4.2s, rate: 227.4 requests/s
// It counts what the service saw: "lookups sent" are the first tries of requests that went out,
// "retries" the requests sent again, and the rate is both together over the elapsed time. "Cache
// hits" were answered from the persistent cache (no request), "lookups billed" are the answers the
// service gave (what it charges for). Bulk requests (--transport bulk) carry many numbers each: the
// rate line then adds the numbers per second and the requests they took.
import type { RunStats } from '../core/run.js';

/** `850ms` is `0.9s`; under 10 s one decimal, then whole seconds, `3m 05s`, `1h 02m 03s`. */
export function formatElapsed(ms: number): string {
  const safe = Math.max(0, ms);
  const tenths = Math.round(safe / 100);
  if (tenths < 100) return `${(tenths / 10).toFixed(1)}s`;
  const total = Math.round(safe / 1000);
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = total % 60;
  const pad = (n: number) => String(n).padStart(2, '0');
  if (h > 0) return `${h}h ${pad(m)}m ${pad(s)}s`;
  if (m > 0) return `${m}m ${pad(s)}s`;
  return `${s}s`;
}

/** Count per second over `ms`, one decimal; `n/a` when no time has passed. */
export function formatRate(count: number, ms: number): string {
  if (ms <= 0) return 'n/a';
  return (count / (ms / 1000)).toFixed(1);
}

/** The summary's lines, without a final newline. `rows` counts rows read; written ones when fewer. */
export function formatSummary(stats: RunStats, now: number): string {
  const elapsed = now - stats.startedAt;
  // Numbers sent, first tries and retries: more than the requests when bulk requests carried several.
  const batched = stats.lookups + stats.retries;
  const rows = stats.written < stats.rows ? `${stats.rows} (${stats.written} written)` : `${stats.rows}`;
  return [
    `rows: ${rows}, lookups sent: ${stats.lookups}, duplicates saved: ${stats.duplicates}, cache hits: ${stats.cacheHits}`,
    `invalid: ${stats.invalid}, failed: ${stats.failed}, retries: ${stats.retries}, 429s: ${stats.rateLimited}, lookups billed: ${stats.billed}`,
    `elapsed: ${formatElapsed(elapsed)}, rate: ${formatRate(stats.requests, elapsed)} requests/s${batched > stats.requests ? `, ${formatRate(batched, elapsed)} numbers/s in ${stats.requests} requests` : ''}`,
  ].join('\n');
}
