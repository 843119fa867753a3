// Table sink for an analyst at a terminal: one table, a row per record. Its columns: the input's
// columns that say who a row is (a CSV's other columns than the number's, or a list's input), as
// many as fit; the number; the result fields under their labels (table-labels.ts), all of them
// when they fit, else each lookup's glance fields (`lrn`, `caller name`, `trust`); and a status
// when a row failed. One small field | value box per record only when one row is asked for or not
// even the glance columns fit. Records are buffered and printed TABLE_CHUNK at a time, so a huge
// input streams; once a chunk went vertical, later chunks stay vertical so the layout never flips.
import type { Writable } from 'node:stream';
import { Chalk, type ChalkInstance } from 'chalk';
import Table from 'cli-table3';
import type { OutputRecord } from '../core/records.js';
import { rowKeys, type RecordSink } from '../core/run.js';
import { csvPlan, recordValues, slotCell, type CsvPlan, type RecordValues, type Slot } from './csv-layout.js';
import type { OutputLayout, SinkStyle } from './layout.js';
import { stripControl } from './sanitize.js';
import { createTextWriter } from './stream-write.js';
import { distinctHeads, fieldLabels, glanceFields } from './table-labels.js';
import { paintWrapped, truncateText, textWidth as width } from './wrap.js';

const TABLE_CHUNK = 50;
const DEFAULT_WIDTH = 80;
// A status column narrower than this reads badly (its whole text is under the table): go vertical instead.
const STATUS_MIN = 8;
// An identifying column is cut (with an ellipsis) past this width, and left out below the least.
const ID_MAX = 24;
const ID_LEAST = 8;
// cli-table3 colours heads and borders itself unless told not to; colour is ours alone to decide.
const NO_TABLE_COLOUR = { head: [] as string[], border: [] as string[] };

interface Row {
  readonly values: RecordValues;
  /** The identifying cells: a CSV's columns other than the number's. */
  readonly ids: readonly string[];
  readonly ok: boolean;
}

/** A cell as shown: its plain text (for measuring) and how it is painted. */
interface Cell {
  readonly text: string;
  readonly paint: (s: string) => string;
}

/** What the sink knows of its table before any record: the plan, the headings, the identifying columns. */
interface TableSpec {
  readonly plan: CsvPlan;
  readonly mode: OutputLayout['mode'];
  /** Per lookup, the heading of each field. */
  readonly labels: readonly (readonly string[])[];
  readonly glance: readonly (readonly boolean[])[];
  /** The identifying input columns (names), and their keys in a record's row. */
  readonly idNames: readonly string[];
  readonly idKeys: readonly string[];
  /** --fields: the slots as named, in their order. */
  readonly picked: boolean;
  /** CSV input: its columns identify a row (else a list's input does). */
  readonly csv: boolean;
  readonly c: ChalkInstance;
  readonly termWidth: number;
}

