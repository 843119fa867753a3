import { describe, expect, it } from 'vitest';
import { newRunStats } from '../../src/core/run.js';
import { PROGRESS_FIRST_DRAW_MS, PROGRESS_INTERVAL_MS, createProgress, progressLine } from '../../src/output/progress.js';
import { fakeClock } from '../api/fixtures.js';
import { Collect } from './helpers.js';

const terminal = (columns = 100) => Object.assign(new Collect(), { isTTY: true, columns });

describe('progress', () => {
  it('asks for the stream once and draws nothing when none is given (not enabled)', () => {
    const clock = fakeClock();
    const stats = newRunStats(clock.now());
    let asked = 0;
    const p = createProgress(() => (asked++, undefined), stats, clock);
    p.start();
    for (let i = 0; i < 10; i++) {
      stats.written++;
      clock.advance(500);
      p.update();
    }
    p.stop();
    expect(asked).toBe(1);
  });

  it('never asks for the stream when the run is over before the first line is due', () => {
    const clock = fakeClock();
    const stats = newRunStats(clock.now());
    let asked = 0;
    const p = createProgress(() => (asked++, terminal()), stats, clock);
    p.start();
    clock.advance(PROGRESS_FIRST_DRAW_MS - 1);
    p.update();
    p.stop();
    expect(asked).toBe(0);
  });

  it('redraws one line with \\r, at most once per interval of the clock', () => {
    const stream = terminal();
    const clock = fakeClock();
    const stats = newRunStats(clock.now());
    stats.total = 200;
    const p = createProgress(() => stream, stats, clock);
    p.start();
    expect(stream.chunks).toHaveLength(0); // a run over within PROGRESS_FIRST_DRAW_MS never shows a bar
    for (let i = 0; i < 100; i++) {
      stats.written++;
      clock.advance(10); // 100 updates over one second
      p.update();
    }
    // Nothing before the first-draw delay, then one render per interval of the fake clock.
    expect(stream.chunks).toHaveLength(1 + (1000 - PROGRESS_FIRST_DRAW_MS) / PROGRESS_INTERVAL_MS);
    for (const c of stream.chunks) {
      expect(c.startsWith('\r\x1b[K')).toBe(true);
      expect(c).not.toContain('\n');
    }
    const last = stream.chunks.at(-1)!;
    expect(last).toContain('100/200 rows 50%');
    expect(last).toContain('100.0/s');
    expect(last).toContain('ETA 1.0s');
    p.stop();
    expect(stream.chunks.at(-1)).toBe('\r\x1b[K');
    clock.advance(1000);
    p.update();
    expect(stream.chunks.at(-1)).toBe('\r\x1b[K'); // nothing after stop
  });

  it('never draws wider than the terminal', () => {
    const stream = terminal(30);
    const clock = fakeClock();
    const stats = newRunStats(clock.now());
    Object.assign(stats, { total: 1_000_000, written: 12_345, invalid: 3, failed: 2, rateLimited: 7 });
    const p = createProgress(() => stream, stats, clock);
    p.start();
    clock.advance(PROGRESS_FIRST_DRAW_MS);
    p.update();
    expect([...stream.chunks[0]!.replace('\r\x1b[K', '')].length).toBeLessThanOrEqual(29);
  });
});

describe('progressLine', () => {
  it('shows a bar, rows, percent, rate, ETA and trouble when the total is known', () => {
    const stats = newRunStats(0);
    Object.assign(stats, { total: 1000, written: 250, cacheHits: 40, billed: 200, invalid: 3, failed: 2, rateLimited: 7 });
    expect(progressLine(stats, 5000)).toBe(`${'█'.repeat(5)}${'░'.repeat(15)} 250/1000 rows 25%  50.0/s  ETA 15s  40 cached  200 billed  3 invalid  2 failed  7×429`);
  });

  it('shows rows and rate only when the total is unknown and nothing went wrong', () => {
    const stats = newRunStats(0);
    stats.written = 42;
    expect(progressLine(stats, 2000)).toBe('42 rows  21.0/s');
    expect(progressLine(newRunStats(0), 0)).toBe('0 rows  0.0/s');
  });
});

describe('progress: a long wait', () => {
  it('says what it waits for and how long, until the wait is over', () => {
    const stats = newRunStats(1000);
    stats.written = 5;
    stats.waiting = { until: 1000 + 42_000, reason: 'the rate limit' };
    expect(progressLine(stats, 1000)).toContain('waiting 42 s for the rate limit');
    expect(progressLine(stats, 1000 + 42_000)).not.toContain('waiting');
  });
});
