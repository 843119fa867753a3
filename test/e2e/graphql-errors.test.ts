// Failures over GraphQL, end to end: the same classes, exit codes, waits and retries as over REST.
// Each case runs both transports at once, each against its own sandbox with the same settings.
import { afterAll, describe, expect, it } from 'vitest';
import type { SandboxOptions } from '../../src/sandbox/index.js';
import type { CliResult } from '../support/cli.js';
import { jsonl, readSummary, timeless } from '../support/cli.js';
import { sandboxEnv } from '../support/sandbox.js';
import { FakeClock } from '../support/clock.js';
import { runInProcess } from '../support/world.js';
import { startSandbox } from '../../src/sandbox/index.js';
import { TRANSPORTS, cli, restRequests, sandbox, type Sandbox, type TransportName } from './graphql-support.js';

const opened: Sandbox[] = [];
afterAll(async () => {
  await Promise.all(opened.map((sb) => sb.close()));
});

interface Run {
  readonly out: CliResult;
  readonly sb: Sandbox;
}

/** The same command over both transports, each against a fresh sandbox configured alike. */
async function both(
  args: readonly string[],
  opts: Partial<SandboxOptions> = {},
  env: Record<string, string> = {},
): Promise<Record<TransportName, Run>> {
  const runs = await Promise.all(
    TRANSPORTS.map(async (t) => {
      const sb = await sandbox(opts);
      opened.push(sb);
      const out = await cli([...args, '--transport', t], { env: sandboxEnv(sb, env) });
      return [t, { out, sb }] as const;
    }),
  );
  const pair = Object.fromEntries(runs) as Record<TransportName, Run>;
  // Whatever happened, each run used only its own transport's endpoint.
  expect(pair.graphql.sb.stats().requests).toMatchObject({ lrn: 0, cnam: 0, trust: 0 });
  expect(pair.rest.sb.stats().requests.graphql).toBe(0);
  return pair;
}

/** `count` distinct valid numbers. */
const numbers = (count: number, from = 12015550100) => Array.from({ length: count }, (_, i) => String(from + i));

