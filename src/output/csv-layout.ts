// The CSV columns of a run and how one record fills them. The header depends only on the layout
// (command, options, input header), never on data, so it can be written before the first result
// and compared with an existing file on --resume. The table reuses the same plan.
import { activeFields, fieldColumns, flattenFields, type FieldSpec, type LookupDescriptor } from '../core/lookups.js';
import { isEnrichRecord, type LookupError, type OutputRecord } from '../core/records.js';
import { rowKeys } from '../core/run.js';
import type { OutputLayout } from './layout.js';
import { selectFields } from './fields.js';

/** The columns one lookup adds: its flattened result fields, then its error column. */
export interface LookupColumns {
  readonly descriptor: LookupDescriptor;
  /** The descriptor's fields present for the run's options (activeFields), computed once per run. */
  readonly active: readonly FieldSpec[];
  /** The descriptor's own column names (csvColumns), for readers that care what a field is. */
  readonly fields: readonly string[];
  /** The header names of those fields, after prefixing and clash renaming. */
  readonly names: readonly string[];
  readonly errorName: string;
  /** With --cache-columns: the names of its `cached` and `fetched_at` columns, after the error. */
  readonly cacheNames: readonly [string, string] | null;
}

/**
 * One added column, after a CSV input's columns: the `input` of a list, the number, a lookup's
 * result field (`field`: its index in that lookup's `fields`), its error, or its cache columns.
 */
export type Slot =
  | { readonly of: 'input' | 'number'; readonly name: string }
  | { readonly of: 'field'; readonly name: string; readonly lookup: number; readonly field: number }
  | { readonly of: 'error' | 'cached' | 'fetched_at'; readonly name: string; readonly lookup: number };

export interface CsvPlan {
  /** CSV input's columns, written first and unchanged; null for list/argument input. */
  readonly inputColumns: readonly string[] | null;
  /** Their keys in a record's `row` (a repeated header name has its own key). */
  readonly inputKeys: readonly string[] | null;
  /** Header of the `input` column (list/argument input only). */
  readonly inputName: string | null;
  readonly numberName: string;
  readonly lookups: readonly LookupColumns[];
  /**
   * The columns after the input's, in the order written: `input` (a list), `number`, then each
   * lookup's fields, error and cache columns; with --fields, what it names in its order.
   */
  readonly slots: readonly Slot[];
}

/** One record's values in plan order, as strings (booleans `true`/`false`, null as ''). */
export interface RecordValues {
  /** CSV input's cells, padded with '' to the header's length; [] for list input. */
  readonly inputCells: readonly string[];
  readonly input: string;
  readonly number: string;
  /** Per lookup, aligned with plan.lookups: its field cells and its error ('' on success). */
  readonly groups: readonly { readonly fields: readonly string[]; readonly error: string; readonly cached: string; readonly fetchedAt: string }[];
}

// Our own columns: a result field with one of these names is prefixed with its lookup kind
// (CNAM's `number` becomes `cnam_number`) so it cannot be mistaken for ours.
const OWN_NAMES = new Set(['input', 'number', 'error']);

/**
 * Gives each added column a name no input column (or earlier added column) has: `number` becomes
 * `numintel_number`, then `numintel_number_2`, `_3`, ... Comparison is exact (case-sensitive).
 */
export function uniqueNamer(inputColumns: readonly string[]): (name: string) => string {
  const taken = new Set(inputColumns);
  return (name) => {
    let candidate = name;
    for (let n = 1; taken.has(candidate); n++) candidate = n === 1 ? `numintel_${name}` : `numintel_${name}_${n}`;
    taken.add(candidate);
    return candidate;
  };
}

export function csvPlan(layout: OutputLayout): CsvPlan {
  if (layout.lookups.length === 0) throw new Error('output layout without lookups');
  if (layout.mode === 'single' && layout.lookups.length !== 1) throw new Error('single-lookup layout with several lookups');
  const unique = uniqueNamer(layout.inputColumns ?? []);
  const inputName = layout.inputColumns === null ? unique('input') : null;
  const numberName = unique('number');
  const lookups = layout.lookups.map((descriptor): LookupColumns => {
    const active = selectFields(activeFields(descriptor, layout.options), layout.fields?.kept.get(descriptor.kind));
    const fields = fieldColumns(active);
    const prefixed = (f: string) =>
      layout.mode === 'enrich' || OWN_NAMES.has(f) ? `${descriptor.kind}_${f}` : f;
    const names = fields.map((f) => unique(prefixed(f)));
    const own = (name: string) => unique(layout.mode === 'enrich' ? `${descriptor.kind}_${name}` : name);
    const errorName = own('error');
    const cacheNames = layout.cacheColumns ? ([own('cached'), own('fetched_at')] as const) : null;
    return { descriptor, active, fields, names, errorName, cacheNames };
  });
  const inputKeys = layout.inputColumns && rowKeys(layout.inputColumns);
  const slots = layout.fields ? pickedSlots(layout, lookups, inputName, numberName) : allSlots(lookups, inputName, numberName);
  return { inputColumns: layout.inputColumns, inputKeys, inputName, numberName, lookups, slots };
}

