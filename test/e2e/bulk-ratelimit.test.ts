// 429s end to end, for each endpoint's own hint style (LRN: retry_after in the body and a delta
// reset; CNAM and trust: Retry-After and a Unix-time reset): every row ends ok, few 429s when the
// client can learn the limit from the headers, and never a request of that key and kind before
// the advertised retry time once a 429 with a hint was answered, whatever room its headers showed
// (judged from the client's own timed --verbose trace). The CLI runs in-process and the sandbox on the same virtual clock: the windows, the
// waits and the trace's times are all virtual, so a loaded machine cannot blur them, and no test
// waits out a real second.
import { describe, expect, it } from 'vitest';
import type { LookupKind } from '../../src/core/lookups.js';
import { DEFAULT_LIMITS, startSandbox } from '../../src/sandbox/index.js';
import { jsonl, readSummary } from '../support/cli.js';
import { FakeClock } from '../support/clock.js';
import { runInProcess } from '../support/world.js';
import { sandboxEnv } from '../support/sandbox.js';
import { tempDir, writeList } from '../support/tmp.js';
import { mixedNumbers } from '../support/numbers.js';

const dir = tempDir('numintel-429-e2e-');
const LIMIT = 10;
/** What every sandbox 429 advertises: Retry-After 1 (and the window's end, no later). */
const RETRY_AFTER_MS = 1000;

async function run(kind: LookupKind, rate429: number, rows: number, from: number, rate429Bare = false) {
  const clock = new FakeClock();
  const sb = await startSandbox({ port: 0, limits: { ...DEFAULT_LIMITS, [kind]: LIMIT }, rate429, rate429Bare, seed: from }, clock);
  try {
    const input = mixedNumbers(rows, from);
    const path = writeList(dir, `${kind}-${rate429}-${rate429Bare}.txt`, input);
    const r = await runInProcess([kind, '-i', path, '--rate', '100', '--retries', '10', '--verbose'], { env: sandboxEnv(sb), clock });
    return { input, r, stats: sb.stats(), key: sb.apiKey };
  } finally {
    await sb.close();
  }
}

interface Sent {
  at: number;
  line: string;
}

const clockMs = (hms: string) => {
  const [h, m, sec] = hms.split(':').map(Number) as [number, number, number];
  return ((h * 60 + m) * 60 + sec) * 1000;
};

/**
 * From the trace: every request of this kind sent after a 429 with a hint was read but before the
 * wait that 429 advertised (the sandbox's hinted 429s say Retry-After: 1, so never less than
 * RETRY_AFTER_MS); and every hinted 429 read with at least that wait for its own retry.
 */
function early(stderr: string, kind: LookupKind): { read: number; bad: { after: string; early: Sent; waitMs: number }[] } {
  const bad: { after: string; early: Sent; waitMs: number }[] = [];
  const holds: { line: string; until: number; waitMs: number }[] = [];
  for (const line of stderr.split('\n')) {
    const m = /^(\d\d:\d\d:\d\d\.\d{3}) (→ POST \S+|← 429 \S+)/.exec(line);
    if (!m?.[1] || !m[2]?.endsWith(`/api/v1/${kind}`)) continue;
    const at = clockMs(m[1]);
    if (m[2].startsWith('←')) {
      const wait = /wait=(\d+)ms/.exec(line)?.[1];
      // Only a hint-less 429 whose headers show room left (a gateway's) holds nothing but its own retry.
      const room = Number(/remaining=(\d+)/.exec(line)?.[1] ?? 0);
      if (wait === undefined && room > 0) continue;
      holds.push({ line, until: at + Number(wait ?? 0), waitMs: Number(wait ?? 0) });
      continue;
    }
    for (const h of holds) if (at < h.until) bad.push({ after: h.line, early: { at, line }, waitMs: h.waitMs });
  }
  // Every 429 must have been read with at least the advertised wait.
  for (const h of holds) if (h.waitMs < RETRY_AFTER_MS) bad.push({ after: h.line, early: { at: 0, line: 'wait shorter than Retry-After' }, waitMs: h.waitMs });
  return { read: holds.length, bad };
}

describe('under a 10/s limit with --rate 100', () => {
  it.concurrent.each(['lrn', 'cnam', 'trust'] as const)('%s: a 429 storm (spurious 429s too): all rows ok, in order, no request before the retry time', async (kind) => {
    const from = { lrn: 1000, cnam: 1100, trust: 1200 }[kind];
    const [storm, calm] = await Promise.all([run(kind, 0.3, 20, from), run(kind, 0, 30, from + 50)]);

    for (const { r, input, stats } of [storm, calm]) {
      expect(r.code, r.stderr).toBe(0);
      const recs = jsonl(r.stdout);
      expect(recs.map((x) => x.input)).toEqual(input);
      expect(recs.every((x) => x.ok === true)).toBe(true);
      expect(stats.billed).toBe(input.length);
      expect(readSummary(r.stderr).rateLimited).toBe(stats.rateLimited);
    }
    expect(storm.stats.rateLimited).toBeGreaterThan(0);
    // Every 429 the sandbox served must be found in the trace, or the check below checks nothing.
    const stormed = early(storm.r.stderr, kind);
    expect(stormed.read).toBe(storm.stats.rateLimited);
    expect(stormed.bad).toEqual([]);
    const calmed = early(calm.r.stderr, kind);
    expect(calmed.read).toBe(calm.stats.rateLimited);
    expect(calmed.bad).toEqual([]);
    expect(storm.r.stderr).not.toContain(storm.key);
    // The limit in the headers wins over --rate 100: a handful of 429s at the start at most.
    expect(calm.stats.rateLimited).toBeLessThanOrEqual(Math.ceil(calm.input.length * 0.2));
  }, 60_000);

  it.concurrent.each(['lrn', 'cnam', 'trust'] as const)('%s: hint-less spurious 429s with room left cost only their own number: all rows ok', async (kind) => {
    const from = { lrn: 1300, cnam: 1400, trust: 1500 }[kind];
    const { r, input, stats } = await run(kind, 0.3, 20, from, true);
    expect(r.code, r.stderr).toBe(0);
    expect(jsonl(r.stdout).map((x) => x.input)).toEqual(input);
    expect(stats.billed).toBe(input.length);
    expect(stats.faults.rate429).toBeGreaterThan(0);
    // Bare 429s are traced without a wait: nothing to hold the kind for.
    expect(r.stderr).toMatch(/← 429 (?!.*wait=)/);
    // The sandbox's spent-window 429s still carry hints, and those still hold the kind.
    expect(early(r.stderr, kind).bad).toEqual([]);
  }, 60_000);
});
