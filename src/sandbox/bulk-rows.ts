// A result as a bulk row names it: the single endpoint's result renamed by its descriptor's
// bulk.rowNames (the bulk style), or as it is (the single style). The values are the result's.
import { isObject } from '../core/json.js';
import type { LookupDescriptor } from '../core/lookups.js';
import type { BulkRowStyle } from './options.js';

/** Where one result field (or sub-field) goes in a bulk-style row: a path, or nowhere. */
interface Placement {
  readonly field: string;
  /** For a sub-field: its name inside the object. */
  readonly sub?: string;
  /** The path in the row; empty: the row does not carry it. */
  readonly path: readonly string[];
}

const plans = new WeakMap<LookupDescriptor, readonly Placement[]>();

/** The placements of every field and sub-field, read once per descriptor. */
function planOf(d: LookupDescriptor): readonly Placement[] {
  let plan = plans.get(d);
  if (plan) return plan;
  const names = d.bulk?.rowNames ?? {};
  const at = (listed: readonly string[] | undefined, own: readonly string[]) => (listed === undefined ? own : (listed[0]?.split('.') ?? []));
  const out: Placement[] = [];
  for (const f of d.fields) {
    if (f.type !== 'object') {
      out.push({ field: f.name, path: at(names[f.name], [f.name]) });
      continue;
    }
    const object = names[f.name]?.[0] ?? f.name;
    for (const sub of f.fields ?? []) out.push({ field: f.name, sub: sub.name, path: at(names[`${f.name}.${sub.name}`], [object, sub.name]) });
  }
  plans.set(d, (plan = out));
  return plan;
}

/** Adds the result's fields to `row`, named in this style. */
export function addResultFields(d: LookupDescriptor, result: Record<string, unknown>, style: BulkRowStyle, row: Record<string, unknown>): void {
  if (style === 'single') {
    Object.assign(row, result);
    return;
  }
  for (const p of planOf(d)) {
    const top = result[p.field];
    const value = p.sub === undefined ? top : isObject(top) ? top[p.sub] : undefined;
    if (value === undefined || p.path.length === 0) continue;
    let into = row;
    for (let i = 0; i < p.path.length - 1; i++) {
      const name = p.path[i] as string;
      const next = into[name];
      into = isObject(next) ? next : (into[name] = {}) as Record<string, unknown>;
    }
    into[p.path[p.path.length - 1] as string] = value;
  }
}
