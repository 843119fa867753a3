// The progress line on stderr: redrawn in place with `\r`, throttled by the run's clock.
// No timer: the CLI (cli/run-lookups.ts) calls update() once per record written, and only those
// moments change what the line says worth redrawing, so a timer would add a handle to unref and
// nothing to see.
import type { Writable } from 'node:stream';
import type { Clock } from '../core/clock.js';
import type { RunStats } from '../core/run.js';
import { formatElapsed } from './summary.js';

export const PROGRESS_INTERVAL_MS = 100; // at most 10 renders a second
/** A run that is over sooner (one number, a short list) never flashes a bar. */
export const PROGRESS_FIRST_DRAW_MS = 500;
const BAR_WIDTH = 20;
const ERASE_LINE = '\r\x1b[K';

export interface Progress {
  start(): void;
  /** Cheap: redraws at most every PROGRESS_INTERVAL_MS. */
  update(): void;
  /** Erases the line for good. */
  stop(): void;
}

/** What the line says: bar and percent when the total is known, rows, rate, ETA, trouble. */
export function progressLine(stats: RunStats, now: number): string {
  const elapsed = Math.max(0, now - stats.startedAt);
  const done = stats.written;
  const perSecond = elapsed > 0 ? done / (elapsed / 1000) : 0;
  const parts: string[] = [];
  if (stats.total !== undefined && stats.total > 0) {
    const fraction = Math.min(1, done / stats.total);
    const filled = Math.round(fraction * BAR_WIDTH);
    parts.push(`${'█'.repeat(filled)}${'░'.repeat(BAR_WIDTH - filled)} ${done}/${stats.total} rows ${Math.floor(fraction * 100)}%`);
  } else {
    parts.push(`${done} rows`);
  }
  parts.push(`${perSecond.toFixed(1)}/s`);
  if (stats.total !== undefined && perSecond > 0 && done < stats.total) {
    parts.push(`ETA ${formatElapsed(((stats.total - done) / perSecond) * 1000)}`);
  }
  // Bulk requests carry many numbers each: how many numbers went, in how many requests.
  const numbers = stats.lookups + stats.retries;
  if (numbers > stats.requests) parts.push(`${numbers} numbers in ${stats.requests} requests`);
  if (stats.cacheHits > 0) parts.push(`${stats.cacheHits} cached`);
  if (stats.billed > 0) parts.push(`${stats.billed} billed`);
  if (stats.invalid > 0) parts.push(`${stats.invalid} invalid`);
  if (stats.failed > 0) parts.push(`${stats.failed} failed`);
  if (stats.rateLimited > 0) parts.push(`${stats.rateLimited}×429`);
  if (stats.waiting && stats.waiting.until > now) parts.push(`waiting ${Math.ceil((stats.waiting.until - now) / 1000)} s for ${stats.waiting.reason}`);
  return parts.join('  ');
}

type Terminal = Writable & { isTTY?: boolean; columns?: number };

/**
 * `open` is asked once, when the first line is due, for the stream to draw on, or undefined for no
 * bar: a run that is over sooner never asks, so it never opens stderr (a millisecond or two of a
 * one-number run's start-up).
 */
export function createProgress(open: () => Terminal | undefined, stats: RunStats, clock: Clock): Progress {
  let lastRender = -Infinity;
  let shown = false;
  let stopped = false;
  let target: Terminal | null | undefined;

  const render = () => {
    const now = clock.now();
    lastRender = now;
    if (target === undefined) target = open() ?? null;
    const stream = target;
    if (stream === null) {
      stopped = true;
      return;
    }
    // One column short of the terminal: a line that wraps cannot be redrawn with `\r`.
    const max = Math.max(10, (stream.columns ?? 80) - 1);
    stream.write(`${ERASE_LINE}${[...progressLine(stats, now)].slice(0, max).join('')}`);
    shown = true;
  };

  return {
    start() {
      lastRender = clock.now() + PROGRESS_FIRST_DRAW_MS - PROGRESS_INTERVAL_MS;
    },
    update() {
      if (!stopped && clock.now() - lastRender >= PROGRESS_INTERVAL_MS) render();
    },
    stop() {
      stopped = true;
      if (shown) target?.write(ERASE_LINE);
      shown = false;
    },
  };
}
