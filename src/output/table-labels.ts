// The headings of a table's result columns: each field's label from its descriptor (`caller name`,
// `trust`), or its column name with spaces, never prefixed with its lookup (`lrn_lrn`, `cnam_cnam`)
// unless two headings of the same table would read the same: then each of those says its lookup
// (`cnam spam type`, `trust spam type`).
import { columnSpecs } from '../core/lookups.js';
import type { CsvPlan } from './csv-layout.js';

/** Per lookup of the plan, the label of each of its fields (aligned with `fields`). */
export function fieldLabels(plan: CsvPlan): string[][] {
  return plan.lookups.map((l) => {
    const specs = columnSpecs(l.active);
    return l.fields.map((column, i) => specs[i]?.label ?? column.replaceAll('_', ' '));
  });
}

/** Per lookup of the plan, whether each of its fields is a glance column (FieldSpec.glance). */
export function glanceFields(plan: CsvPlan): boolean[][] {
  return plan.lookups.map((l) => {
    const specs = columnSpecs(l.active);
    return l.fields.map((_, i) => specs[i]?.glance === true);
  });
}

/** The headings as shown together: one that another also reads, and that belongs to a lookup, is prefixed with its lookup. */
export function distinctHeads(columns: readonly { readonly head: string; readonly kind?: string }[]): string[] {
  const uses = new Map<string, number>();
  for (const c of columns) uses.set(c.head, (uses.get(c.head) ?? 0) + 1);
  return columns.map((c) => ((uses.get(c.head) ?? 0) > 1 && c.kind ? `${c.kind} ${c.head}` : c.head));
}
