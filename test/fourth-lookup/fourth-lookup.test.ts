// The proof that a lookup is one descriptor (line-type.ts) plus its sandbox data (line-type-data.ts):
// registered here, the fourth lookup is served by the library over REST and GraphQL, the sandbox's
// REST route and GraphQL schema, the sandbox command's --limit, the CLI's own command with its CSV
// columns, enrich, the cache and the price settings, with no other source edit.
import './line-type.js';
import './line-type-data.js';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, type TypedLookupRecord } from '../../src/index.js';
import { LOOKUP_KINDS } from '../../src/core/lookups.js';
import { systemClock } from '../../src/core/clock.js';
import { sandboxCommand } from '../../src/cli/sandbox-command.js';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { runInProcess } from '../support/world.js';
import type { LineTypeResult } from './line-type.js';

const NUMBERS = ['12015550123', '(212) 555-0147', '8005550199'];
const post = (url: string, path: string, body: unknown, key = 'sandbox-key-0000') =>
  fetch(`${url}${path}`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });

let sb: Sandbox;
let cacheDir: string;
beforeAll(async () => {
  sb = await startSandbox({ port: 0 });
  cacheDir = mkdtempSync(join(tmpdir(), 'numintel-fourth-'));
});
afterAll(async () => {
  await sb.close();
  rmSync(cacheDir, { recursive: true, force: true });
});

