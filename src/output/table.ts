// Table sink for an analyst at a terminal. A few columns: one table row per record. When a chunk's
// columns do not fit the terminal (enhanced + messaging, enrich, long values): one small
// field | value box per record. Records are buffered and printed TABLE_CHUNK at a time, so a huge
// input streams; once a chunk went vertical, later chunks stay vertical so the layout never flips.
import type { Writable } from 'node:stream';
import { Chalk, type ChalkInstance } from 'chalk';
import Table from 'cli-table3';
import type { OutputRecord } from '../core/records.js';
import type { RecordSink } from '../core/run.js';
import { csvPlan, recordValues, slotCell, type CsvPlan, type RecordValues, type Slot } from './csv-layout.js';
import type { OutputLayout, SinkStyle } from './layout.js';
import { stripControl } from './sanitize.js';
import { createTextWriter } from './stream-write.js';
import { paintWrapped, textWidth as width } from './wrap.js';

const TABLE_CHUNK = 50;
const DEFAULT_WIDTH = 80;
// A status column narrower than this reads badly: go vertical instead.
const STATUS_MIN = 16;
// cli-table3 colours heads and borders itself unless told not to; colour is ours alone to decide.
const NO_TABLE_COLOUR = { head: [] as string[], border: [] as string[] };

interface Row {
  readonly values: RecordValues;
  readonly ok: boolean;
}

/** A cell as shown: its plain text (for measuring) and how it is painted. */
interface Cell {
  readonly text: string;
  readonly paint: (s: string) => string;
}

