// The changes page of `numintel diff --html`: the report's page (its styles, facts and chart
// tables, see report/render-html.ts) with the figures of one diff: how many numbers matched and
// changed, a chart of the change kinds, and the first numbers of each kind to act on.
import { chartHtml, esc, factHtml, pageHtml } from '../report/render-html.js';
import { FOOTER } from '../report/report.js';
import { ratio, type Chart, type Fact } from '../report/view.js';
import { CHANGE_KINDS, type ChangeKind } from './compare.js';
import type { DiffFigures } from './diff.js';

export interface DiffFile {
  readonly name: string;
  readonly format: string;
}

export interface DiffPage {
  readonly files: { readonly before: DiffFile; readonly after: DiffFile };
  readonly figures: DiffFigures;
  readonly scoreDelta: number;
  /** The kinds asked for (--only); all when undefined. */
  readonly only?: ReadonlySet<ChangeKind>;
}

function kindLabel(kind: ChangeKind, scoreDelta: number): string {
  const labels: Record<ChangeKind, string> = {
    ported: 'ported (LRN changed or activated later)',
    carrier: 'carrier changed',
    line_type: 'line type changed',
    messaging: 'messaging provider changed',
    caller_name: 'caller name changed',
    flagged: 'newly flagged (spam, robocall or scam)',
    unflagged: 'no longer flagged',
    trust_level: 'trust level changed',
    score: `reputation score moved by ${scoreDelta} or more`,
    added: 'only in the after file',
    removed: 'only in the before file',
    failed: 'a lookup failed in one run only',
  };
  return labels[kind];
}

/** The lists of numbers to act on, in the report's tabular figures. */
const CSS = `
ul.numbers{display:flex;flex-wrap:wrap;gap:2px 16px;list-style:none;padding:0;margin:0 0 6px;font-variant-numeric:tabular-nums}
`;

const int = (n: number) => n.toLocaleString('en-US');
const fact = (key: string, label: string, count: number, of?: number): Fact => ({ key, label, value: int(count), ...(of === undefined ? {} : { share: ratio(count, of) }) });

export function renderDiffHtml(page: DiffPage): string {
  const { files, figures: f, scoreDelta, only } = page;
  // Every number of either file: what each kind's share is of.
  const all = f.matched + f.kinds.added + f.kinds.removed;
  const kinds = CHANGE_KINDS.filter((k) => !only || only.has(k));
  const overview = [
    fact('before', `numbers in ${files.before.name}`, f.before.numbers),
    fact('after', `numbers in ${files.after.name}`, f.after.numbers),
    fact('matched', 'in both', f.matched, all),
    fact('unchanged', 'in both, unchanged', f.unchanged, f.matched),
    fact('changed', 'changed, came or went', f.changed, all),
  ];
  const chart: Chart = { id: 'kinds', title: 'Numbers by change kind (one number can show several)', base: all, bars: kinds.map((k) => ({ key: k, label: kindLabel(k, scoreDelta), count: f.kinds[k], share: ratio(f.kinds[k], all) })) };
  const actOn = kinds.filter((k) => f.kinds[k] > 0).map((k) => actOnHtml(k, kindLabel(k, scoreDelta), f.kinds[k], f.numbers[k]));
  const body = [
    `<section id="overview" data-section="overview"><h2>Numbers</h2><ul class="facts">${overview.map(factHtml).join('')}</ul></section>`,
    `<section id="kinds" data-section="kinds"><h2>What changed</h2>${only ? `<p class="note">${esc(`Only ${kinds.join(', ')}.`)}</p>` : ''}\n${chartHtml(chart)}\n</section>`,
    `<section id="act_on" data-section="act_on" class="wide"><h2>To act on</h2>${
      actOn.length > 0 ? `<p class="note">The first numbers of each kind; every changed number, its values before and after, is in diff -o changes.csv.</p>\n${actOn.join('\n')}` : '<p class="note">Nothing changed.</p>'
    }</section>`,
  ].join('\n');
  const subtitle = `From ${files.before.name} (${files.before.format}) to ${files.after.name} (${files.after.format}); a reputation score move counts from ${scoreDelta}.`;
  return pageHtml({ title: `numintel changes \u2014 ${files.before.name} to ${files.after.name}`, heading: 'numintel changes', subtitle, body, footer: FOOTER, css: CSS });
}

function actOnHtml(kind: ChangeKind, label: string, count: number, numbers: readonly string[]): string {
  const more = count - numbers.length;
  const items = numbers.map((n) => `<li>${esc(n)}</li>`).join('');
  return `<h3 data-kind="${esc(kind)}" data-count="${count}">${esc(label)}: ${esc(int(count))} ${count === 1 ? 'number' : 'numbers'}</h3>
<ul class="numbers" data-kind="${esc(kind)}">${items}${more > 0 ? `<li class="note">\u2026 ${esc(int(more))} more</li>` : ''}</ul>`;
}
