// The GraphQL side: the query is built from the descriptor (arguments only for the options that
// are on, sub-objects selected only with their option), and the answer is read in the standard
// GraphQL-over-HTTP shape: `data.<field>`, and `errors[].extensions.code` when there are errors.
import type { FieldSpec, LookupDescriptor, LookupOptions } from '../core/lookups.js';
import { activeFields } from '../core/lookups.js';
import type { Attempt } from '../core/transport.js';
import { isObject } from '../core/json.js';
import { looksLikeInvalidNumber, oneLine } from './body.js';
import { classifyWith, type ClassifyContext, type EnvelopeReader, type RawResponse, type Verdict } from './classify.js';
import { classOfCode } from './service-codes.js';

const GRAPHQL_PATH = '/graphql';

const selection = (fields: readonly FieldSpec[]): string =>
  fields.map((f) => (f.type === 'object' ? `${f.graphqlName} { ${selection(f.fields ?? [])} }` : f.graphqlName)).join(' ');

/** The query for one set of options, and the variables it declares beside the number. */
interface Prepared {
  readonly query: string;
  readonly args: readonly string[];
}

const cache = new WeakMap<LookupDescriptor, Map<string, Prepared>>();

/** Worked out once per lookup and set of options (a bulk run has one or a few). */
function prepare(d: LookupDescriptor, opts: LookupOptions): Prepared {
  const on = d.options.filter((o) => opts[o.name] === true);
  const key = on.map((o) => o.name).join(',');
  let perKind = cache.get(d);
  if (!perKind) cache.set(d, (perKind = new Map()));
  let hit = perKind.get(key);
  if (hit === undefined) {
    const args = on.map((o) => o.graphqlArg);
    const vars = ['$phoneNumber: String!', ...args.map((a) => `$${a}: Boolean`)];
    const params = ['phoneNumber: $phoneNumber', ...args.map((a) => `${a}: $${a}`)];
    const query = `query(${vars.join(', ')}) { ${d.graphqlField}(${params.join(', ')}) { ${selection(activeFields(d, opts))} } }`;
    perKind.set(key, (hit = { query, args }));
  }
  return hit;
}

/**
 * The query for one lookup and set of options, e.g.
 * `query($phoneNumber: String!, $includeSpam: Boolean) { lookupCnam(phoneNumber: $phoneNumber, includeSpam: $includeSpam) { number cnam spam_type } }`.
 * Options that are off are left out altogether (the service's default is false).
 */
export function buildQuery(d: LookupDescriptor, opts: LookupOptions): string {
  return prepare(d, opts).query;
}

export interface GraphqlRequest {
  readonly path: string;
  readonly body: { readonly query: string; readonly variables: Record<string, unknown> };
}

export function graphqlRequest(d: LookupDescriptor, number: string, opts: LookupOptions): GraphqlRequest {
  const { query, args } = prepare(d, opts);
  const variables: Record<string, unknown> = { phoneNumber: number };
  for (const a of args) variables[a] = true;
  return { path: GRAPHQL_PATH, body: { query, variables } };
}

type FailCode = Extract<Verdict, { kind: 'fail' }>['code'];

/** When a server gives no code, its words are all there is to go on. */
function byMessage(message: string): FailCode {
  if (/unauthenticated|unauthori[sz]ed|forbidden|api[\s_-]?key/i.test(message)) return 'unauthorized';
  if (/payment|insufficient funds|wallet|quota/i.test(message)) return 'payment_required';
  if (/rate[\s_-]?limit|too many requests/i.test(message)) return 'rate_limited';
  if (looksLikeInvalidNumber(message)) return 'invalid_number';
  if (/internal (server )?error|unavailable/i.test(message)) return 'server_error';
  return 'http_error';
}

/** When several errors come at once, the one that matters most to the run wins. */
const SEVERITY: readonly FailCode[] = [
  'unauthorized',
  'payment_required',
  'rate_limited',
  'server_error',
  'timeout',
  'invalid_number',
  'http_error',
  'bad_response',
];

interface GraphqlError {
  readonly code: FailCode;
  readonly words: string;
}

function readError(e: unknown): GraphqlError {
  const message = isObject(e) && typeof e.message === 'string' ? e.message : typeof e === 'string' ? e : '';
  const ext = isObject(e) && isObject(e.extensions) ? e.extensions : undefined;
  const label = typeof ext?.code === 'string' ? ext.code.toUpperCase() : undefined;
  const code = classOfCode(label) ?? byMessage(message);
  // An invalid number reads the same as over REST; other messages keep their code for diagnosis.
  const shown = code === 'invalid_number' && message ? undefined : label && `(${label})`;
  const words = [message || undefined, shown].filter(Boolean).join(' ');
  return { code, words: words || 'an error without a message' };
}

function readerFor(d: LookupDescriptor): EnvelopeReader {
  return (json, r) => {
    if (!isObject(json)) return undefined;
    const value = isObject(json.data) ? json.data[d.graphqlField] : undefined;
    const errors = Array.isArray(json.errors) ? json.errors.map(readError) : [];
    const words = errors.length > 0 ? oneLine(errors.map((e) => e.words).join('; '), r.ctx.secret) : undefined;
    // Partial data: the field we asked for came back, so the errors are about something else.
    if (isObject(value)) return { kind: 'ok', source: value, naming: 'graphql', words };
    if (errors.length === 0) return undefined;
    const worst = errors.reduce((a, b) => (SEVERITY.indexOf(b.code) < SEVERITY.indexOf(a.code) ? b : a));
    return { kind: 'fail', code: worst.code, words: oneLine(worst.words, r.ctx.secret) };
  };
}

const readers = new WeakMap<LookupDescriptor, EnvelopeReader>();

/** Classifies one GraphQL response: HTTP status first exactly as REST, then the GraphQL errors. */
export function classifyGraphql(d: LookupDescriptor, opts: LookupOptions, raw: RawResponse, ctx: ClassifyContext): Attempt {
  let reader = readers.get(d);
  if (!reader) readers.set(d, (reader = readerFor(d)));
  return classifyWith(d, opts, raw, ctx, reader);
}
