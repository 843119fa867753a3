// The bulk endpoints (shared/spec/bulk-endpoints.md): one request for many numbers of a lookup,
// answered with one row per distinct number. Each row becomes the Attempt its number would have
// had from the single endpoint: its fields read under the names the descriptor lists
// (BulkSpec.rowNames) and shaped as every result is, so a record is the same whichever endpoint
// answered, but for fields a bulk row does not carry.
import { isObject, type JsonObject } from '../core/json.js';
import { activeFields, type LookupDescriptor, type LookupOptions } from '../core/lookups.js';
import type { Attempt, BatchAttempt } from '../core/transport.js';
import { excerpt, oneLine, parseJson } from './body.js';
import { classifyRest } from './rest.js';
import { echoOfAnother, elevenDigits, type ClassifyContext, type RawResponse } from './classify.js';
import { parseRateInfo, rateFields } from './rate-headers.js';
import { reportsInvalidNumber, shapeResult } from './result-shape.js';

export interface BulkRequest {
  readonly path: string;
  readonly body: Record<string, unknown>;
}

export function bulkRequest(d: LookupDescriptor, numbers: readonly string[], opts: LookupOptions): BulkRequest {
  const bulk = d.bulk;
  if (!bulk) throw new TypeError(`the ${d.title} lookup has no bulk endpoint`);
  const body: Record<string, unknown> = { [bulk.numbersParam]: numbers };
  for (const o of d.options) {
    const param = bulk.params[o.name];
    if (param && opts[o.name]) body[param] = true;
  }
  return { path: bulk.path, body };
}

/** The keys a row names its number by, most exact first. */
const NUMBER_KEYS = ['phone_number', 'number', 'e164_phone', 'original_input'] as const;

/** The answer to a bulk request: rows per number, the request's own failure, or no bulk endpoint. Never throws. */
export function classifyBulk(d: LookupDescriptor, opts: LookupOptions, raw: RawResponse, ctx: ClassifyContext, numbers: readonly string[]): BatchAttempt {
  const rate = parseRateInfo(rateFields(raw.headers), ctx.now);
  const withRate = rate ? { rate } : {};
  if (raw.status === 404 || raw.status === 405) {
    return { kind: 'unsupported', message: `the service answered ${raw.status} to POST ${d.bulk?.path ?? ''}: it has no bulk endpoint for ${d.title}`, ...withRate };
  }
  const json = raw.status >= 200 && raw.status < 300 ? parseJson(raw.text) : undefined;
  const results = isObject(json) && Array.isArray(json.results) ? json.results : undefined;
  if (!results) {
    const whole = classifyRest(d, opts, raw, ctx);
    // A body in the single endpoint's shape answers no number of a batch.
    if (whole.kind !== 'ok' && whole.kind !== 'invalid') return { kind: 'whole', attempt: whole };
    const message = `expected a bulk answer with a results list, got ${excerpt(raw.text, ctx.secret)}`;
    return { kind: 'whole', attempt: { kind: 'error', error: { code: 'bad_response', message, status: raw.status }, ...withRate } };
  }
  // Where each number sits, for rows without sound input_indices: worked out at the first such row.
  let positions: Map<string, number[]> | undefined;
  const positionsOf = (): ReadonlyMap<string, number[]> => {
    if (positions) return positions;
    const made = new Map<string, number[]>();
    numbers.forEach((n, k) => {
      const key = elevenDigits(n);
      const list = made.get(key);
      if (list) list.push(k);
      else made.set(key, [k]);
    });
    return (positions = made);
  };
  const answers: Attempt[] = new Array<Attempt>(numbers.length);
  for (const row of results) {
    if (!isObject(row)) continue;
    const named = namedNumber(row);
    const same = named === undefined ? undefined : elevenDigits(named);
    for (const k of indicesOf(row, same, positionsOf, numbers.length)) {
      const asked = numbers[k] as string;
      answers[k] = same !== undefined && same !== elevenDigits(asked) ? anotherNumber(named as string, asked, ctx) : rowAttempt(d, opts, row, ctx, asked);
    }
  }
  for (let k = 0; k < answers.length; k++) answers[k] ??= noRow();
  return { kind: 'rows', answers, ...withRate };
}

/** The number a row names: the first of NUMBER_KEYS holding a string with a digit. */
function namedNumber(row: JsonObject): string | undefined {
  for (const key of NUMBER_KEYS) {
    const v = row[key];
    if (typeof v === 'string' && /\d/.test(v)) return v;
  }
  return undefined;
}

/** The positions of `numbers` a row answers: its input_indices when they are sound, else those of the number it names (its 11 digits). */
function indicesOf(row: JsonObject, named: string | undefined, positionsOf: () => ReadonlyMap<string, number[]>, count: number): readonly number[] {
  const listed = row.input_indices;
  if (Array.isArray(listed) && listed.length > 0 && listed.every((i) => Number.isInteger(i) && (i as number) >= 0 && (i as number) < count)) return listed as number[];
  return named === undefined ? [] : (positionsOf().get(named) ?? []);
}

