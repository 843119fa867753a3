// --fields: what a run writes, by column name, in the order given: the record's own columns
// (`input`, `number`, `error`; `status` as tables call it) and the result fields (`carrier`,
// `messaging_provider`, `is_spam`; in enrich also prefixed: `lrn_carrier`, `lrn_error`). What is not
// named is not written, except a CSV input's columns, which always stay.
import { activeFields, fieldColumns, LOOKUP_KINDS, LOOKUPS, type FieldSpec, type LookupDescriptor, type LookupKind, type LookupOptions } from '../core/lookups.js';
import { UsageError } from '../core/errors.js';
import { isEnrichRecord, type OutputRecord, type Result } from '../core/records.js';
import { isObject } from '../core/json.js';

/** One column --fields names: a record's own, a lookup's error, or a lookup's result field (by its column name). */
export type FieldPick =
  | { readonly own: 'input' | 'number' }
  | { readonly own: 'error'; readonly kind: LookupKind }
  | { readonly kind: LookupKind; readonly column: string };

export interface FieldSelection {
  /** Per lookup kind, the result columns kept. */
  readonly kept: ReadonlyMap<LookupKind, ReadonlySet<string>>;
  /** Everything written, in the order given (each once). */
  readonly order: readonly FieldPick[];
}

/** The record's own names; `status` is the error column as tables call it. */
const OWN = ['input', 'number', 'error', 'status'] as const;

/**
 * Parses `--fields a,b,c` against the run's lookups; an unknown name is a usage error with the known ones,
 * named as the run's columns are (in `enrich`, prefixed with the kind, `lrn_carrier`, also with one lookup).
 */
export function parseFields(text: string, lookups: readonly LookupDescriptor[], options: LookupOptions, enrich = lookups.length > 1): FieldSelection {
  const columns = new Map(lookups.map((d) => [d.kind, fieldColumns(activeFields(d, options))]));
  const known = [...[...columns].flatMap(([kind, cols]) => (enrich ? cols.map((c) => `${kind}_${c}`) : cols)), 'input', 'number', 'error'];
  const kept = new Map<LookupKind, Set<string>>(lookups.map((d) => [d.kind, new Set<string>()]));
  const order: FieldPick[] = [];
  const taken = new Set<string>();
  const pick = (p: FieldPick) => {
    const key = 'own' in p ? `${p.own}:${'kind' in p ? p.kind : ''}` : `${p.kind}:${p.column}`;
    if (taken.has(key)) return;
    taken.add(key);
    order.push(p);
    if (!('own' in p)) kept.get(p.kind)?.add(p.column);
  };
  const names = text.split(',').map((n) => n.trim()).filter(Boolean);
  if (names.length === 0) throw new UsageError('--fields names no field', `choose from ${known.join(', ')}`);
  for (const name of names) {
    if (name === 'input' || name === 'number') {
      pick({ own: name });
      continue;
    }
    if (name === 'error' || name === 'status') {
      for (const d of lookups) pick({ own: 'error', kind: d.kind });
      continue;
    }
    let found = false;
    for (const [kind, cols] of columns) {
      // `lrn_error`, `lrn_status`: one lookup's error column in enrich (and with a single lookup too).
      if (OWN.some((own) => own !== 'input' && own !== 'number' && name === `${kind}_${own}`)) {
        pick({ own: 'error', kind });
        found = true;
        continue;
      }
      const col = cols.includes(name) ? name : name.startsWith(`${kind}_`) && cols.includes(name.slice(kind.length + 1)) ? name.slice(kind.length + 1) : undefined;
      if (col === undefined) continue;
      pick({ kind, column: col });
      found = true;
    }
    if (!found) {
      const flag = needsOption(name, lookups);
      if (flag) throw new UsageError(`field "${name}" in --fields comes only with --${flag}`, `add --${flag}, or choose from ${known.join(', ')}`);
      const other = enrich ? lookupLeftOut(name, lookups) : undefined;
      if (other) throw new UsageError(`field "${name}" in --fields belongs to the ${other} lookup, which --lookups leaves out`, `add ${other} to --lookups, or choose from ${known.join(', ')}`);
      // A bare name (`is_spam`) is taken in enrich too, so a typo of one is matched against those as well.
      const near = closest(name, [...known, ...[...columns.values()].flat(), 'status']);
      throw new UsageError(`unknown field "${name}" in --fields${near ? ` (did you mean "${near}"?)` : ''}`, `the fields of this run: ${known.join(', ')}`);
    }
  }
  return { kept, order };
}