function allSlots(lookups: readonly LookupColumns[], inputName: string | null, numberName: string): Slot[] {
  const slots: Slot[] = inputName === null ? [] : [{ of: 'input', name: inputName }];
  slots.push({ of: 'number', name: numberName });
  lookups.forEach((l, lookup) => {
    l.names.forEach((name, field) => slots.push({ of: 'field', name, lookup, field }));
    slots.push(...errorSlots(l, lookup));
  });
  return slots;
}

function errorSlots(l: LookupColumns, lookup: number): Slot[] {
  const slots: Slot[] = [{ of: 'error', name: l.errorName, lookup }];
  if (l.cacheNames) slots.push({ of: 'cached', name: l.cacheNames[0], lookup }, { of: 'fetched_at', name: l.cacheNames[1], lookup });
  return slots;
}

/**
 * What --fields names, in its order. A CSV input's columns stay whatever it names, so its `input`
 * adds nothing; --cache-columns follow their lookup's error, or end the row when that is not named.
 */
function pickedSlots(layout: OutputLayout, lookups: readonly LookupColumns[], inputName: string | null, numberName: string): Slot[] {
  const slots: Slot[] = [];
  const errors = new Set<number>();
  for (const p of layout.fields?.order ?? []) {
    if ('own' in p && p.own !== 'error') {
      if (p.own === 'number') slots.push({ of: 'number', name: numberName });
      else if (inputName !== null) slots.push({ of: 'input', name: inputName });
      continue;
    }
    const lookup = lookups.findIndex((l) => l.descriptor.kind === p.kind);
    const l = lookups[lookup];
    if (!l) continue;
    if ('own' in p) {
      errors.add(lookup);
      slots.push(...errorSlots(l, lookup));
      continue;
    }
    // An object field's column names its sub-field (`carrier`, `messaging_provider`): each is one column.
    l.fields.forEach((f, field) => {
      if (f === p.column) slots.push({ of: 'field', name: l.names[field] as string, lookup, field });
    });
  }
  lookups.forEach((l, lookup) => {
    if (!errors.has(lookup) && l.cacheNames) slots.push(...errorSlots(l, lookup).slice(1));
  });
  return slots;
}

/** The header row: input columns, then the slots' names. */
export function planHeader(plan: CsvPlan): string[] {
  return [...(plan.inputColumns ?? []), ...plan.slots.map((s) => s.name)];
}

export function csvHeader(layout: OutputLayout): string[] {
  return planHeader(csvPlan(layout));
}


/** `code: message`, or '' when there is no error. */
function errorText(error: LookupError | null | undefined): string {
  return error ? `${error.code}: ${error.message}` : '';
}

/** A slot's cell of one record. */
export function slotCell(slot: Slot, v: RecordValues): string {
  switch (slot.of) {
    case 'input':
      return v.input;
    case 'number':
      return v.number;
    case 'field':
      return v.groups[slot.lookup]?.fields[slot.field] ?? '';
    case 'error':
      return v.groups[slot.lookup]?.error ?? '';
    case 'cached':
      return v.groups[slot.lookup]?.cached ?? '';
    case 'fetched_at':
      return v.groups[slot.lookup]?.fetchedAt ?? '';
  }
}

export function recordValues(plan: CsvPlan, record: OutputRecord): RecordValues {
  const row = record.row ?? {};
  const inputCells = plan.inputKeys ? plan.inputKeys.map((k) => row[k] ?? '') : [];
  const groups = plan.lookups.map(({ descriptor, active }) => {
    if (isEnrichRecord(record)) {
      const kind = descriptor.kind;
      return {
        fields: flattenFields(active, record.results[kind] ?? null),
        error: errorText(record.errors[kind]),
        cached: String(record.cached?.[kind] ?? false),
        fetchedAt: record.fetched_at?.[kind] ?? '',
      };
    }
    if (record.lookup !== descriptor.kind) throw new Error(`a ${record.lookup} record in a ${descriptor.kind} output`);
    return { fields: flattenFields(active, record.result), error: errorText(record.error), cached: String(record.cached ?? false), fetchedAt: record.fetched_at ?? '' };
  });
  return { inputCells, input: record.input, number: record.number ?? '', groups };
}
