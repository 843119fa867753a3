// Issue 5 acceptance: the same numbers through both transports against an independent server give
// byte-identical json, jsonl and csv, and each transport only ever touches its own endpoints.
// Every run goes to a sandbox of its own transport, so the stats prove what was sent where.
import { buildClientSchema, getIntrospectionQuery, type IntrospectionQuery } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SPEC_SCHEMA } from '../api/graphql-spec-schema.js';
import type { CliResult } from '../support/cli.js';
import { jsonl, parseCsv, timeless } from '../support/cli.js';
import { sandboxEnv } from '../support/sandbox.js';
import { TRANSPORTS, cli, restRequests, sandbox, schemaOutline, writeInputs, type Sandbox, type TransportName } from './graphql-support.js';

interface Combo {
  readonly name: string;
  readonly args: readonly string[];
  /** Result keys every successful record must have (and the option-gated ones it must not). */
  readonly has: readonly string[];
  readonly lacks: readonly string[];
  /** CSV from a list differs from CSV from CSV only in its leading input column: checked on the widest layouts. */
  readonly csvFromList?: boolean;
}

const COMBOS: readonly Combo[] = [
  { name: 'lrn', args: ['lrn'], has: ['lrn', 'lrn_activated_at'], lacks: ['enhanced_lrn_data', 'messaging'] },
  { name: 'lrn --enhanced', args: ['lrn', '--enhanced'], has: ['enhanced_lrn_data'], lacks: ['messaging'] },
  { name: 'lrn --messaging', args: ['lrn', '--messaging'], has: ['messaging'], lacks: ['enhanced_lrn_data'] },
  { name: 'lrn --enhanced --messaging', args: ['lrn', '--enhanced', '--messaging'], has: ['enhanced_lrn_data', 'messaging'], lacks: [], csvFromList: true },
  { name: 'cnam', args: ['cnam'], has: ['number', 'cnam'], lacks: ['spam_type'] },
  { name: 'cnam --spam', args: ['cnam', '--spam'], has: ['spam_type'], lacks: [] },
  // Trust is the one lookup whose GraphQL names differ (camelCase): the REST names must come out.
  { name: 'trust', args: ['trust'], has: ['phone_number', 'is_spam', 'reputation_score', 'trust_level', 'last_updated'], lacks: ['phoneNumber', 'isSpam'] },
  {
    name: 'enrich (all lookups, all options)',
    args: ['enrich', '--lookups', 'lrn,cnam,trust', '--enhanced', '--messaging', '--spam'],
    has: ['lrn', 'cnam', 'trust'],
    lacks: [],
    csvFromList: true,
  },
];

type Shape = 'json from a list' | 'jsonl from CSV' | 'csv from a list' | 'csv from CSV';
const shapes = (c: Combo): Shape[] => ['json from a list', 'jsonl from CSV', 'csv from CSV', ...(c.csvFromList ? (['csv from a list'] as const) : [])];

const servers = {} as Record<TransportName, Sandbox>;
const runs = new Map<string, Record<TransportName, CliResult>>();
const id = (c: Combo, s: Shape) => `${c.name} | ${s}`;

beforeAll(async () => {
  const inputs = writeInputs();
  // Over HTTPS, as the service speaks, its certificate trusted through NUMINTEL_CA_FILE, so the
  // runs need no process of their own (NODE_EXTRA_CA_CERTS, which does, is tls.test.ts's).
  for (const t of TRANSPORTS) servers[t] = await sandbox({ tls: true });
  const argsFor = (s: Shape): string[] => ['-f', s.split(' ')[0] ?? '', '-i', s.endsWith('CSV') ? inputs.csv : inputs.list, '--quiet'];
  const jobs = COMBOS.flatMap((c) =>
    shapes(c).map(async (s) => {
      const pair = {} as Record<TransportName, CliResult>;
      await Promise.all(
        TRANSPORTS.map(async (t) => {
          pair[t] = await cli([...c.args, ...argsFor(s), '--transport', t], { env: sandboxEnv(servers[t], { NODE_EXTRA_CA_CERTS: undefined, NUMINTEL_CA_FILE: servers[t].caFile }) });
        }),
      );
      runs.set(id(c, s), pair);
    }),
  );
  await Promise.all(jobs);
}, 60_000);

afterAll(async () => {
  await Promise.all(TRANSPORTS.map((t) => servers[t]?.close()));
});

const cases = COMBOS.flatMap((c) => shapes(c).map((s) => [c.name, s, c] as const));