export function createTableSink(out: Writable, layout: OutputLayout, style: SinkStyle = {}, chunk = TABLE_CHUNK): RecordSink {
  // Column names as for list input: the table shows the number cell, not the whole input row.
  const listLayout = { ...layout, inputColumns: null };
  // The table shows no cache columns; without --fields, no echoes of the number either.
  const full = csvPlan({ ...listLayout, cacheColumns: false });
  const plan = layout.fields ? full : withoutEchoes(full);
  const columns = layout.inputColumns ?? [];
  const keys = rowKeys(columns);
  const idIndexes = columns.map((_, i) => i).filter((i) => i !== layout.numberColumn);
  const idNames = idIndexes.map((i) => columns[i] ?? '');
  const spec: TableSpec = {
    plan,
    mode: layout.mode,
    labels: fieldLabels(plan),
    glance: glanceFields(plan),
    idNames,
    idKeys: idIndexes.map((i) => keys[i] ?? ''),
    picked: layout.fields !== undefined,
    csv: layout.inputColumns !== null,
    c: new Chalk({ level: style.color ? 1 : 0 }),
    termWidth: style.width && style.width > 20 ? style.width : DEFAULT_WIDTH,
  };
  const writer = createTextWriter(out);
  let buffer: Row[] = [];
  let vertical = false;
  let first = true;

  const render = (ending: boolean): string => {
    if (buffer.length === 0) return '';
    const rows = buffer;
    buffer = [];
    // One row asked for: the whole of it, field by field.
    if (first && ending && rows.length === 1) vertical = true;
    first = false;
    const grid = vertical ? undefined : horizontalGrid(spec, rows);
    if (grid) return renderHorizontal(grid, spec.c, spec.termWidth);
    vertical = true;
    return spec.picked ? renderPickedVertical(spec, rows) : renderVertical(spec, rows);
  };

  return {
    write(record: OutputRecord): Promise<void> | undefined {
      const row = record.row ?? {};
      buffer.push({ values: recordValues(plan, record), ids: spec.idKeys.map((k) => row[k] ?? ''), ok: record.ok });
      return buffer.length >= chunk ? writer.flush(render(false)) : undefined;
    },
    end: () => writer.flush(render(true)),
  };
}

const plain = (s: string) => s;

/**
 * The plan without the fields that only echo the number looked up (CNAM's `number`, trust's
 * `phone_number`): the table's own number column shows it, and the width is better spent on data.
 * Filtered after naming, so the other columns keep the names the full plan gave them; records
 * flattened with this plan never produce the echo cells. An echo field is a plain field: one column.
 */
function withoutEchoes(full: CsvPlan): CsvPlan {
  const lookups = full.lookups.map((l) => {
    const echoes = new Set(l.active.filter((f) => f.echo).map((f) => f.name));
    const keep = l.fields.map((f) => !echoes.has(f));
    const pick = <T>(items: readonly T[]) => items.filter((_, j) => keep[j]);
    return { ...l, active: l.active.filter((f) => !f.echo), fields: pick(l.fields), names: pick(l.names) };
  });
  // The slots again, over the fields that stay.
  const slots = full.slots.flatMap((slot): Slot[] => {
    if (slot.of !== 'field') return [slot];
    const l = lookups[slot.lookup];
    const field = l?.names.indexOf(slot.name) ?? -1;
    return field < 0 ? [] : [{ ...slot, field }];
  });
  return { ...full, lookups, slots };
}

/** A column of the one-row-per-record form: identifying (cut to fit), fixed, or a status (wraps). */
interface Column {
  readonly head: string;
  /** A result field's lookup, to tell apart two fields of the same label. */
  readonly kind?: string;
  readonly role: 'id' | 'fixed' | 'status';
  readonly cell: (row: Row) => Cell;
}

/** A slot's head in a table: a field's label; an error column is its status. */
function slotHead(spec: TableSpec, slot: Slot): string {
  if (slot.of === 'field') return spec.labels[slot.lookup]?.[slot.field] ?? slot.name;
  if (slot.of !== 'error') return slot.name;
  return spec.mode === 'single' ? 'status' : `${spec.plan.lookups[slot.lookup]?.descriptor.kind ?? ''} status`;
}

function slotColumn(spec: TableSpec, slot: Slot): Column {
  const { plan, c, mode } = spec;
  const head = slotHead(spec, slot);
  const kind = 'lookup' in slot ? plan.lookups[slot.lookup]?.descriptor.kind : undefined;
  if (slot.of === 'error') return { head, role: 'status', cell: (r) => statusCell(slotCell(slot, r.values), r.ok || mode === 'enrich', c) };
  if (slot.of === 'field') {
    const field = plan.lookups[slot.lookup]?.fields[slot.field] ?? '';
    const paint = (text: string) => cell(text, valuePaint(field, text, c));
    return { head, ...(kind ? { kind } : {}), role: 'fixed', cell: (r) => paint(slotCell(slot, r.values)) };
  }
  return { head, role: 'fixed', cell: (r) => cell(slotCell(slot, r.values)) };
}

