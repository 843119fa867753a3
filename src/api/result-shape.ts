// One result shape whatever the transport: REST names, the descriptor's key order, sub-objects
// only when their option is on. Fields the description does not know are dropped: GraphQL can only
// return what it selects, and the same number must give the same record over either transport.
import type { FieldSpec, LookupDescriptor, LookupOptions } from '../core/lookups.js';
import { activeFields } from '../core/lookups.js';
import type { Result } from '../core/records.js';
import { isObject, type JsonObject } from '../core/json.js';

export type Naming = 'rest' | 'graphql';

const wireName = (f: FieldSpec, naming: Naming) => (naming === 'rest' ? f.name : f.graphqlName);

/**
 * Copies `source` into REST names and descriptor order, values exactly as sent, and names in
 * `wrong` the fields sent with a value of another type (`lrn` a number, an array, an object): such
 * a result is not the service's answer, whatever its status. Unknown values of the right type
 * (`spam_type` TELEMARKETER, `carrier_type` WRS) pass untouched. One walk does both.
 */
function reshape(active: readonly FieldSpec[], source: JsonObject, naming: Naming, wrong: string[], prefix = ''): JsonObject {
  const out: JsonObject = {};
  for (const f of active) {
    const key = wireName(f, naming);
    if (!Object.hasOwn(source, key)) continue;
    const value = source[key];
    if (value !== null && value !== undefined && !fits(f, value)) wrong.push(`${prefix}${f.name}`);
    out[f.name] = f.type === 'object' && isObject(value) ? reshape(f.fields ?? [], value, naming, wrong, `${prefix}${f.name}.`) : value;
  }
  return out;
}

export type Shaped = { readonly result: Result } | { readonly missing: readonly string[] } | { readonly wrong: readonly string[] };

/** A value of the field's type (null is judged by the caller: nullable or not). */
function fits(f: FieldSpec, value: unknown): boolean {
  switch (f.type) {
    case 'string':
      return typeof value === 'string';
    case 'boolean':
      return typeof value === 'boolean';
    case 'integer':
      return typeof value === 'number' && Number.isInteger(value);
    case 'object':
      return isObject(value);
  }
}

/**
 * Builds the result, or names the required fields it lacks. Required: the fields that are always
 * there (no option) and never null by the description.
 */
export function shapeResult(d: LookupDescriptor, opts: LookupOptions, source: JsonObject, naming: Naming): Shaped {
  const { active, required } = fieldsOf(d, opts);
  let missing: string[] | undefined;
  for (const f of required) {
    const value = source[wireName(f, naming)];
    if (value === undefined || value === null) (missing ??= []).push(f.name);
  }
  if (missing) return { missing };
  const wrong: string[] = [];
  const result = reshape(active, source, naming, wrong);
  return wrong.length > 0 ? { wrong } : { result };
}

interface ShapeFields {
  readonly active: readonly FieldSpec[];
  readonly required: readonly FieldSpec[];
}

// A run asks with the same options object for every response: its fields are worked out once.
// Options objects are built before the run and not changed afterwards.
const shapeCache = new WeakMap<LookupOptions, Map<LookupDescriptor, ShapeFields>>();

function fieldsOf(d: LookupDescriptor, opts: LookupOptions): ShapeFields {
  let byLookup = shapeCache.get(opts);
  if (!byLookup) {
    byLookup = new Map();
    shapeCache.set(opts, byLookup);
  }
  let fields = byLookup.get(d);
  if (!fields) {
    const active = activeFields(d, opts);
    fields = { active, required: active.filter((f) => !f.option && !f.nullable) };
    byLookup.set(d, fields);
  }
  return fields;
}

/** A result whose spam_type is INVALID_NUMBER is the service refusing the number (CNAM, section 7.3). */
export function reportsInvalidNumber(d: LookupDescriptor, source: JsonObject, naming: Naming): boolean {
  return d.fields.some((f) => f.name === 'spam_type' && source[wireName(f, naming)] === 'INVALID_NUMBER');
}