describe('a fourth lookup, registered from one descriptor and one sandbox data entry', () => {
  it('is in the registry after the built-in three', () => {
    expect(LOOKUP_KINDS).toEqual(['lrn', 'cnam', 'trust', 'line_type']);
  });

  it('the sandbox serves its REST route: its envelope, number rule, rate limit and reset style, its stats', async () => {
    const before = sb.stats();
    const ok = await post(sb.url, '/api/v1/line-type', { phone_number: '12015550123' });
    expect(ok.status).toBe(200);
    expect(ok.headers.get('x-ratelimit-limit')).toBe('30');
    // rateReset 'seconds': seconds to wait, not a Unix time.
    expect(Number(ok.headers.get('x-ratelimit-reset'))).toBeLessThanOrEqual(1);
    const body = (await ok.json()) as { success: boolean; data: LineTypeResult };
    expect(body.success).toBe(true);
    expect(Object.keys(body.data)).toEqual(['phone_number', 'line_type', 'is_mobile', 'carrier_name']);
    expect(body.data.phone_number).toBe('12015550123');
    expect(['mobile', 'landline', 'voip', 'toll-free']).toContain(body.data.line_type);

    const bad = await post(sb.url, '/api/v1/line-type', { phone_number: '555' });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toEqual({ success: false, error: 'Invalid phone number format: phone_number must be 10 digits, or 11 digits starting with 1' });

    const after = sb.stats();
    expect(after.requests.line_type).toBe((before.requests.line_type ?? 0) + 2);
    expect(after.lookups.line_type).toBe((before.lookups.line_type ?? 0) + 1);
    expect(after.byNumber['line_type:12015550123']).toBeGreaterThanOrEqual(1);
  });

  it('the sandbox serves it in its GraphQL schema, and agrees with its LRN enhanced data', async () => {
    const res = await post(sb.url, '/graphql', {
      query: '{ t: __type(name: "LineTypeResult") { fields { name } } a: lookupLineType(phoneNumber: "12015550123") { phoneNumber lineType isMobile carrierName } l: lookupLrn(phoneNumber: "12015550123", includeEnhancedLrn: true) { enhanced_lrn_data { carrier carrier_type } } }',
    });
    expect(res.status).toBe(200);
    const { data } = (await res.json()) as { data: { t: { fields: { name: string }[] }; a: Record<string, unknown>; l: { enhanced_lrn_data: { carrier: string; carrier_type: string } } } };
    expect(data.t.fields.map((f) => f.name)).toEqual(['phoneNumber', 'lineType', 'isMobile', 'carrierName']);
    expect(data.a.phoneNumber).toBe('12015550123');
    expect(data.a.carrierName).toBe(data.l.enhanced_lrn_data.carrier);
    expect(data.a.isMobile).toBe(data.l.enhanced_lrn_data.carrier_type === 'WIRELESS');
  });

  it('the library looks it up, one and in bulk, over REST and GraphQL alike', async () => {
    const byTransport: TypedLookupRecord<'line_type'>[][] = [];
    for (const transport of ['rest', 'graphql'] as const) {
      const client = createClient({ baseUrl: sb.url, apiKey: sb.apiKey, transport });
      try {
        const one = await client.lookup('line_type', '(201) 555-0123');
        expect(one).toMatchObject({ lookup: 'line_type', number: '12015550123', ok: true, error: null });
        // Typed by the registry of result types, as the built-in lookups are.
        const lineType: string | undefined = one.result?.line_type;
        expect(lineType).toBeTypeOf('string');
        const records: TypedLookupRecord<'line_type'>[] = [];
        for await (const r of client.bulk('line_type', [...NUMBERS, 'not a number'])) records.push(r);
        expect(records.map((r) => [r.number, r.ok, r.error?.code ?? null])).toEqual([
          ['12015550123', true, null],
          ['12125550147', true, null],
          ['18005550199', true, null],
          [null, false, 'invalid_number'],
        ]);
        expect(records[2]?.result?.line_type).toBe('toll-free');
        byTransport.push(records);
      } finally {
        await client.close();
      }
    }
    expect(byTransport[1]?.map((r) => r.result)).toEqual(byTransport[0]?.map((r) => r.result));
  });

  it('the library refuses a number the sandbox refuses (validation off), in its envelope', async () => {
    const client = createClient({ baseUrl: sb.url, apiKey: sb.apiKey });
    try {
      const r = await client.lookup('line_type', '555', { validate: false });
      expect(r).toMatchObject({ ok: false, error: { code: 'invalid_number' } });
      expect(r.error?.message).toContain('must be 10 digits');
    } finally {
      await client.close();
    }
  });

  const env = () => ({ NUMINTEL_API_KEY: sb.apiKey, NUMINTEL_BASE_URL: sb.url, NUMINTEL_CACHE_DIR: cacheDir });

  it('the CLI has its command, with its description, writing its CSV columns; a second run comes from the cache', async () => {
    const help = await runInProcess(['line_type', '--help']);
    expect(help.stdout).toContain('Looks up whether each number is a mobile, landline, VoIP or toll-free line');
    const billed = () => sb.stats().lookups.line_type ?? 0;

    const first = await runInProcess(['line_type', ...NUMBERS, '-f', 'csv', '-q'], { env: env() });
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    const lines = first.stdout.trim().split('\n');
    expect(lines[0]).toBe('input,number,phone_number,line_type,is_mobile,carrier_name,error');
    expect(lines).toHaveLength(4);
    expect(lines[3]).toMatch(/^8005550199,18005550199,18005550199,toll-free,false,/);

    const spent = billed();
    const again = await runInProcess(['line_type', ...NUMBERS, '-f', 'csv', '-q'], { env: env() });
    expect(again.stdout).toBe(first.stdout);
    expect(billed()).toBe(spent);
    const stats = await runInProcess(['cache', 'stats', '-f', 'json'], { env: env() });
    expect(JSON.parse(stats.stdout).lookups.line_type).toMatchObject({ entries: 3, fresh: 3, max_age_ms: 30 * 86_400_000 });
  });

  it('enrich --lookups lrn,line_type runs both, each with its own prefixed columns', async () => {
    const r = await runInProcess(['enrich', '--lookups', 'lrn,line_type', '-f', 'csv', '-q', '--no-cache'], { env: env(), stdin: `${NUMBERS.join('\n')}\n` });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const [header, ...rows] = r.stdout.trim().split('\n');
    expect(header).toBe('input,number,lrn_lrn,lrn_lrn_activated_at,lrn_error,line_type_phone_number,line_type_line_type,line_type_is_mobile,line_type_carrier_name,line_type_error');
    expect(rows).toHaveLength(3);
    const jsonl = await runInProcess(['enrich', '--lookups', 'lrn,line_type', '-f', 'jsonl', '-q', '--no-cache'], { env: env(), stdin: `${NUMBERS[0] ?? ''}\n` });
    const record = JSON.parse(jsonl.stdout) as { results: Record<string, Record<string, unknown>> };
    expect(Object.keys(record.results)).toEqual(['lrn', 'line_type']);
    expect(record.results.line_type?.phone_number).toBe('12015550123');
  });

  it("enrich's terminal table heads its columns with the descriptor's labels, told apart by lookup where two read the same", async () => {
    const heads = async (columns: number, enhanced: string[] = []) => {
      const r = await runInProcess(['enrich', '--lookups', 'lrn,line_type', ...enhanced, '-f', 'table', '--no-color', '-q', '--no-cache'], { env: { ...env(), COLUMNS: String(columns) }, stdin: `${NUMBERS.join('\n')}\n` });
      expect(r.code, r.stderr).toBe(0);
      return r.stdout.split('\n')[1]?.split('│').slice(1, -1).map((c) => c.trim());
    };
    expect(await heads(80)).toEqual(['input', 'number', 'lrn', 'line type']);
    expect(await heads(120)).toEqual(['input', 'number', 'lrn', 'activated', 'line type', 'mobile', 'carrier']);
    const wide = await heads(400, ['--enhanced']);
    expect(wide).toEqual(expect.arrayContaining(['lrn carrier', 'lrn line type', 'line_type line type', 'line_type carrier', 'mobile']));
  });

  it('report reads its output, CSV and JSON lines, with the figures every lookup has', async () => {
    for (const format of ['csv', 'jsonl']) {
      const run = await runInProcess(['line_type', ...NUMBERS, '-f', format, '-q', '--no-cache'], { env: env() });
      const file = join(cacheDir, `line-type.${format}`);
      writeFileSync(file, run.stdout);
      const r = await runInProcess(['report', file, '--format', 'json']);
      expect(r.stderr, format).toBe('');
      const report = JSON.parse(r.stdout) as { source: { lookups: string[] }; lookups: Record<string, { rows: number; answered: number }> };
      expect(report.source.lookups, format).toEqual(['line_type']);
      expect(report.lookups.line_type, format).toMatchObject({ rows: 3, answered: 3 });
    }
  });

  it('completion offers its command, its --limit alias and its cache choice; cache clear takes it', async () => {
    const fish = await runInProcess(['completion', 'fish']);
    expect(fish.code).toBe(0);
    expect(fish.stdout).toMatch(/-a line_type\b/);
    expect(fish.stdout).toContain('limit-line_type');
    const bash = await runInProcess(['completion', 'bash']);
    expect(bash.stdout).toContain('line_type');
    const clear = await runInProcess(['cache', 'clear', '--lookup', 'line_type'], { env: { NUMINTEL_CACHE_DIR: join(cacheDir, 'cleared') } });
    expect(clear.stderr).toBe('');
    expect(clear.code).toBe(0);
  });

  it('its price is a setting, and --max-age and --price name it', async () => {
    const set = await runInProcess(['config', 'set', 'price.line_type', '0.002'], { env: env() });
    expect(set.code).toBe(0);
    const config = { NUMINTEL_CONFIG_DIR: set.world.env.NUMINTEL_CONFIG_DIR, NUMINTEL_CACHE_DIR: join(cacheDir, 'empty') };
    const dry = await runInProcess(['line_type', ...NUMBERS, '--dry-run', '--max-age', 'line_type=1h', '-f', 'json'], { env: { ...env(), ...config } });
    expect(dry.code).toBe(0);
    // Its descriptor's default rate, and the price from its setting.
    expect(JSON.parse(dry.stdout).lookups).toEqual({ line_type: expect.objectContaining({ needed: 3, billable: 3, rate_per_second: 25, price: 0.002, cost: 0.006 }) });
    const unknown = await runInProcess(['line_type', '1', '--price', 'dnc=1', '--dry-run'], { env: env() });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('known: lrn, cnam, trust, line_type');
  });

  it('the sandbox command takes --limit line_type=<n> and its --limit-line_type alias', async () => {
    for (const args of [['--limit', 'lrn=20,line_type=2'], ['--limit-line_type', '2']]) {
      const stdout = new PassThrough();
      const out: string[] = [];
      stdout.on('data', (d) => out.push(String(d)));
      const ac = new AbortController();
      const world = { env: {}, stdin: new PassThrough(), stdout, stderr: new PassThrough(), cwd: '/', home: '/nonexistent', clock: systemClock, interrupt: ac.signal };
      const run = sandboxCommand(world, () => {}).parseAsync(['--port', '0', ...args], { from: 'user' });
      for (let i = 0; i < 500 && out.length === 0; i++) await new Promise((r) => setTimeout(r, 2));
      const url = /on (\S+) /.exec(out.join(''))![1]!;
      const res = await post(url, '/api/v1/line-type', { phone_number: '2015550123' });
      expect(res.headers.get('x-ratelimit-limit'), args.join(' ')).toBe('2');
      ac.abort();
      await run;
    }
  });
});
