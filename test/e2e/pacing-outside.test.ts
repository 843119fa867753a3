// Pacing against a service that is not numintel's sandbox (test/support/rate-server.ts: its own
// fixed-window counter, every header style the service or a proxy may use): the real CLI, built,
// `--no-cache`, at its defaults (no --rate). The hard properties are asserted strictly: with the
// limit advertised, no server window sees more requests than its limit and no request is refused.
// The share of the limit used is measured over the full windows inside the run (the first and
// last are start-up and tail). A slow file (real windows, real seconds): ~15 s, its scenarios
// run side by side in three groups.
import { describe, expect, it } from 'vitest';
import { readSummary, runCli } from '../support/cli.js';
import { numbersIn } from '../support/numbers.js';
import { startRateServer, windowStats, type HeaderStyle, type RateServerOptions, type RestKind, type WindowStats, type Arrival } from '../support/rate-server.js';
import { tempDir, writeList } from '../support/tmp.js';

const dir = tempDir('numintel-pacing-outside-');
let files = 0;

interface Outcome {
  stats: WindowStats;
  code: number | null;
  stderr: string;
  rows: number;
  arrivals: readonly Arrival[];
}

async function paced(args: string[], count: number, server: RateServerOptions, npa = '201'): Promise<Outcome> {
  const sv = await startRateServer(server);
  try {
    const input = writeList(dir, `n${(files += 1)}.txt`, numbersIn(npa, count));
    const r = await runCli([...args, '-i', input, '--no-cache', '-f', 'jsonl'], {
      env: { NUMINTEL_BASE_URL: sv.url, NUMINTEL_API_KEY: sv.apiKey },
      timeoutMs: 25_000,
    });
    const stats = windowStats(sv.arrivals, server.limit);
    // The table the report quotes: one line per scenario.
    console.log(`${args.join(' ')} ${server.style} limit ${server.limit}/${server.windowMs} ms: ${JSON.stringify(stats)}`);
    return { stats, arrivals: sv.arrivals, code: r.code, stderr: r.stderr, rows: r.stdout.split('\n').filter((l) => l.includes('"ok":true')).length };
  } finally {
    await sv.close();
  }
}

/**
 * With the limit advertised the client fills each window: the target is 0.99 of the limit, and
 * alone these runs measure 0.99-1.0 in the full windows. Only a floor is asserted here: the
 * targets are bench/pacing.js's and the virtual-time tests' (test/pipeline/dispatch/pacer.test.ts),
 * and each header style's reading is unit-tested (test/api/rate-headers.test.ts). On two shared
 * cores, with this file's CLIs side by side and CI running the other suites, a client stalled near
 * a 1 s window's end sends its last requests in the next one: 0.92 measured with this file alone,
 * 0.79 and 0.51 in loaded CI runs. The floor catches a client that stopped pacing up (stuck on a
 * Retry-After, a limit read as a fraction of itself); overruns and 429s are asserted strictly.
 */
const FILLED = 0.3;

describe.concurrent('advertised 1 s windows, one header style each', () => {
  const cases: [RestKind, HeaderStyle, number][] = [
    ['lrn', 'x-delta', 50],
    ['cnam', 'x-unix', 40],
    ['trust', 'draft', 40],
    ['lrn', 'structured', 50],
    ['cnam', 'latest', 40],
    // Remaining and Reset only: the limit is learned from the room at a window's start.
    ['lrn', 'x-hidden', 50],
  ];
  it.each(cases)('%s under %s headers, %i/s: no window overrun, no 429, the limit filled', async (kind, style, limit) => {
    const o = await paced([kind], limit * 4, { limit, windowMs: 1000, style });
    expect(o.code, o.stderr).toBe(0);
    expect(o.rows).toBe(limit * 4);
    expect(o.stats.maxPerWindow).toBeLessThanOrEqual(limit);
    expect(o.stats.refused).toBe(0);
    expect(o.stats.fullWindows).toBeGreaterThanOrEqual(2);
    // From the second full window on: a reset in whole seconds from now cannot place a 1 s
    // window's end until one has rolled over (README, Pacing), and the first full window pays for
    // it: measured 8 of 40 under the whole suite's load, 40 of 40 every window after.
    expect(o.stats.steady).toBeGreaterThanOrEqual(FILLED);
  }, 30_000);
});

