// POST /graphql: standard GraphQL over HTTP, with the same keys, rate windows, quota and stats as
// REST. Each top-level lookup field counts as one request of its lookup.
import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  GraphQLError,
  Kind,
  execute,
  getOperationAST,
  parse,
  validate,
  type DocumentNode,
  type FragmentDefinitionNode,
  type GraphQLSchema,
  type SelectionSetNode,
} from 'graphql';
import { isObject } from '../core/json.js';
import { LOOKUP_KINDS, LOOKUPS, type LookupKind } from '../core/lookups.js';
import { UNAUTHORIZED_HEADERS, UNAUTHORIZED_MESSAGE, graphqlError, rateLimitedMessage } from './bodies.js';
import type { SandboxEngine } from './engine.js';
import { buildLookupSchema, type GraphqlContext } from './graphql-schema.js';
import { MAX_BODY, isJsonContentType, parseObject, readBody, sendJson } from './http.js';
import { rateHeaders, type RateVerdict } from './rate-window.js';
import type { KeyState } from './keys.js';
import type { RequestMeta } from './routes-rest.js';

/** The schema of every registered lookup, built again when one is registered (the registry only grows). */
let built: { lookups: number; schema: GraphQLSchema; kindOfField: Map<string, LookupKind> } | undefined;
function lookupSchema(): NonNullable<typeof built> {
  if (built?.lookups !== LOOKUP_KINDS.length) {
    const lookups = LOOKUP_KINDS.map((k) => LOOKUPS[k]);
    built = { lookups: lookups.length, schema: buildLookupSchema(lookups), kindOfField: new Map(lookups.map((d) => [d.graphqlField, d.kind])) };
  }
  return built;
}

export function handleGraphql(
  engine: SandboxEngine,
  req: IncomingMessage,
  res: ServerResponse,
  spurious429: boolean,
  meta: RequestMeta,
): void {
  if (req.method !== 'POST') {
    sendJson(res, 405, graphqlError('METHOD_NOT_ALLOWED', 'use POST /graphql'), ['Allow', 'POST']);
    return;
  }
  const key = engine.authenticate(req.headers.authorization);
  if (!key) {
    // As REST's 401 does, it reports the rate fields of the lookup it was for: the query names it.
    const refuse = (rh: string[]) => sendJson(res, 401, graphqlError(engine.bodies.graphqlCode('UNAUTHENTICATED'), UNAUTHORIZED_MESSAGE), [...UNAUTHORIZED_HEADERS, ...rh]);
    if (!isJsonContentType(req.headers['content-type'])) return refuse([]);
    readBody(req, res, (outcome) => {
      if (!outcome.ok && outcome.tooLarge) return refuse(['Connection', 'close']);
      if (outcome.ok) refuse(uncountedHeaders(engine, namedLookups(outcome.text), undefined));
    });
    return;
  }
  meta.key = key.label;
  if (!isJsonContentType(req.headers['content-type'])) {
    sendJson(res, 415, graphqlError('BAD_REQUEST', 'send the body as Content-Type: application/json'));
    return;
  }
  readBody(req, res, (outcome) => {
    if (!outcome.ok) {
      if (outcome.tooLarge) sendJson(res, 413, graphqlError('BAD_REQUEST', `the body may be at most ${MAX_BODY} bytes`), ['Connection', 'close']);
      return;
    }
    const body = parseObject(outcome.text);
    const vars = body?.variables;
    const opName = body?.operationName;
    if (
      !body ||
      typeof body.query !== 'string' ||
      (vars !== undefined && vars !== null && !isObject(vars)) ||
      (opName !== undefined && opName !== null && typeof opName !== 'string')
    ) {
      sendJson(res, 400, graphqlError('BAD_REQUEST', 'the body must be a JSON object {"query": string, "variables"?: object, "operationName"?: string}'));
      return;
    }
    let document: DocumentNode;
    try {
      document = parse(body.query);
    } catch (err) {
      sendJson(res, 400, JSON.stringify({ errors: [withCode(err, 'GRAPHQL_PARSE_FAILED', engine.bodies.graphqlCode)] }));
      return;
    }
    const { schema, kindOfField } = lookupSchema();
    const operationName = typeof opName === 'string' ? opName : undefined;
    const kinds = lookupKinds(document, operationName, kindOfField);
    const problems = validate(schema, document);
    if (problems.length > 0) {
      sendJson(res, 400, JSON.stringify({ errors: problems.map((e) => withCode(e, 'GRAPHQL_VALIDATION_FAILED', engine.bodies.graphqlCode)) }), uncountedHeaders(engine, kinds, key));
      return;
    }
    let verdict: { kind: LookupKind; v: RateVerdict } | undefined;
    engine.arrived('graphql', key);
    for (const kind of kinds) {
      const v = engine.admit(kind, key, spurious429, 'graphql');
      verdict ??= { kind, v };
      if (!v.allowed) {
        const message = rateLimitedMessage(LOOKUPS[kind], engine.refusal(v));
        sendJson(res, 429, graphqlError(engine.bodies.graphqlCode('RATE_LIMITED'), message, v.bare ? {} : { retryAfter: v.resetIn }), rateHeaders(kind, v, true));
        return;
      }
    }
    const rh = verdict ? rateHeaders(verdict.kind, verdict.v, false) : [];
    const contextValue: GraphqlContext = { engine, key, paymentRequired: false };
    const result = execute({
      schema,
      document,
      operationName,
      variableValues: (vars ?? undefined) as Record<string, unknown> | undefined,
      contextValue,
    });
    // No promise can come back: every resolver is synchronous.
    if ('then' in result) throw new Error('unexpected asynchronous GraphQL execution');
    if (!('data' in result) || result.data === undefined) {
      sendJson(res, 400, JSON.stringify({ errors: (result.errors ?? []).map((e) => withCode(e, 'BAD_USER_INPUT', engine.bodies.graphqlCode)) }), rh);
      return;
    }
    const errors = result.errors?.map((e) => withCode(e, 'INTERNAL_SERVER_ERROR', engine.bodies.graphqlCode));
    const status = contextValue.paymentRequired ? 402 : 200;
    sendJson(res, status, JSON.stringify(errors ? { errors, data: result.data } : { data: result.data }), rh);
  });
}