export function createTableSink(out: Writable, layout: OutputLayout, style: SinkStyle = {}, chunk = TABLE_CHUNK): RecordSink {
  // Column names as for list input: the table shows the number cell, not the whole input row.
  const listLayout = { ...layout, inputColumns: null };
  // The table shows no cache columns; without --fields, no echoes of the number either.
  const full = csvPlan({ ...listLayout, cacheColumns: false });
  const plan = layout.fields ? full : withoutEchoes(full);
  const c = new Chalk({ level: style.color ? 1 : 0 });
  const termWidth = style.width && style.width > 20 ? style.width : DEFAULT_WIDTH;
  const writer = createTextWriter(out);
  let buffer: Row[] = [];
  let vertical = false;

  const render = (): string => {
    if (buffer.length === 0) return '';
    const rows = buffer;
    buffer = [];
    const grid = horizontalCells(plan, rows, layout.mode, c, termWidth);
    if (!vertical && grid.fits) return renderHorizontal(grid, c);
    vertical = true;
    return layout.fields ? renderPickedVertical(plan, rows, layout.mode, c, termWidth) : renderVertical(plan, rows, layout.mode, c, termWidth);
  };

  return {
    write(record: OutputRecord): Promise<void> | undefined {
      buffer.push({ values: recordValues(plan, record), ok: record.ok });
      return buffer.length >= chunk ? writer.flush(render()) : undefined;
    },
    end: () => writer.flush(render()),
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

/** A slot's head in a table: an error column is its status. */
function slotHead(slot: Slot, mode: OutputLayout['mode'], plan: CsvPlan): string {
  if (slot.of !== 'error') return slot.name;
  return mode === 'single' ? 'status' : `${plan.lookups[slot.lookup]?.descriptor.kind ?? ''}_status`;
}

function slotTableCell(slot: Slot, plan: CsvPlan, values: RecordValues, ok: boolean, mode: OutputLayout['mode'], c: ChalkInstance): Cell {
  const text = slotCell(slot, values);
  if (slot.of === 'error') return statusCell(text, ok || mode === 'enrich', c);
  if (slot.of === 'field') return cell(text, valuePaint(plan.lookups[slot.lookup]?.fields[slot.field] ?? '', text, c));
  return cell(text);
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

/** Head and body of the one-row-per-record form: input, number, fields, and a status per lookup. */
function horizontalCells(plan: CsvPlan, rows: readonly Row[], mode: OutputLayout['mode'], c: ChalkInstance, termWidth: number) {
  const head = plan.slots.map((slot) => slotHead(slot, mode, plan));
  // Status columns hold free text (error messages): they wrap instead of widening the table.
  const wraps = plan.slots.map((slot) => slot.of === 'error');
  const body = rows.map(({ values, ok }) => plan.slots.map((slot) => slotTableCell(slot, plan, values, ok, mode, c)));
  const natural = head.map((h, i) => body.reduce((w, r) => Math.max(w, width(r[i]?.text ?? '')), width(h)));
  // Fixed columns take what they need; the status columns share the rest, wrapping their text.
  const fixed = natural.reduce((sum, w, i) => (wraps[i] ? sum : sum + w + 3), 1);
  const wrapCount = Math.max(1, wraps.filter(Boolean).length);
  const share = Math.floor((termWidth - fixed) / wrapCount) - 3;
  const widths = natural.map((w, i) => (wraps[i] ? Math.min(w, share) : w));
  const fits = natural.every((w, i) => !wraps[i] || share >= Math.min(w, Math.max(width(head[i] ?? ''), STATUS_MIN))) && fixed <= termWidth;
  return { head, body, widths, fits };
}

type Grid = ReturnType<typeof horizontalCells>;

function renderHorizontal({ head, body, widths }: Grid, c: ChalkInstance): string {
  const t = new Table({
    head: head.map((h) => c.bold(h)),
    colWidths: widths.map((w) => w + 2),
    style: { ...NO_TABLE_COLOUR, compact: true },
  });
  for (const r of body) t.push(r.map((x, i) => paintWrapped(x.text, widths[i] ?? 0, x.paint)));
  return `${t.toString()}\n`;
}

/** One box per record: its input and number on top, then field | value, then its status. */
function renderVertical(plan: CsvPlan, rows: readonly Row[], mode: OutputLayout['mode'], c: ChalkInstance, termWidth: number): string {
  const boxes = rows.map(({ values, ok }) => {
    const lines: [string, Cell][] = [];
    let failed = false;
    plan.lookups.forEach((l, i) => {
      const g = values.groups[i];
      if (g?.error) {
        failed = true;
        if (mode === 'enrich') lines.push([l.errorName, cell(g.error, c.red)]);
        return;
      }
      l.fields.forEach((f, j) => {
        const v = g?.fields[j] ?? '';
        lines.push([l.names[j] ?? f, cell(v, valuePaint(f, v, c))]);
      });
    });
    const singleError = mode === 'single' ? (values.groups[0]?.error ?? '') : '';
    lines.push(['status', statusCell(singleError, ok && !failed, c)]);

    const input = cell(values.input);
    const labelWidth = Math.min(Math.max(width(input.text), ...lines.map(([l]) => width(l))), Math.floor(termWidth / 2));
    const valueWidth = Math.max(
      10,
      Math.min(Math.max(width(values.number), ...lines.map(([, v]) => width(v.text))), termWidth - labelWidth - 7),
    );
    const t = new Table({
      head: [paintWrapped(input.text, labelWidth, c.bold), paintWrapped(stripControl(values.number), valueWidth, c.bold)],
      colWidths: [labelWidth + 2, valueWidth + 2],
      style: { ...NO_TABLE_COLOUR, compact: true },
    });
    for (const [label, v] of lines) t.push([paintWrapped(label, labelWidth, c.cyan), paintWrapped(v.text, valueWidth, v.paint)]);
    return t.toString();
  });
  return `${boxes.join('\n')}\n`;
}

/** --fields, one box per record: a line for each column it names, in its order. */
function renderPickedVertical(plan: CsvPlan, rows: readonly Row[], mode: OutputLayout['mode'], c: ChalkInstance, termWidth: number): string {
  const heads = plan.slots.map((slot) => slotHead(slot, mode, plan));
  const labelWidth = Math.min(Math.max(...heads.map((h) => width(h))), Math.floor(termWidth / 2));
  const boxes = rows.map(({ values, ok }) => {
    const cells = plan.slots.map((slot) => slotTableCell(slot, plan, values, ok, mode, c));
    const valueWidth = Math.max(10, Math.min(Math.max(...cells.map((v) => width(v.text))), termWidth - labelWidth - 7));
    const t = new Table({ colWidths: [labelWidth + 2, valueWidth + 2], style: { ...NO_TABLE_COLOUR, compact: true } });
    cells.forEach((v, i) => t.push([paintWrapped(heads[i] ?? '', labelWidth, c.cyan), paintWrapped(v.text, valueWidth, v.paint)]));
    return t.toString();
  });
  return `${boxes.join('\n')}\n`;
}