describe.concurrent('the service refuses the run: exit 3', () => {
  it('a wrong API key stops the run with exit 3, over GraphQL as over REST', async () => {
    const wrong = 'not-the-sandbox-key-42';
    const { rest, graphql } = await both(['lrn', '-f', 'jsonl', ...numbers(3)], {}, { NUMINTEL_API_KEY: wrong });
    for (const { out, sb } of [rest, graphql]) {
      expect(out.code).toBe(3);
      expect(out.stderr).toMatch(/refused the API key \(HTTP 401\b.*the run stopped/);
      expect(out.stderr).not.toContain(wrong);
      expect(sb.stats().unauthorized).toBeGreaterThan(0);
      expect(sb.stats().billed).toBe(0);
    }
    expect(graphql.sb.stats().requests.graphql).toBeGreaterThan(0);
  });

  it('a used-up quota stops the run with exit 3 and keeps the finished rows', async () => {
    const { rest, graphql } = await both(['lrn', '-f', 'jsonl', '--concurrency', '1', ...numbers(8)], { quota: 3 });
    for (const { out, sb } of [rest, graphql]) {
      expect(out.code).toBe(3);
      expect(out.stderr).toMatch(/payment required \(HTTP 402\b.*the run stopped/);
      expect(sb.stats().paymentRequired).toBeGreaterThan(0);
      expect(sb.stats().billed).toBe(3);
      expect(jsonl(out.stdout).map((r) => r.ok)).toEqual([true, true, true]);
    }
    expect(timeless(graphql.out.stdout)).toBe(timeless(rest.out.stdout));
  });
});

describe.concurrent('a number the service refuses (sent with --no-validate)', () => {
  const kinds = [['lrn'], ['cnam', '--spam'], ['trust']] as const;
  it.each(kinds.map((k) => [k.join(' '), k] as const))('%s: the same invalid_number record; only the quoted words name the parameter', async (_name, kind) => {
    const { rest, graphql } = await both([...kind, '--no-validate', '-f', 'jsonl', '12015550123', '123', '1-201-555-0124']);
    expect(rest.out.code).toBe(4);
    expect(graphql.out.code).toBe(4);
    const [r, g] = [jsonl(timeless(rest.out.stdout)), jsonl(timeless(graphql.out.stdout))];
    expect(g.map((x) => x.ok)).toEqual([true, false, true]);
    // Valid rows are identical; the refused one differs only in the service's own message and in
    // the HTTP status that carried it (400 for REST, 200 for a GraphQL `errors` answer).
    expect(g[0]).toEqual(r[0]);
    expect(g[2]).toEqual(r[2]);
    const strip = (rec: Record<string, unknown> | undefined) => ({ ...rec, error: { code: (rec?.error as { code: string } | undefined)?.code } });
    expect(strip(g[1])).toEqual(strip(r[1]));
    expect(strip(g[1])).toMatchObject({ input: '123', number: '123', ok: false, result: null, error: { code: 'invalid_number' } });
    expect((r[1]?.error as { message: string } | undefined)?.message).toMatch(/^Invalid phone number format: phone_number must be /);
    expect((g[1]?.error as { message: string } | undefined)?.message).toMatch(/^Invalid phone number format: phoneNumber must be /);
    for (const { sb } of [rest, graphql]) {
      expect(sb.stats().invalid).toBe(1);
      expect(sb.stats().billed).toBe(2);
    }
  });
});

describe.concurrent('rate limits and transient faults: waited out and retried', () => {
  it('a sandbox limit of 5/s with --rate 50: 429s served, every row ok', async () => {
    // The client adapts to the X-RateLimit headers of the first answer, so that answer comes late
    // (300 ms) and the requests meet the 5/s window as fast as --rate allows, on a virtual clock
    // shared with the sandbox. That alone proved timing-bound (a loaded CI saw no 429 twice), so
    // the sandbox also answers some requests 429 itself, from a seeded draw: with seed 10 and 20%,
    // the 2nd, 22nd and 23rd requests it sees, whatever the timing (at least one 429, at most
    // three, no row out of retries).
    const run = async (transport: TransportName) => {
      const clock = new FakeClock();
      const sb = await startSandbox({ port: 0, limits: { lrn: 5, cnam: 0, trust: 0 }, latencyMs: 300, rate429: 0.2, seed: 10 }, clock);
      opened.push(sb);
      const out = await runInProcess(['lrn', '-f', 'jsonl', '--rate', '50', ...numbers(16), '--transport', transport], { env: sandboxEnv(sb), clock });
      return { out, sb };
    };
    const [rest, graphql] = await Promise.all([run('rest'), run('graphql')]);
    for (const { out, sb } of [rest, graphql]) {
      const stats = sb.stats();
      expect(out.code).toBe(0);
      expect(jsonl(out.stdout).every((r) => r.ok === true)).toBe(true);
      expect(stats.rateLimited).toBeGreaterThan(0);
      expect(stats.billed).toBe(16);
      const summary = readSummary(out.stderr);
      expect(summary.rateLimited).toBe(stats.rateLimited);
      expect(summary.failed).toBe(0);
      // It waited for the next window instead of burning its retries inside the full one: no more
      // 429s in all than there are numbers (16), and no retry for anything but a 429.
      expect(stats.rateLimited).toBeLessThanOrEqual(16);
      expect(summary.retries).toBe(stats.rateLimited);
    }
    expect(timeless(graphql.out.stdout)).toBe(timeless(rest.out.stdout));
  });

  it('spurious 429s (rate429 0.3): every row ok, retries counted in the summary', async () => {
    const { rest, graphql } = await both(['cnam', '--spam', '-f', 'jsonl', '--retries', '12', ...numbers(10)], { rate429: 0.3, seed: 7 });
    for (const { out, sb } of [rest, graphql]) {
      const stats = sb.stats();
      expect(out.code).toBe(0);
      expect(jsonl(out.stdout).every((r) => r.ok === true)).toBe(true);
      expect(stats.faults.rate429).toBeGreaterThan(0);
      const summary = readSummary(out.stderr);
      expect(summary.rateLimited).toBe(stats.rateLimited);
      expect(summary.retries).toBeGreaterThanOrEqual(stats.faults.rate429);
      expect(stats.billed).toBe(10);
    }
    expect(timeless(graphql.out.stdout)).toBe(timeless(rest.out.stdout));
  });

  it('transient server errors (failRate 0.3) are retried until every row is ok', async () => {
    const { rest, graphql } = await both(['trust', '-f', 'jsonl', '--retries', '8', ...numbers(10)], { failRate: 0.3, seed: 3 });
    for (const { out, sb } of [rest, graphql]) {
      const stats = sb.stats();
      expect(out.code).toBe(0);
      expect(jsonl(out.stdout).every((r) => r.ok === true)).toBe(true);
      expect(stats.faults.error).toBeGreaterThan(0);
      expect(readSummary(out.stderr).retries).toBe(stats.faults.error);
      expect(stats.billed).toBe(10);
    }
    expect(timeless(graphql.out.stdout)).toBe(timeless(rest.out.stdout));
    expect(graphql.sb.stats().requests.graphql).toBe(10 + graphql.sb.stats().faults.error);
    expect(restRequests(rest.sb)).toBe(10 + rest.sb.stats().faults.error);
  });
});
