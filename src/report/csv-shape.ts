// Which column of a numintel CSV output holds what. The header of a run depends only on its
// command, options and input columns (output/csv-layout.ts), so the header is matched against the
// headers numintel can write for these input columns, and the one that fits best is taken. Columns
// this reader does not know (a cache's `cached`/`fetched_at`, a later version's) may sit anywhere.
import { LOOKUP_KINDS, LOOKUPS, type LookupDescriptor, type LookupKind, type LookupOptions } from '../core/lookups.js';
import { csvPlan, planHeader } from '../output/csv-layout.js';
import { ANSWER_FIELDS, type Answer, type LookupFacts, type RowFacts } from './facts.js';

export interface CsvShape {
  readonly numberIndex: number;
  readonly kinds: readonly KindColumns[];
  /** The columns a report reads, by index: a reader may leave the others out of a row's cells. */
  readonly needed: readonly boolean[];
}

interface KindColumns {
  readonly kind: LookupKind;
  /** Answer key → column index, for the fields this output has. */
  readonly fields: readonly (readonly [keyof Answer, number])[];
  readonly errorIndex: number;
  /** The column saying whether the answer came from the cache, when there is one. */
  readonly cachedIndex: number | undefined;
}

const NUMBER_NAME = /^(numintel_)?number(_\d+)?$/;

/** Every layout a run can have: each command, each subset of enrich's lookups, each set of options. */
function layouts(): { mode: 'single' | 'enrich'; lookups: LookupDescriptor[]; options: LookupOptions }[] {
  const out: { mode: 'single' | 'enrich'; lookups: LookupDescriptor[]; options: LookupOptions }[] = [];
  const optionSets: LookupOptions[] = [];
  for (let bits = 0; bits < 8; bits++) optionSets.push({ enhanced: (bits & 1) !== 0, messaging: (bits & 2) !== 0, spam: (bits & 4) !== 0 });
  for (const options of optionSets) {
    for (const kind of LOOKUP_KINDS) out.push({ mode: 'single', lookups: [LOOKUPS[kind]], options });
    for (let set = 1; set < 8; set++) {
      out.push({ mode: 'enrich', lookups: LOOKUP_KINDS.filter((_, i) => (set & (1 << i)) !== 0).map((k) => LOOKUPS[k]), options });
    }
  }
  return out;
}

/** The shape of a numintel CSV header, or undefined when no numintel command writes such a header. */
export function csvShape(header: readonly string[]): CsvShape | undefined {
  let numberIndex = -1;
  for (let i = header.length - 1; i >= 0; i--) {
    if (NUMBER_NAME.test(header[i] ?? '')) {
      numberIndex = i;
      break;
    }
  }
  if (numberIndex < 0) return undefined;
  const inputs: (string[] | null)[] = [header.slice(0, numberIndex)];
  if (numberIndex === 1 && header[0] === 'input') inputs.push(null);
  const position = new Map<string, number>();
  header.forEach((name, i) => {
    if (i > numberIndex && !position.has(name)) position.set(name, i);
  });

  let best: { plan: ReturnType<typeof csvPlan>; matched: number; columns: number } | undefined;
  for (const inputColumns of inputs) {
    for (const layout of layouts()) {
      const plan = csvPlan({ ...layout, inputColumns, appending: false });
      const added = planHeader(plan).slice(inputColumns === null ? 2 : inputColumns.length + 1);
      if (plan.numberName !== header[numberIndex]) continue;
      // Every error column of the layout and the result fields it has, in any order (other columns
      // may come between): `--fields` names the columns it writes, in the order it gives, and a
      // report needs the errors.
      const errors = new Set(plan.lookups.map((l) => l.errorName));
      let matched = 0;
      let fields = 0;
      const fits = added.every((name) => {
        const at = position.get(name);
        if (at === undefined) return !errors.has(name);
        matched++;
        if (!errors.has(name)) fields++;
        return true;
      });
      // The layout that explains the most columns; of those, the one that leaves out the fewest.
      const better = !best || matched > best.matched || (matched === best.matched && added.length < best.columns);
      if (fits && fields > 0 && better) best = { plan, matched, columns: added.length };
    }
  }
  if (!best) return undefined;
  const kinds = best.plan.lookups.map((l): KindColumns => {
    const index = (name: string) => position.get(name) as number;
    const byField = new Map(l.fields.map((f, j) => [f, index(l.names[j] as string)]));
    const fields = (ANSWER_FIELDS[l.descriptor.kind] ?? []).flatMap(([column, key]) => {
      const at = byField.get(column);
      return at === undefined ? [] : [[key, at] as const];
    });
    const prefix = best.plan.lookups.length > 1 || l.errorName.startsWith(`${l.descriptor.kind}_`) ? `${l.descriptor.kind}_` : '';
    const cachedIndex = [`${prefix}cached`, `numintel_${prefix}cached`, 'cached'].map((n) => position.get(n)).find((i) => i !== undefined);
    return { kind: l.descriptor.kind, fields, errorIndex: index(l.errorName), cachedIndex };
  });
  const needed: boolean[] = header.map(() => false);
  needed[numberIndex] = true;
  for (const k of kinds) {
    for (const [, at] of k.fields) needed[at] = true;
    needed[k.errorIndex] = true;
    if (k.cachedIndex !== undefined) needed[k.cachedIndex] = true;
  }
  return { numberIndex, kinds, needed };
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/**
 * The facts of CSV rows of this shape. The objects are filled anew for every row and handed out
 * again (a report counts a row and lets it go): a million rows make no garbage here.
 */
export function csvRowFacts(shape: CsvShape): (cells: readonly string[]) => RowFacts {
  const lookups: Mutable<LookupFacts>[] = shape.kinds.map((k) => ({ kind: k.kind, answer: null, errorCode: null, errorMessage: '', cached: undefined }));
  const answers: Answer[] = shape.kinds.map(() => ({}));
  const row: Mutable<RowFacts> = { number: null, lookups };
  return (cells) => {
    const number = cells[shape.numberIndex] ?? '';
    row.number = number === '' ? null : number;
    shape.kinds.forEach((k, i) => {
      const l = lookups[i] as Mutable<LookupFacts>;
      const error = cells[k.errorIndex] ?? '';
      if (error !== '') {
        const colon = error.indexOf(': ');
        l.answer = null;
        l.errorCode = colon < 0 ? error : error.slice(0, colon);
        l.errorMessage = colon < 0 ? '' : error.slice(colon + 2);
        l.cached = undefined;
        return;
      }
      const answer = answers[i] as Answer;
      for (const [key, at] of k.fields) answer[key] = cells[at] ?? '';
      l.answer = answer;
      l.errorCode = null;
      l.errorMessage = '';
      const cached = k.cachedIndex === undefined ? '' : (cells[k.cachedIndex] ?? '');
      l.cached = cached === '' ? undefined : cached === 'true';
    });
    return row;
  };
}