/** The columns that say who a row is: a CSV's other columns, or a list's input as typed. */
function idColumns(spec: TableSpec): Column[] {
  // With --fields a list's input is a column only where it names `input`.
  if (!spec.csv && !spec.picked) {
    return [{ head: 'input', role: 'id', cell: (r) => cell(r.values.input) }];
  }
  return spec.idNames.map((head, i) => ({ head, role: 'id', cell: (r) => cell(r.ids[i] ?? '') }));
}

/** One status for the row: `ok`, or each failed lookup's error (in enrich, named by its lookup). */
function statusColumn(spec: TableSpec): Column {
  return {
    head: 'status',
    role: 'status',
    cell: ({ values, ok }) => {
      const failed = spec.plan.lookups.flatMap((l, i) => {
        const error = values.groups[i]?.error ?? '';
        return error === '' ? [] : [{ kind: l.descriptor.kind, error }];
      });
      // One error every lookup had (a number none of them accepts) is said once.
      const same = failed.length === spec.plan.lookups.length && failed.every((f) => f.error === failed[0]?.error);
      const text = same || spec.mode === 'single' ? (failed[0]?.error ?? '') : failed.map((f) => `${f.kind}: ${f.error}`).join('; ');
      return statusCell(text, ok && failed.length === 0, spec.c);
    },
  };
}

const failedRow = (r: Row) => !r.ok || r.values.groups.some((g) => g.error !== '');

/**
 * The result columns in their order, each saying whether the table needs it: each lookup's glance
 * fields (its first field when it marks none); the others are shown where they fit. With
 * --fields every column named is needed. The number first, a status last when a row failed.
 */
function resultColumns(spec: TableSpec, rows: readonly Row[]): { col: Column; needed: boolean }[] {
  if (spec.picked) return spec.plan.slots.map((slot) => ({ col: slotColumn(spec, slot), needed: true }));
  const fields = spec.plan.slots.filter((slot): slot is Extract<Slot, { of: 'field' }> => slot.of === 'field');
  const needed = (slot: Extract<Slot, { of: 'field' }>) => {
    const marks = spec.glance[slot.lookup] ?? [];
    return marks.some(Boolean) ? marks[slot.field] === true : slot.field === 0;
  };
  const number = { col: { head: 'number', role: 'fixed', cell: (r: Row) => cell(r.values.number) } satisfies Column, needed: true };
  const status = rows.some(failedRow) ? [{ col: statusColumn(spec), needed: true }] : [];
  return [number, ...fields.map((slot) => ({ col: slotColumn(spec, slot), needed: needed(slot) })), ...status];
}

interface Grid {
  readonly head: string[];
  readonly body: Cell[][];
  readonly widths: number[];
  /** The statuses cut to fit their column, each whole, named by its row. */
  readonly notes: Cell[];
}

/**
 * The one-row-per-record form, when its needed columns fit: then the identifying columns, as many
 * as fit (the first ones whole up to ID_MAX, the last one perhaps cut), then the other result
 * columns in their order, up to the first that does not fit. Undefined when the needed columns alone do not fit.
 */