describe.concurrent('longer windows, a limit above the documented one', () => {
  it('CNAM at 120/s (documented 50/s): the pace rises to the advertised limit', async () => {
    const o = await paced(['cnam'], 600, { limit: 120, windowMs: 1000, style: 'x-unix' });
    expect(o.code, o.stderr).toBe(0);
    expect(o.stats.maxPerWindow).toBeLessThanOrEqual(120);
    expect(o.stats.refused).toBe(0);
    expect(o.stats.steady).toBeGreaterThanOrEqual(FILLED);
  }, 30_000);

  // Windows that do not start on a whole second: the reset (whole seconds) puts the end up to a
  // second late, which is waited out; the next window is then spread over 90% of its length.
  it.each(['latest', 'x-unix'] as const)('a 60 s window under %s headers, joined nearly spent 1.5 s before its end', async (style) => {
    const limit = 6000;
    const left = 40;
    // The window is placed by the client's first request, however long the CLI took to start.
    const o = await paced(['lrn'], 400, { limit, windowMs: 60_000, style, firstRequestBeforeEndMs: 1500, spent: limit - left });
    expect(o.code, o.stderr).toBe(0);
    expect(o.stats.refused).toBe(0);
    expect(o.stats.perWindow[0]).toBeLessThanOrEqual(left);
    // The next window, from the client's first request in it to its last, against the limit's
    // average (L / 60 s): the spread puts it at 1/0.9 = 1.11.
    const next = o.arrivals.filter((a) => a.window === o.arrivals[0]!.window + 1);
    const from = o.arrivals[0]!.at + 1500;
    const lateMs = next[0]!.at - from;
    const pace = (next.length - 1) / ((next.at(-1)!.at - next[0]!.at) / 1000) / (limit / 60);
    console.log(`60 s ${style}: next window's pace ${pace.toFixed(3)} of L/w, its first request ${lateMs} ms after it opened`);
    expect(pace).toBeGreaterThanOrEqual(FILLED);
    expect(pace).toBeLessThanOrEqual(1.2);
    // A second for the whole-second reset, half a second for a loaded machine.
    expect(lateMs).toBeLessThanOrEqual(1500);
  }, 30_000);

  it('a window already spent when the run starts (Retry-After as an HTTP date): only the first wave is refused', async () => {
    // Windows on whole seconds, as the HTTP date and the reset in Unix seconds tell them; the one the
    // first request lands in is spent.
    const o = await paced(['cnam'], 120, { limit: 60, windowMs: 1000, style: 'x-unix', retryAfter: 'date', spent: 60 }, '973');
    expect(o.code, o.stderr).toBe(0);
    expect(o.rows).toBe(120);
    // Before the first answer the client knows nothing: at most its --concurrency (16) go out.
    const refused = o.arrivals.filter((a) => a.status === 429);
    expect(refused.length).toBeGreaterThan(0);
    expect(refused.length).toBeLessThanOrEqual(16);
    expect(new Set(refused.map((a) => a.window)).size).toBeLessThanOrEqual(1);
    expect(o.stats.maxPerWindow).toBeLessThanOrEqual(60);
  }, 30_000);
});

describe.concurrent('no rate header, a budget shared by every lookup', () => {
  /**
   * With no header the client learns only from 429s: its bucket starts at the documented 200/s,
   * halves on a 429 (once a second), then climbs 10/s per calm second; every 429 also holds the
   * kind for its Retry-After. Measured: 2-3% 429s, 0.73-0.82 of the limit alone; 6.5% once in a
   * loaded CI run. Asserted: bounds a client that ignored 429s or never climbed back would break.
   */
  it.each(['seconds', 'date'] as const)('LRN under a hidden 50/s limit, Retry-After in %s: every row ok, few 429s', async (retryAfter) => {
    const o = await paced(['lrn'], 300, { limit: 50, windowMs: 1000, style: 'none', retryAfter });
    expect(o.code, o.stderr).toBe(0);
    expect(o.rows).toBe(300);
    expect(readSummary(o.stderr).rateLimited).toBe(o.stats.refused);
    expect(o.stats.refused / o.stats.requests).toBeLessThanOrEqual(0.15);
    expect(o.stats.fraction).toBeGreaterThanOrEqual(0.4);
  }, 30_000);

  it('LRN, CNAM and trust on one 60/s budget (enrich): no overrun, no 429, the limit filled', async () => {
    const o = await paced(['enrich', '--lookups', 'lrn,cnam,trust'], 100, { limit: 60, windowMs: 1000, style: 'x-delta', shared: true });
    expect(o.code, o.stderr).toBe(0);
    expect(o.stats.maxPerWindow).toBeLessThanOrEqual(60);
    expect(o.stats.refused).toBe(0);
    expect(o.stats.steady).toBeGreaterThanOrEqual(FILLED);
  }, 30_000);

  it('LRN, CNAM and trust on one 60/s budget under the latest IETF fields', async () => {
    const o = await paced(['enrich', '--lookups', 'lrn,cnam,trust'], 100, { limit: 60, windowMs: 1000, style: 'latest', shared: true }, '973');
    expect(o.code, o.stderr).toBe(0);
    expect(o.stats.maxPerWindow).toBeLessThanOrEqual(60);
    expect(o.stats.refused).toBe(0);
    expect(o.stats.steady).toBeGreaterThanOrEqual(FILLED);
  }, 30_000);

  it('two processes on one key (x-delta, 60/s): every row answered, rarely a 429', async () => {
    const sv = await startRateServer({ limit: 60, windowMs: 1000, style: 'x-delta' });
    try {
      const env = { NUMINTEL_BASE_URL: sv.url, NUMINTEL_API_KEY: sv.apiKey };
      const runs = await Promise.all(
        ['201', '973'].map((npa) => runCli(['lrn', '-i', writeList(dir, `two-${npa}.txt`, numbersIn(npa, 150)), '--no-cache'], { env, timeoutMs: 25_000 })),
      );
      for (const r of runs) expect(r.code, r.stderr).toBe(0);
      for (const r of runs) expect(r.stdout.split('\n').filter((l) => l.includes('"ok":true'))).toHaveLength(150);
      const stats = windowStats(sv.arrivals, 60);
      const first = sv.arrivals[0]!.window;
      const refusedIn = sv.arrivals.filter((a) => a.status === 429).map((a) => a.window - first);
      console.log(`two processes x-delta limit 60/1000 ms: ${JSON.stringify(stats)}, 429s in windows ${JSON.stringify(refusedIn)}`);
      // Neither sees the other's requests in flight, and a stall of the server or of one client
      // (this machine's load) leaves many in flight: then both spend the same room, and each 429
      // holds its process for the Retry-After. Measured over ten runs: no 429 in six, 1-2 in
      // three, 27 of 327 (8%) in one, 10.4% once in a loaded CI run; on virtual time, with no
      // stall, none (pacer.test.ts). Two clients that did not read the shared room would each
      // send the whole limit and have up to 16 each refused at every window's end (a third or
      // more): only such a storm fails here.
      expect(stats.refused / stats.requests).toBeLessThanOrEqual(0.2);
    } finally {
      await sv.close();
    }
  }, 30_000);
});
