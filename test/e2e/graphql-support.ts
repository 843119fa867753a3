// Shared by the GraphQL end-to-end suites: the inputs both transports are fed, sandboxes started in
// the test process (so their stats show what the CLI really sent), and a bounded CLI runner.
import { writeFileSync } from 'node:fs';
import { getNamedType, isObjectType, type GraphQLSchema } from 'graphql';
import { join } from 'node:path';
import pLimit from 'p-limit';
import { startSandbox, type Sandbox, type SandboxOptions } from '../../src/sandbox/index.js';
import { runCli, runCliInProcess, type CliOptions, type CliResult } from '../support/cli.js';
import { tempDir } from '../support/tmp.js';

export type { Sandbox };
export type TransportName = 'rest' | 'graphql';
export const TRANSPORTS: readonly TransportName[] = ['rest', 'graphql'];

/**
 * Spam, robocall and clean numbers, an LRN with a null activation date, several spellings of one
 * number (looked up once), numbers the client refuses before sending, an extension, a comment.
 */
export const NUMBER_LIST = [
  '# leads from the fair',
  '12129876543',
  '(702) 456-7890',
  '13104567890',
  '+1 212 987 6543',
  '12121112222',
  '',
  '888-303-4444',
  '12345',
  '13104567890',
  '1-905-303-4444',
  '201.555.0123 x12',
].join('\n');

/** The same kind of mix as CSV: quoted commas, an empty cell, a BOM-free header with a phone column. */
export const CONTACTS_CSV = [
  'name,phone,note',
  '"Lakeside, Motors",212-456-7890,first',
  'Credit Services,17029876543,"says ""hi"""',
  'Duplicate,(212) 456-7890,same as first',
  'Bad exchange,2121112222,',
  'Empty,,no number',
  'Pest,1 888 234 5678,',
  'Too short,555-0123,',
  'Tax,19053034444,"multi',
  'line"',
].join('\n');

/** The inputs written once per suite. */
export function writeInputs(): { list: string; csv: string } {
  const dir = tempDir('numintel-graphql-e2e-');
  const list = join(dir, 'numbers.txt');
  const csv = join(dir, 'contacts.csv');
  writeFileSync(list, `${NUMBER_LIST}\n`);
  writeFileSync(csv, `${CONTACTS_CSV}\n`);
  return { list, csv };
}

/** No client-side pacing problem hides behind the sandbox's own limits unless a test sets them. */
export const UNLIMITED = { lrn: 0, cnam: 0, trust: 0 };

export function sandbox(opts: Partial<SandboxOptions> = {}): Promise<Sandbox> {
  return startSandbox({ port: 0, limits: UNLIMITED, ...opts });
}

// Two cores are shared by every suite: a few CLI processes at a time finish sooner than dozens.
const slots = pLimit(4);

/**
 * The CLI in-process, or as a process of its own when it must trust a certificate through
 * NODE_EXTRA_CA_CERTS (which Node reads only at start).
 */
export function cli(args: string[], opts: CliOptions = {}): Promise<CliResult> {
  if (opts.env?.NODE_EXTRA_CA_CERTS === undefined) return runCliInProcess(args, opts);
  return slots(() => runCli(args, { timeoutMs: 25_000, ...opts }));
}

/**
 * Every object type of a schema (introspection types aside) as {field: "NamedType(arg: Type, ...)"},
 * nullability of results aside (the service description does not document it). Two schemas with
 * equal outlines have the same types, fields, field types and arguments.
 */
export function schemaOutline(schema: GraphQLSchema): Record<string, Record<string, string>> {
  const out: Record<string, Record<string, string>> = {};
  for (const [name, type] of Object.entries(schema.getTypeMap())) {
    if (name.startsWith('__') || !isObjectType(type)) continue;
    out[name] = Object.fromEntries(
      Object.values(type.getFields()).map((f) => [f.name, `${getNamedType(f.type).name}(${f.args.map((a) => `${a.name}: ${String(a.type)}`).join(', ')})`]),
    );
  }
  return out;
}

/** Requests per REST endpoint: what must stay 0 over GraphQL. */
export const restRequests = (sb: Sandbox) => {
  const r = sb.stats().requests;
  return r.lrn + r.cnam + r.trust;
};