/**
 * What a selection leaves a lookup of an enrich run that it names no field of: the lookup is still
 * sent (and billed) for every row, and writes only its error. Said once, before anything is sent.
 */
export function unusedLookupsWarning(selection: FieldSelection, lookups: readonly LookupDescriptor[]): string | undefined {
  const unused = lookups.filter((d) => selection.kept.get(d.kind)?.size === 0).map((d) => d.kind);
  if (unused.length === 0) return undefined;
  const errors = unused.every((kind) => selection.order.some((p) => 'own' in p && p.own === 'error' && p.kind === kind));
  const [they, are, their, them, columns] = unused.length === 1 ? ['it', 'is', 'its', 'it', 'column'] : ['they', 'are', 'their', 'them', 'columns'];
  const written = errors ? `to write only ${their} error ${columns}` : `and nothing of ${them} is written`;
  return `--fields names no field of ${unused.join(' and ')}: ${they} ${are} still looked up (and billed) for every number, ${written}; leave ${them} out of --lookups to save those lookups`;
}

/** The fields of `active` that are selected (an object field keeps only its selected sub-fields). */
export function selectFields(active: readonly FieldSpec[], keep: ReadonlySet<string> | undefined): FieldSpec[] {
  if (!keep) return [...active];
  return active.flatMap((f): FieldSpec[] => {
    if (f.type !== 'object') return keep.has(f.name) ? [f] : [];
    const subs = (f.fields ?? []).filter((s) => keep.has(`${f.csvPrefix ?? ''}${s.name}`));
    return subs.length > 0 ? [{ ...f, fields: subs }] : [];
  });
}

/**
 * The projection of records to the selected result fields, the records' shape kept (envelope,
 * errors and input untouched), worked out once per run: what --report counts of a run with
 * --fields, whatever the format writes.
 */
export function projector(selection: FieldSelection, lookups: readonly LookupDescriptor[], options: LookupOptions): (record: OutputRecord) => OutputRecord {
  const kept = new Map(lookups.map((d) => [d.kind, selectFields(activeFields(d, options), selection.kept.get(d.kind))]));
  const project = (kind: LookupKind, result: Result | null | undefined): Result | null => {
    if (!result) return result ?? null;
    const out: Result = {};
    for (const f of kept.get(kind) ?? []) {
      if (!(f.name in result)) continue;
      const value = result[f.name];
      if (f.type !== 'object' || !isObject(value)) out[f.name] = value;
      else out[f.name] = Object.fromEntries((f.fields ?? []).filter((s) => s.name in value).map((s) => [s.name, value[s.name]]));
    }
    return out;
  };
  return (record) => {
    if (!isEnrichRecord(record)) return { ...record, result: project(record.lookup, record.result) };
    const results: typeof record.results = {};
    for (const d of lookups) results[d.kind] = project(d.kind, record.results[d.kind]);
    return { ...record, results };
  };
}

/** The lookup, not among the run's, that has a field column `name` (plain or prefixed). */
function lookupLeftOut(name: string, lookups: readonly LookupDescriptor[]): LookupKind | undefined {
  const run = new Set(lookups.map((d) => d.kind));
  return LOOKUP_KINDS.find((kind) => {
    if (run.has(kind)) return false;
    const cols = fieldColumns(LOOKUPS[kind].fields);
    return cols.includes(name) || cols.some((c) => name === `${kind}_${c}`);
  });
}

/** The option flag a field column needs, when `name` is one of a lookup's optional columns. */
function needsOption(name: string, lookups: readonly LookupDescriptor[]): string | undefined {
  for (const d of lookups) {
    for (const f of d.fields) {
      if (!f.option) continue;
      const cols = fieldColumns([f]);
      if (cols.includes(name) || cols.some((c) => name === `${d.kind}_${c}`)) return d.options.find((o) => o.name === f.option)?.flag;
    }
  }
  return undefined;
}

/** The known name nearest to `name` (edit distance ≤ 2, or a prefix, in any case), for "did you mean". */
function closest(typed: string, known: readonly string[]): string | undefined {
  // `LRN` or `Carrier` is the user's caps, not a typo: names compare in lower case.
  const name = typed.toLowerCase();
  let best: { name: string; d: number } | undefined;
  for (const k of known) {
    const d = k === name ? 0 : k.startsWith(name) || name.startsWith(k) ? 1 : distance(name, k);
    if (d <= 2 && (!best || d < best.d)) best = { name: k, d };
  }
  return best?.name;
}

function distance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let prev = row[0]!;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const here = row[j]!;
      row[j] = Math.min(row[j]! + 1, row[j - 1]! + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = here;
    }
  }
  return row[b.length]!;
}
