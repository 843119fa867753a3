// The report for a terminal (or a pipe): each section's figures aligned in columns, each chart a
// bar per row drawn with block characters (`#` where the output is not a Unicode terminal),
// everything within `width` columns. Colour only paints; the text is the same without it.
import { Chalk } from 'chalk';
import { stripControl } from '../output/sanitize.js';
import { textWidth } from '../output/wrap.js';
import { FOOTER, type Report } from './report.js';
import { percent, reportView, subtitle, type Chart, type Section, type Table } from './view.js';

export interface TextStyle {
  readonly width: number;
  readonly color: boolean;
  /** Block characters (a terminal); false draws bars with `#`. */
  readonly unicode: boolean;
}

const EIGHTHS = ['', '\u258f', '\u258e', '\u258d', '\u258c', '\u258b', '\u258a', '\u2589'];
const MAX_LABEL = 28;
const MAX_BAR = 50;

export function renderText(report: Report, style: TextStyle): string {
  const width = Math.max(40, style.width);
  const c = new Chalk({ level: style.color ? 1 : 0 });
  const out: string[] = [];
  out.push(c.bold('numintel report'));
  out.push(...wrap(clean(subtitle(report)), width));
  for (const s of reportView(report)) out.push('', ...section(s, width, style, c));
  out.push('', ...wrap(FOOTER, width).map((l) => c.dim(l)));
  return `${out.join('\n')}\n`;
}

function section(s: Section, width: number, style: TextStyle, c: InstanceType<typeof Chalk>): string[] {
  const lines = [c.bold.underline(s.title)];
  if (s.note) lines.push(...wrap(s.note, width - 2).map((l) => `  ${c.dim(l)}`));
  const labels = s.facts.map((f) => fit(f.label, MAX_LABEL));
  const lw = Math.max(0, ...labels.map(textWidth));
  const vw = Math.max(0, ...s.facts.map((f) => textWidth(f.value)));
  s.facts.forEach((f, i) => {
    const share = f.share === undefined ? '' : `  ${percent(f.share).padStart(6)}`;
    lines.push(`  ${pad(labels[i] ?? '', lw)}  ${f.value.padStart(vw)}${share}`);
  });
  for (const table of s.tables ?? []) lines.push(...drawTable(table, width, c));
  for (const chart of s.charts) lines.push(...drawChart(chart, width, style, c));
  return lines;
}

/** A table within `width`: the widest word columns cut (with an ellipsis) until it fits. */
function drawTable(t: Table, width: number, c: InstanceType<typeof Chalk>): string[] {
  const all = [t.columns.map((col) => col.label), ...t.rows.map((r) => r.cells.map(clean)), ...(t.foot ? [t.foot] : [])];
  const widths = t.columns.map((_, i) => Math.max(...all.map((cells) => textWidth(cells[i] ?? ''))));
  const room = width - 4 - 2 * (t.columns.length - 1);
  for (;;) {
    const over = widths.reduce((a, b) => a + b, 0) - room;
    if (over <= 0) break;
    // The widest column that may be cut; those to keep only when no other can give.
    let widest = -1;
    for (const keep of [false, true]) {
      t.columns.forEach((col, i) => {
        if (!col.numeric && (col.keep ?? false) === keep && (widths[i] ?? 0) > 6 && (widest < 0 || (widths[i] ?? 0) > (widths[widest] ?? 0))) widest = i;
      });
      if (widest >= 0) break;
    }
    if (widest < 0) break;
    widths[widest] = (widths[widest] ?? 0) - 1;
  }
  const line = (cells: readonly string[]) =>
    `    ${t.columns
      .map((col, i) => {
        const cell = fit(cells[i] ?? '', widths[i] ?? 0);
        return col.numeric ? ' '.repeat(Math.max(0, (widths[i] ?? 0) - textWidth(cell))) + cell : pad(cell, widths[i] ?? 0);
      })
      .join('  ')}`.trimEnd();
  const out = [c.dim(line(t.columns.map((col) => col.label))), ...t.rows.map((r) => line(r.cells.map(clean)))];
  if (t.foot) out.push(c.bold(line(t.foot)));
  if (t.after) out.push(...wrap(t.after, width - 4).map((l) => `    ${l}`));
  return out;
}

function drawChart(chart: Chart, width: number, style: TextStyle, c: InstanceType<typeof Chalk>): string[] {
  const lines = [`  ${c.bold(chart.title)}`];
  const labels = chart.bars.map((b) => fit(clean(b.label), Math.min(MAX_LABEL, Math.floor(width / 3))));
  const lw = Math.max(...labels.map(textWidth));
  const cw = Math.max(...chart.bars.map((b) => b.count.toLocaleString('en-US').length));
  // indent 4, label, 2, count, 2, percent (6), 2, bar
  const room = Math.min(MAX_BAR, width - (4 + lw + 2 + cw + 2 + 6 + 2));
  chart.bars.forEach((b, i) => {
    // The full width is the whole (100%): a bar is as long as its share.
    const bar = drawBar(b.share * Math.max(1, room), style.unicode);
    lines.push(`    ${pad(labels[i] ?? '', lw)}  ${b.count.toLocaleString('en-US').padStart(cw)}  ${percent(b.share).padStart(6)}  ${c.cyan(bar)}`.trimEnd());
  });
  return lines;
}

function drawBar(cells: number, unicode: boolean): string {
  if (!unicode) return '#'.repeat(Math.round(cells));
  const whole = Math.floor(cells);
  const eighths = Math.round((cells - whole) * 8);
  const bar = '\u2588'.repeat(whole) + (eighths === 8 ? '\u2588' : (EIGHTHS[eighths] ?? ''));
  // A share above zero always shows something.
  return bar === '' && cells > 0 ? '\u258f' : bar;
}

const clean = (s: string) => stripControl(s);

function fit(s: string, max: number): string {
  const chars = [...s];
  return chars.length <= max ? s : `${chars.slice(0, max - 1).join('')}\u2026`;
}

function pad(s: string, w: number): string {
  return s + ' '.repeat(Math.max(0, w - textWidth(s)));
}

function wrap(s: string, width: number): string[] {
  const out: string[] = [];
  let line = '';
  for (const word of s.split(' ')) {
    const next = line === '' ? word : `${line} ${word}`;
    if (textWidth(next) > width && line !== '') {
      out.push(line);
      line = word;
    } else line = next;
  }
  if (line !== '') out.push(line);
  return out.map((l) => fit(l, width));
}