describe('REST and GraphQL give byte-identical output', () => {
  it.each(cases)('%s, %s', (_name, shape, combo) => {
    const pair = runs.get(id(combo, shape));
    if (!pair) throw new Error('run missing');
    const { rest, graphql } = pair;
    // Some rows hold invalid numbers, so a complete run exits 4, and says nothing on stderr (--quiet).
    expect(rest.stderr).toBe('');
    expect(graphql.stderr).toBe('');
    expect(rest.code).toBe(4);
    expect(graphql.code).toBe(4);
    expect(timeless(graphql.stdout)).toBe(timeless(rest.stdout));
    expect(graphql.stdout).not.toMatch(/graphql/i);

    // The identity must be of real results, not of two equal failures.
    if (shape.startsWith('csv')) {
      // A row was answered when every error column (`error`, or `<lookup>_error` for enrich) is
      // empty and it has a number; invalid numbers fill them with `invalid_number: ...`.
      const [header = [], ...rows] = parseCsv(rest.stdout);
      const errorAt = header.flatMap((name, i) => (name === 'error' || name.endsWith('_error') ? [i] : []));
      expect(errorAt.length).toBe(combo.args[0] === 'enrich' ? 3 : 1);
      const numberAt = header.indexOf('number');
      expect(numberAt).toBeGreaterThanOrEqual(0);
      const answered = rows.filter((row) => errorAt.every((i) => row[i] === '') && row[numberAt] !== '');
      expect(answered.length).toBeGreaterThanOrEqual(5);
      expect(rows.filter((row) => errorAt.some((i) => row[i]?.startsWith('invalid_number'))).length).toBeGreaterThan(0);
      return;
    }
    const records = shape.startsWith('json ') ? (JSON.parse(rest.stdout) as Record<string, unknown>[]) : jsonl(rest.stdout);
    const ok = records.filter((r) => r.ok === true);
    expect(ok.length).toBeGreaterThanOrEqual(5);
    expect(records.some((r) => r.ok === false)).toBe(true);
    for (const r of ok) {
      const result = (combo.args[0] === 'enrich' ? r.results : r.result) as Record<string, unknown>;
      for (const key of combo.has) expect(result).toHaveProperty(key);
      for (const key of combo.lacks) expect(result).not.toHaveProperty(key);
    }
    if (shape === 'jsonl from CSV') expect(records.every((r) => typeof r.row === 'object')).toBe(true);
  });
});

describe('each transport used only its own endpoint', () => {
  it('GraphQL sent no REST request, REST sent no GraphQL request', () => {
    const viaRest = servers.rest.stats();
    const viaGraphql = servers.graphql.stats();
    expect(viaRest.requests.graphql).toBe(0);
    expect(restRequests(servers.rest)).toBeGreaterThan(0);
    expect(viaGraphql.requests).toMatchObject({ lrn: 0, cnam: 0, trust: 0 });
    expect(viaGraphql.requests.graphql).toBeGreaterThan(0);
  });

  it('both looked up exactly the same numbers, duplicates once per run, invalid ones never', () => {
    const viaRest = servers.rest.stats();
    const viaGraphql = servers.graphql.stats();
    expect(viaGraphql.byNumber).toEqual(viaRest.byNumber);
    expect(viaGraphql.lookups).toEqual(viaRest.lookups);
    // One request per lookup: no retries were needed, so nothing was sent twice.
    expect(viaGraphql.requests.graphql).toBe(restRequests(servers.rest));
    expect(viaGraphql.requests.graphql).toBe(viaGraphql.billed);
    expect(viaRest.invalid + viaGraphql.invalid).toBe(0);
    // 12129876543 is spelt twice in the list, 12124567890 twice in the CSV; each run that reads
    // them looks each up once. LRN runs: 5 combos (4 lrn + enrich) read the list once (json) and
    // the CSV twice (jsonl, csv), and 2 of them read the list once more (csv).
    expect(viaRest.byNumber['lrn:12129876543']).toBe(5 + 2);
    expect(viaRest.byNumber['lrn:12124567890']).toBe(5 * 2);
    expect(viaRest.byNumber['trust:12129876543']).toBe(2 + 1);
    expect(Object.keys(viaRest.byNumber).filter((k) => k.endsWith(':12121112222'))).toEqual([]);
  });
});

describe('the server is independent of the client', () => {
  it('the sandbox serves the schema of the service description, not one of its own', async () => {
    // Its schema is generated from the same descriptors as the client's queries; a slip there
    // would pass every comparison above, so check what it serves against the hand-written one.
    const sb = await sandbox();
    try {
      const answer = await fetch(`${sb.url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${sb.apiKey}` },
        body: JSON.stringify({ query: getIntrospectionQuery() }),
      });
      expect(answer.status).toBe(200);
      const served = buildClientSchema(((await answer.json()) as { data: IntrospectionQuery }).data);
      const expected = schemaOutline(SPEC_SCHEMA);
      expect(Object.keys(expected)).toHaveLength(6);
      expect(schemaOutline(served)).toEqual(expected);
    } finally {
      await sb.close();
    }
  });
});
