// JSON and JSON lines records with --fields: flat objects of what it names.
import type { FieldSpec } from '../core/lookups.js';
import { isEnrichRecord, type OutputRecord, type Result } from '../core/records.js';
import { isObject } from '../core/json.js';
import { csvPlan } from './csv-layout.js';
import type { OutputLayout } from './layout.js';

/**
 * JSON and JSON lines with --fields: each record is an object of what it names, in its order, under
 * its column names (`carrier`, `lrn_carrier`, `error`, `lrn_error`), values as the service sent
 * them (null where there is none); a CSV input's row stays, last as in every record.
 */
export function flatRecords(layout: OutputLayout): (record: OutputRecord) => Record<string, unknown> {
  const plan = csvPlan({ ...layout, inputColumns: null, cacheColumns: false });
  const getters = plan.slots.map((slot): [string, (record: OutputRecord) => unknown] => {
    const kind = 'lookup' in slot ? plan.lookups[slot.lookup]?.descriptor.kind : undefined;
    const resultOf = (r: OutputRecord): Result | null => (isEnrichRecord(r) ? (kind && r.results[kind]) ?? null : r.result);
    switch (slot.of) {
      case 'input':
        return [slot.name, (r) => r.input];
      case 'number':
        return [slot.name, (r) => r.number];
      case 'error':
        return [slot.name, (r) => (isEnrichRecord(r) ? (kind && r.errors[kind]) ?? null : r.error)];
      case 'field': {
        const read = columnReader(plan.lookups[slot.lookup]?.active ?? [], plan.lookups[slot.lookup]?.fields[slot.field] ?? '');
        return [slot.name, (r) => read(resultOf(r))];
      }
      default:
        return [slot.name, () => null];
    }
  });
  return (record) => {
    const out: Record<string, unknown> = {};
    for (const [name, get] of getters) out[name] = get(record);
    if (record.row) out.row = record.row;
    return out;
  };
}

/** How to read one flattened column (`carrier`, `messaging_provider`) out of a result. */
function columnReader(active: readonly FieldSpec[], column: string): (result: Result | null) => unknown {
  for (const f of active) {
    if (f.type !== 'object') {
      if (f.name === column) return (result) => result?.[f.name] ?? null;
      continue;
    }
    const sub = (f.fields ?? []).find((s) => `${f.csvPrefix ?? ''}${s.name}` === column);
    if (sub) {
      return (result) => {
        const part = result?.[f.name];
        return isObject(part) ? (part[sub.name] ?? null) : null;
      };
    }
  }
  return () => null;
}