function horizontalGrid(spec: TableSpec, rows: readonly Row[]): Grid | undefined {
  const { termWidth } = spec;
  const measured = (col: Column) => {
    const cells = rows.map((r) => col.cell(r));
    return { col, cells, natural: cells.reduce((w, x) => Math.max(w, width(x.text)), width(col.head)) };
  };
  type Measured = ReturnType<typeof measured>;
  const ids = idColumns(spec);
  const candidates = resultColumns(spec, rows);
  // Needed columns measured with the heads they have among themselves, the others with the heads
  // they would have if all were shown (the longest); told apart again below.
  const wide = distinctHeads([...ids, ...candidates.map((x) => x.col)]).slice(ids.length);
  const neededHeads = distinctHeads(candidates.filter((x) => x.needed).map((x) => x.col));
  let n = 0;
  const results = candidates.map((x, i) => {
    const head = (x.needed ? neededHeads[n++] : wide[i]) ?? x.col.head;
    return { ...measured({ ...x.col, head }), bare: x.col, needed: x.needed, wideHead: wide[i] ?? head };
  });
  // Fixed columns take what they need; a status column at first its least.
  const least = (m: Measured) => (m.col.role === 'status' ? Math.min(m.natural, Math.max(width(m.col.head), STATUS_MIN)) : m.natural);
  let used = results.reduce((sum, m) => (m.needed ? sum + least(m) + 3 : sum), 1);
  if (used > termWidth) return undefined;
  const shownIds: { m: Measured; w: number }[] = [];
  for (const id of ids) {
    const m = measured(id);
    const want = Math.min(m.natural, ID_MAX);
    const room = termWidth - used - 3;
    if (room < Math.min(want, ID_LEAST)) break;
    const w = Math.min(want, room);
    shownIds.push({ m, w });
    used += w + 3;
  }
  // The other result columns in their order, up to the first that does not fit; one that shares a
  // needed column's heading makes that heading longer too (`cnam spam type`).
  let room = true;
  const grown = new Set<Measured>();
  const shown = results.filter((m) => {
    if (m.needed) return true;
    const twins = results.filter((t) => t.needed && t.bare.head === m.bare.head && !grown.has(t));
    const growth = twins.reduce((sum, t) => sum + Math.max(0, width(t.wideHead) - t.natural), 0);
    room &&= used + m.natural + 3 + growth <= termWidth;
    if (room) {
      used += m.natural + 3 + growth;
      for (const t of twins) grown.add(t);
    }
    return room;
  });
  // The status columns share what is left, each cut to one line; the whole text goes under the table.
  const statuses = shown.filter((m) => m.col.role === 'status').length;
  const extra = statuses > 0 ? Math.floor((termWidth - used) / statuses) : 0;
  const heads = distinctHeads([...shownIds.map((x) => x.m.col), ...shown.map((m) => m.bare)]);
  const head = heads.map((h, i) => (i < shownIds.length ? truncateText(h, shownIds[i]?.w ?? 0) : h));
  const fitted = (m: Measured, h: string) => m.cells.reduce((w, x) => Math.max(w, width(x.text)), width(h));
  const widths = [
    ...shownIds.map((x) => x.w),
    ...shown.map((m, i) => (m.col.role === 'status' ? Math.min(m.natural, least(m) + extra) : fitted(m, heads[shownIds.length + i] ?? ''))),
  ];
  const notes: Cell[] = [];
  const body = rows.map((row, r) => {
    const cut = (v: Cell, w: number): Cell => ({ text: truncateText(v.text, w), paint: v.paint });
    return [
      ...shownIds.map((x) => cut(x.m.cells[r] ?? cell(''), x.w)),
      ...shown.map((m, i) => {
        const v = m.cells[r] ?? cell('');
        const w = widths[shownIds.length + i] ?? 0;
        if (m.col.role !== 'status' || width(v.text) <= w) return v;
        const who = [row.ids[0], row.values.input].filter((x) => x !== undefined && x !== '').join(' ');
        notes.push({ text: `${who === '' ? `row ${r + 1}` : who}: ${v.text}`, paint: v.paint });
        return cut(v, w);
      }),
    ];
  });
  return { head, body, widths, notes };
}

/** Service values worth an analyst's eye: spam flags that are set, a spam type other than NONE. */
function valuePaint(field: string, value: string, c: ChalkInstance): (s: string) => string {
  const flagged =
    (field.startsWith('is_') && value === 'true') || (field === 'spam_type' && value !== '' && value !== 'NONE');
  return flagged ? c.bold.yellow : plain;
}

