// A small report of figures (`cache stats`, `--dry-run`): a few labelled values and one table per
// lookup. A box table on a terminal, aligned plain text when piped, JSON on request; the JSON is
// the caller's own object, so scripts get numbers, not formatted text.
import Table from 'cli-table3';
import type { OutStream } from './world.js';

export type FiguresFormat = 'table' | 'text' | 'json';

export interface Figures {
  readonly title: string;
  /** Labelled values, in order. */
  readonly lines: readonly (readonly [label: string, value: string])[];
  /** One row per lookup (or other item), under its head. */
  readonly table?: { readonly head: readonly string[]; readonly rows: readonly (readonly string[])[] };
  /** Lines after the table: notes, hints. */
  readonly notes?: readonly string[];
}

/** `table` on a terminal, `text` when piped, unless a format is asked for. */
export function figuresFormat(asked: string | undefined, out: OutStream): FiguresFormat {
  if (asked === 'json') return 'json';
  if (asked === 'table' || asked === 'text') return asked;
  return out.isTTY === true ? 'table' : 'text';
}

export function renderFigures(f: Figures, format: Exclude<FiguresFormat, 'json'>): string {
  const width = Math.max(...f.lines.map(([label]) => label.length));
  const out: string[] = [f.title, ...f.lines.map(([label, value]) => `  ${label.padEnd(width)}  ${value}`)];
  if (f.table && f.table.rows.length > 0) {
    out.push('');
    if (format === 'table') {
      const table = new Table({ head: [...f.table.head], style: { head: [], border: [] }, colAligns: f.table.head.map((_, i) => (i === 0 ? 'left' : 'right')) });
      for (const row of f.table.rows) table.push([...row]);
      out.push(table.toString());
    } else {
      const all = [f.table.head, ...f.table.rows];
      const widths = f.table.head.map((_, i) => Math.max(...all.map((r) => (r[i] ?? '').length)));
      for (const row of all) out.push(`  ${row.map((cell, i) => (i === 0 ? cell.padEnd(widths[i] ?? 0) : cell.padStart(widths[i] ?? 0))).join('  ')}`.trimEnd());
    }
  }
  if (f.notes?.length) out.push('', ...f.notes);
  return `${out.join('\n')}\n`;
}

/** 1234567 → "1,234,567". */
export const count = (n: number): string => n.toLocaleString('en-US');

/** Bytes in B, KB, MB or GB (powers of 1024, one decimal). */
export function bytes(n: number): string {
  const units = ['B', 'KB', 'MB', 'GB', 'TB'];
  let v = n;
  let u = 0;
  while (v >= 1024 && u < units.length - 1) {
    v /= 1024;
    u += 1;
  }
  return u === 0 ? `${n} B` : `${v.toFixed(1)} ${units[u]}`;
}
