// --transport bulk end to end: the built CLI against the sandbox's bulk endpoints. The records are
// the ones --transport rest gives (but for the fields a bulk row does not carry), each number is
// sent once, batches are as large as asked, failed rows are retried, a spent cap cuts the last
// batch, the cache keeps cached numbers out of batches, and a server without bulk endpoints gets a
// warning and single requests.
import { afterAll, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import type { SandboxOptions } from '../../src/sandbox/options.js';
import { cleanEnv, jsonl, requireBuiltCli, runCli } from '../support/cli.js';
import { sandboxEnv } from '../support/sandbox.js';
import { tempDir, writeList } from '../support/tmp.js';
import { mixedNumbers } from '../support/numbers.js';

// Closed after the file rather than after each test: the tests run side by side.
const open: Sandbox[] = [];
afterAll(async () => {
  await Promise.all(open.splice(0).map((sb) => sb.close()));
});

// No rate limits, bulk or single, unless a test sets its own: the runs of --transport rest that the
// bulk records are compared with are then not paced, and pacing is not what this file tests.
async function sandboxWith(options: Partial<SandboxOptions> = {}) {
  requireBuiltCli();
  const sb = await startSandbox({ port: 0, limits: { lrn: 0, cnam: 0, trust: 0 }, bulkLimits: { lrn: 0, cnam: 0 }, ...options });
  open.push(sb);
  return sb;
}

function envFor(sb: Sandbox, dir: string, extra: Record<string, string> = {}) {
  return cleanEnv({ ...sandboxEnv(sb), NUMINTEL_CACHE_DIR: dir, ...extra } as Record<string, string>);
}

/** A record without what differs between two runs of the same lookups (when they were fetched). */
const stable = (r: Record<string, unknown>) => ({ ...r, fetched_at: undefined });

// Each test has its own sandboxes and files, and its runs mostly wait on the sandbox: side by side.
describe.concurrent('--transport bulk', () => {
  it('gives the records --transport rest gives, each number sent once, 1,000 a request by default', async () => {
    const sb = await sandboxWith();
    const dir = tempDir('numintel-bulk-');
    // Duplicates and an invalid number too: sent once, and never.
    const input = [...mixedNumbers(1500, 4000), ...mixedNumbers(20, 4000), '555-0100'];
    const file = writeList(dir, 'numbers.txt', input);
    const viaBulk = await runCli(['lrn', '-i', file, '--transport', 'bulk', '--no-cache', '-f', 'jsonl'], { env: envFor(sb, dir) });
    expect(viaBulk.code, viaBulk.stderr).toBe(4);
    const bulkStats = sb.stats();
    expect(bulkStats.bulk.requests.lrn).toBe(2);
    expect(bulkStats.requests.lrn).toBe(0);
    expect(Object.values(bulkStats.byNumber).every((n) => n === 1)).toBe(true);
    expect(bulkStats.billed).toBe(1500);
    expect(viaBulk.stderr).toMatch(/numbers\/s in 2 requests/);
    const single = await sandboxWith();
    const viaRest = await runCli(['lrn', '-i', file, '--no-cache', '-f', 'jsonl', '--rate', '0'], { env: envFor(single, dir) });
    expect(viaRest.code).toBe(4);
    const bulk = jsonl(viaBulk.stdout);
    expect(bulk.map((r) => r.input)).toEqual(input);
    expect(bulk.map(stable)).toEqual(jsonl(viaRest.stdout).map(stable));
    expect(bulk.at(-1)).toMatchObject({ ok: false, error: { code: 'invalid_number' } });
  });

  it.each([
    ['lrn', ['--enhanced', '--messaging']],
    ['cnam', ['--spam']],
  ] as const)('%s %s: the same CSV as rest but for the fields bulk rows lack, in both row-name styles', async (kind, opts) => {
    const dir = tempDir('numintel-bulk-csv-');
    const file = writeList(dir, 'numbers.csv', ['name,phone', ...mixedNumbers(300, 5000).map((n, i) => `person ${i},"${n}"`)]);
    // The single requests' CSV, once: the row style is the bulk endpoint's alone.
    let rest: { stdout: string } | undefined;
    for (const bulkRows of ['bulk', 'single'] as const) {
      const sb = await sandboxWith({ bulkRows });
      const bulk = await runCli([kind, '-i', file, ...opts, '--transport', 'bulk', '--batch-size', '100', '--no-cache'], { env: envFor(sb, dir) });
      expect(bulk.code, bulk.stderr).toBe(0);
      expect(sb.stats().bulk.requests[kind]).toBe(3);
      rest ??= await runCli([kind, '-i', file, ...opts, '--no-cache', '--rate', '0'], { env: envFor(sb, dir) });
      const header = bulk.stdout.split('\n')[0] as string;
      expect(header).toBe(rest.stdout.split('\n')[0]);
      // Bulk-style rows carry no messaging reference id: that column alone may be empty.
      const lacking = bulkRows === 'bulk' && kind === 'lrn' ? header.split(',').indexOf('messaging_reference_id') : -1;
      const blank = (line: string) => line.split(',').map((c, i) => (i === lacking ? '' : c)).join(',');
      expect(bulk.stdout.split('\n').map(blank)).toEqual(rest.stdout.split('\n').map(blank));
    }
  });

  it('rows the service marks failed are retried in later batches until answered, each billed once', async () => {
    const sb = await sandboxWith({ bulkFailRate: 0.3 });
    const dir = tempDir('numintel-bulk-fail-');
    const input = mixedNumbers(400, 6000);
    const r = await runCli(['cnam', '-i', writeList(dir, 'n.txt', input), '--transport', 'bulk', '--batch-size', '200', '--retries', '10', '--no-cache', '-f', 'jsonl'], { env: envFor(sb, dir) });
    expect(r.code, r.stderr).toBe(0);
    expect(jsonl(r.stdout).every((x) => x.ok === true)).toBe(true);
    const stats = sb.stats();
    expect(stats.bulk.rows.failed).toBeGreaterThan(50);
    expect(stats.bulk.requests.cnam).toBeGreaterThan(2);
    expect(stats.billed).toBe(400);
  });

  it('a server without bulk endpoints: one warning line, then single requests, every row answered', async () => {
    const sb = await sandboxWith({ bulk: false });
    const dir = tempDir('numintel-nobulk-');
    const input = mixedNumbers(120, 7000);
    const r = await runCli(['lrn', '-i', writeList(dir, 'n.txt', input), '--transport', 'bulk', '--no-cache', '-f', 'jsonl'], { env: envFor(sb, dir) });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr.match(/warning: .*no bulk endpoint/g)).toHaveLength(1);
    expect(jsonl(r.stdout).map((x) => x.input)).toEqual(input);
    expect(sb.stats().requests.lrn).toBe(120);
    expect(sb.stats().billed).toBe(120);
  });

  it('cached numbers never go in a batch; a second run sends nothing', async () => {
    const sb = await sandboxWith();
    const dir = tempDir('numintel-bulk-cache-');
    const env = envFor(sb, dir);
    const first = mixedNumbers(300, 8000);
    await runCli(['lrn', '-i', writeList(dir, 'a.txt', first), '--transport', 'bulk', '-q'], { env });
    expect(sb.stats().bulk.numbers.lrn).toBe(300);
    const both = [...first, ...mixedNumbers(200, 8300)];
    const r = await runCli(['lrn', '-i', writeList(dir, 'b.txt', both), '--transport', 'bulk', '-f', 'jsonl'], { env });
    expect(r.code, r.stderr).toBe(0);
    const stats = sb.stats();
    expect(stats.bulk.numbers.lrn).toBe(500);
    expect(Object.values(stats.byNumber).every((n) => n === 1)).toBe(true);
    expect(jsonl(r.stdout).filter((x) => x.cached === true)).toHaveLength(300);
    await runCli(['lrn', '-i', writeList(dir, 'b.txt', both), '--transport', 'bulk', '-q'], { env });
    expect(sb.stats().bulk.requests.lrn).toBe(stats.bulk.requests.lrn);
  });

  it('--max-lookups counts numbers: the last batch is cut to fit, the run stops resumably, and --resume finishes it without paying twice', async () => {
    const sb = await sandboxWith();
    const dir = tempDir('numintel-bulk-cap-');
    const env = envFor(sb, dir);
    const input = mixedNumbers(500, 9000);
    const file = writeList(dir, 'n.txt', input);
    const out = `${dir}/out.csv`;
    const capped = await runCli(['lrn', '-i', file, '--transport', 'bulk', '--batch-size', '100', '--max-lookups', '250', '--no-cache', '-o', out, '-f', 'csv'], { env });
    expect(capped.code, capped.stderr).toBe(5);
    expect(sb.stats().bulk.numbers.lrn).toBe(250);
    expect(sb.stats().bulk.requests.lrn).toBe(3);
    const resumed = await runCli(['lrn', '-i', file, '--transport', 'bulk', '--batch-size', '100', '--no-cache', '-o', out, '-f', 'csv', '--resume'], { env });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(sb.stats().billed).toBe(500);
    expect(Object.values(sb.stats().byNumber).every((n) => n === 1)).toBe(true);
    const whole = await runCli(['lrn', '-i', file, '--no-cache', '-f', 'csv', '--rate', '0'], { env });
    const { readFileSync } = await import('node:fs');
    expect(readFileSync(out, 'utf8')).toBe(whole.stdout);
  });

  it('enrich mixes bulk LRN and CNAM with single trust requests', async () => {
    const sb = await sandboxWith();
    const dir = tempDir('numintel-bulk-enrich-');
    const input = mixedNumbers(150, 9600);
    const r = await runCli(['enrich', '-i', writeList(dir, 'n.txt', input), '--lookups', 'lrn,cnam,trust', '--transport', 'bulk', '--no-cache', '-f', 'jsonl', '--rate', '0'], { env: envFor(sb, dir) });
    expect(r.code, r.stderr).toBe(0);
    const stats = sb.stats();
    expect(stats.bulk.requests.lrn).toBe(1);
    expect(stats.bulk.requests.cnam).toBe(1);
    expect(stats.requests.trust).toBe(150);
    for (const rec of jsonl(r.stdout)) expect(Object.keys(rec.results as object).sort()).toEqual(['cnam', 'lrn', 'trust']);
  });

  it("a bulk endpoint's hinted 429s hold it: every row still answered, no request sent before the hint", async () => {
    // The client paces from the rate headers and would meet no 429 of the window's own: each request
    // has an even chance of a gateway's 429, whose hint is the window's reset (seeded: the same each run).
    const sb = await sandboxWith({ bulkLimits: { lrn: 1, cnam: 1 }, rate429: 0.5 });
    const dir = tempDir('numintel-bulk-429-');
    // Three batches at one a second: the second and third each wait for a window, the refused ones for their hint.
    const input = mixedNumbers(300, 1000);
    const r = await runCli(['lrn', '-i', writeList(dir, 'n.txt', input), '--transport', 'bulk', '--batch-size', '100', '--no-cache', '-f', 'jsonl'], { env: envFor(sb, dir) });
    expect(r.code, r.stderr).toBe(0);
    expect(jsonl(r.stdout).every((x) => x.ok === true)).toBe(true);
    expect(sb.stats().faults.rate429).toBeGreaterThan(0);
    expect(sb.stats().early).toBe(0);
    expect(sb.stats().billed).toBe(300);
  }, 30_000);

  it('over HTTPS (a private CA through NODE_EXTRA_CA_CERTS), as a user reaches the service', async () => {
    const sb = await sandboxWith({ tls: true });
    const dir = tempDir('numintel-bulk-tls-');
    const input = mixedNumbers(250, 9700);
    const r = await runCli(['cnam', '-i', writeList(dir, 'n.txt', input), '--transport', 'bulk', '--batch-size', '100', '--no-cache', '-f', 'jsonl'], { env: envFor(sb, dir) });
    expect(r.code, r.stderr).toBe(0);
    expect(jsonl(r.stdout).map((x) => x.input)).toEqual(input);
    expect(sb.url).toMatch(/^https:/);
    expect(sb.stats().bulk.requests.cnam).toBe(3);
    expect(sb.stats().tlsFailures).toBe(0);
  });
});