const cell = (text: string, paint: (s: string) => string = plain): Cell => ({ text: stripControl(text), paint });

function statusCell(error: string, ok: boolean, c: ChalkInstance): Cell {
  if (error) return cell(error, c.red);
  return ok ? cell('ok', c.green) : cell('failed', c.red);
}

function renderHorizontal({ head, body, widths, notes }: Grid, c: ChalkInstance, termWidth: number): string {
  const t = new Table({
    head: head.map((h) => c.bold(h)),
    colWidths: widths.map((w) => w + 2),
    style: { ...NO_TABLE_COLOUR, compact: true },
  });
  for (const r of body) t.push(r.map((x, i) => paintWrapped(x.text, widths[i] ?? 0, x.paint)));
  const under = notes.map((n) => `${paintWrapped(n.text, termWidth, n.paint)}\n`).join('');
  return `${t.toString()}\n${under}`;
}

/** A box of label | value lines under a head of two cells, within the terminal. */
function box(head: readonly [Cell, Cell] | undefined, lines: readonly (readonly [string, Cell])[], spec: TableSpec): string {
  const { c, termWidth } = spec;
  const labelWidth = Math.min(Math.max(width(head?.[0].text ?? ''), ...lines.map(([l]) => width(l))), Math.floor(termWidth / 2));
  const valueWidth = Math.max(1, Math.min(Math.max(width(head?.[1].text ?? ''), ...lines.map(([, v]) => width(v.text))), termWidth - labelWidth - 7));
  const t = new Table({
    ...(head ? { head: [paintWrapped(head[0].text, labelWidth, c.bold), paintWrapped(head[1].text, valueWidth, c.bold)] } : {}),
    colWidths: [labelWidth + 2, valueWidth + 2],
    style: { ...NO_TABLE_COLOUR, compact: true },
  });
  for (const [label, v] of lines) t.push([paintWrapped(label, labelWidth, c.cyan), paintWrapped(v.text, valueWidth, v.paint)]);
  return t.toString();
}

/** One box per record: its input and number on top, its identifying cells, then field | value, then its status. */
function renderVertical(spec: TableSpec, rows: readonly Row[]): string {
  const { plan, mode, c } = spec;
  const boxes = rows.map((row) => {
    const { values, ok } = row;
    const lines: [{ head: string; kind?: string }, Cell][] = spec.idNames.map((name, i) => [{ head: name }, cell(row.ids[i] ?? '')]);
    let failed = false;
    plan.lookups.forEach((l, i) => {
      const g = values.groups[i];
      if (g?.error) {
        failed = true;
        if (mode === 'enrich') lines.push([{ head: `${l.descriptor.kind} error` }, cell(g.error, c.red)]);
        return;
      }
      l.fields.forEach((f, j) => {
        const v = g?.fields[j] ?? '';
        lines.push([{ head: spec.labels[i]?.[j] ?? f, kind: l.descriptor.kind }, cell(v, valuePaint(f, v, c))]);
      });
    });
    const singleError = mode === 'single' ? (values.groups[0]?.error ?? '') : '';
    lines.push([{ head: 'status' }, statusCell(singleError, ok && !failed, c)]);
    const heads = distinctHeads(lines.map(([h]) => h));
    return box([cell(values.input), cell(values.number)], lines.map(([, v], i) => [heads[i] ?? '', v] as const), spec);
  });
  return `${boxes.join('\n')}\n`;
}

/** --fields, one box per record: its identifying cells, then a line for each column it names, in its order. */
function renderPickedVertical(spec: TableSpec, rows: readonly Row[]): string {
  const columns = [...idColumns(spec), ...spec.plan.slots.map((slot) => slotColumn(spec, slot))];
  const heads = distinctHeads(columns);
  const boxes = rows.map((row) => box(undefined, columns.map((col, i) => [heads[i] ?? '', col.cell(row)] as const), spec));
  return `${boxes.join('\n')}\n`;
}