/** The error as JSON, with extensions.code kept when the resolver set one, else `fallback`. */
function withCode(err: unknown, fallback: string, styled: (code: string) => string): Record<string, unknown> {
  if (!(err instanceof GraphQLError)) return { message: 'internal error', extensions: { code: styled('INTERNAL_SERVER_ERROR') } };
  const json = err.toJSON() as { message: string; extensions?: Record<string, unknown> };
  // A bug in a resolver must not leak its message; the errors we raise ourselves carry a code.
  const code = typeof err.extensions.code === 'string' ? err.extensions.code : fallback;
  if (code === 'INTERNAL_SERVER_ERROR' && err.originalError) json.message = 'internal error';
  return { ...json, extensions: { ...json.extensions, code: styled(code) } };
}

/** The rate headers of a refusal no window counted, for the first lookup the query names (none: no headers). */
function uncountedHeaders(engine: SandboxEngine, kinds: readonly LookupKind[], key: KeyState | undefined): string[] {
  const kind = kinds[0];
  return kind === undefined ? [] : rateHeaders(kind, engine.peek(kind, key), false);
}

/** The lookups a request body's query names; none when it is not a readable GraphQL request. */
function namedLookups(text: string): LookupKind[] {
  const query = parseObject(text)?.query;
  if (typeof query !== 'string') return [];
  try {
    return lookupKinds(parse(query), undefined, lookupSchema().kindOfField);
  } catch {
    return [];
  }
}

/** The lookup of each top-level field of the operation, fragments included, aliases counted. */
function lookupKinds(document: DocumentNode, operationName: string | undefined, kindOfField: ReadonlyMap<string, LookupKind>): LookupKind[] {
  const op = getOperationAST(document, operationName);
  if (!op) return [];
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const def of document.definitions) if (def.kind === Kind.FRAGMENT_DEFINITION) fragments.set(def.name.value, def);
  const kinds: LookupKind[] = [];
  const walk = (set: SelectionSetNode, depth: number) => {
    if (depth > 20) return;
    for (const sel of set.selections) {
      if (sel.kind === Kind.FIELD) {
        const kind = kindOfField.get(sel.name.value);
        if (kind) kinds.push(kind);
      } else if (sel.kind === Kind.INLINE_FRAGMENT) walk(sel.selectionSet, depth + 1);
      else {
        const frag = fragments.get(sel.name.value);
        if (frag) walk(frag.selectionSet, depth + 1);
      }
    }
  };
  walk(op.selectionSet, 0);
  return kinds;
}