/** One row as its number's Attempt. */
function rowAttempt(d: LookupDescriptor, opts: LookupOptions, row: JsonObject, ctx: ClassifyContext, asked: string): Attempt {
  const status = typeof row.status === 'string' ? row.status.toLowerCase() : 'success';
  const said = rowError(row, ctx);
  if (status === 'invalid') return { kind: 'invalid', error: { code: 'invalid_number', message: said ?? 'the service reports this number invalid' } };
  if (status !== 'success' && status !== 'cached') {
    // Failed inside an answered request: worth another try in a later batch.
    return { kind: 'retry', rateLimited: false, error: { code: 'server_error', message: `the service could not look this number up${said ? `: ${said}` : ` (row status ${oneLine(status, ctx.secret, 40)})`}` } };
  }
  const source = rowSource(d, opts, row);
  if (reportsInvalidNumber(d, source, 'rest')) return { kind: 'invalid', error: { code: 'invalid_number', message: said ?? 'the service reports INVALID_NUMBER for this number' } };
  const shaped = shapeResult(d, opts, source, 'rest');
  if ('missing' in shaped) return badRow(`the bulk row lacks ${shaped.missing.join(', ')}: ${excerpt(JSON.stringify(row), ctx.secret)}`);
  if ('wrong' in shaped) return badRow(`the bulk row has ${shaped.wrong.join(', ')} of the wrong type: ${excerpt(JSON.stringify(row), ctx.secret)}`);
  const other = echoOfAnother(d, shaped.result, asked);
  if (other !== undefined) return anotherNumber(other, asked, ctx);
  return { kind: 'ok', result: shaped.result };
}

function rowError(row: JsonObject, ctx: ClassifyContext): string | undefined {
  const e = row.error ?? row.message;
  if (typeof e === 'string' && e.trim() !== '') return oneLine(e, ctx.secret);
  if (isObject(e) && typeof e.message === 'string') return oneLine(e.message, ctx.secret);
  return undefined;
}

const badRow = (message: string): Attempt => ({ kind: 'error', error: { code: 'bad_response', message } });

const anotherNumber = (other: string, asked: string, ctx: ClassifyContext): Attempt =>
  badRow(`the answer names another number (${oneLine(other, ctx.secret, 40)}) than the one asked (${asked})`);

const noRow = (): Attempt => ({ kind: 'retry', rateLimited: false, error: { code: 'server_error', message: 'the bulk answer has no row for this number' } });

/** The value at a path of a row (a dotted name, split). */
function at(row: JsonObject, path: readonly string[]): unknown {
  let v: unknown = row;
  for (const part of path) {
    if (!isObject(v)) return undefined;
    v = v[part];
  }
  return v;
}

function firstAt(row: JsonObject, paths: readonly (readonly string[])[]): unknown {
  for (const p of paths) {
    const v = at(row, p);
    if (v !== undefined) return v;
  }
  return undefined;
}

/** Where each field of a lookup's result stands in its bulk rows, the names split once. */
interface RowReader {
  readonly fields: readonly { readonly name: string; readonly paths: readonly (readonly string[])[] }[];
  readonly objects: readonly {
    readonly name: string;
    readonly paths: readonly (readonly string[])[];
    readonly subs: readonly { readonly name: string; readonly paths: readonly (readonly string[])[] }[];
  }[];
}

// Options objects are made before a run and not changed: a run's reader is worked out once.
const readers = new WeakMap<LookupOptions, Map<LookupDescriptor, RowReader>>();

function readerOf(d: LookupDescriptor, opts: LookupOptions): RowReader {
  let byLookup = readers.get(opts);
  if (!byLookup) readers.set(opts, (byLookup = new Map()));
  let reader = byLookup.get(d);
  if (reader) return reader;
  const names = d.bulk?.rowNames ?? {};
  const split = (list: readonly string[]) => list.map((n) => n.split('.'));
  const fields: RowReader['fields'][number][] = [];
  const objects: RowReader['objects'][number][] = [];
  for (const f of activeFields(d, opts)) {
    const paths = split([...(names[f.name] ?? []), f.name]);
    if (f.type !== 'object') fields.push({ name: f.name, paths });
    else objects.push({ name: f.name, paths, subs: (f.fields ?? []).map((sub) => ({ name: sub.name, paths: split(names[`${f.name}.${sub.name}`] ?? []) })) });
  }
  byLookup.set(d, (reader = { fields, objects }));
  return reader;
}

/**
 * A row's fields (those the options ask for) under the result's REST names: each at the first of the names its descriptor lists
 * that is present, else under its own name; a sub-field likewise, else under its own name inside
 * the first of its object's names present.
 */
export function rowSource(d: LookupDescriptor, opts: LookupOptions, row: JsonObject): JsonObject {
  const reader = readerOf(d, opts);
  const out: JsonObject = {};
  for (const f of reader.fields) {
    const v = firstAt(row, f.paths);
    if (v !== undefined) out[f.name] = v;
  }
  for (const o of reader.objects) {
    let obj: JsonObject | undefined;
    for (const sub of o.subs) {
      let v = firstAt(row, sub.paths);
      for (let i = 0; v === undefined && i < o.paths.length; i++) {
        const inside = at(row, o.paths[i] as readonly string[]);
        if (isObject(inside)) v = inside[sub.name];
      }
      if (v !== undefined) (obj ??= {})[sub.name] = v;
    }
    if (obj) out[o.name] = obj;
  }
  return out;
}
