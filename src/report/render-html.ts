// The report as one self-contained HTML page: inline CSS and SVG, no script, no font, no image
// from anywhere (a Content-Security-Policy says so to the browser too). Every chart is also a
// table of its numbers, every bar is labelled with its count and share, and nothing depends on
// colour. Every piece of text from the input or the service goes through `esc`.
import { FOOTER, type Report } from './report.js';
import { STATE_TILES } from './tile-map.js';
import { percent, reportView, subtitle, type Chart, type Fact, type Section, type Table } from './view.js';

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Text made safe for HTML content and quoted attribute values alike. */
export function esc(value: string | number): string {
  return String(value).replace(/[&<>"']/g, (ch) => ESCAPES[ch] ?? ch);
}

/** The report's styles, shared with the other pages numintel writes (diff's changes page). */
export const CSS = `
:root{--ink:#1b1f24;--muted:#5b6470;--line:#d5d9de;--bar:#2f6fb0;--bg:#fff;--soft:#f4f6f8}
*{box-sizing:border-box}
body{margin:0;font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif;color:var(--ink);background:var(--bg)}
main{max-width:1080px;margin:0 auto;padding:28px 24px 40px}
header h1{font-size:26px;margin:0 0 4px}
header p{margin:0;color:var(--muted)}
.sections{display:grid;grid-template-columns:repeat(auto-fit,minmax(460px,1fr));grid-auto-flow:row dense;gap:18px;margin-top:22px}
section{border:1px solid var(--line);border-radius:8px;padding:16px 18px;break-inside:avoid;page-break-inside:avoid}
section.wide{grid-column:1/-1}
h2{font-size:18px;margin:0 0 2px}
h3{font-size:14px;margin:14px 0 6px;color:var(--muted);font-weight:600}
.note{color:var(--muted);font-size:13px;margin:0 0 10px}
.facts{display:flex;flex-wrap:wrap;gap:10px;margin:8px 0 4px;padding:0;list-style:none}
.facts li{background:var(--soft);border:1px solid var(--line);border-radius:6px;padding:6px 10px;min-width:120px}
.facts .v{display:block;font-size:20px;font-weight:700;font-variant-numeric:tabular-nums}
.facts .l{font-size:12px;color:var(--muted)}
.facts .s{font-size:13px;font-weight:600}
table{border-collapse:collapse;width:100%;font-variant-numeric:tabular-nums}
th,td{padding:3px 6px;text-align:left;vertical-align:middle;border-bottom:1px solid var(--soft)}
td.n,th.n{text-align:right;white-space:nowrap;width:1%}
tbody th{font-weight:500;max-width:260px;overflow-wrap:anywhere}
tfoot th,tfoot td{font-weight:700;border-top:1px solid var(--line)}
thead th{font-size:12px;color:var(--muted);font-weight:600;border-bottom:1px solid var(--line)}
td.bar{width:45%}
td.bar svg{display:block;width:100%;height:14px}
.sr{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0)}
.map svg{width:100%;max-width:640px;height:auto;display:block;margin:4px auto}
.map text{font:600 11px system-ui,sans-serif}
footer{margin-top:22px;color:var(--muted);font-size:13px;border-top:1px solid var(--line);padding-top:10px}
@media print{
  body{font-size:11pt;color:#000}
  main{max-width:none;padding:0}
  .sections{display:block}
  section{margin:0 0 12pt;border-color:#999}
  .facts li{background:none}
  @page{margin:14mm}
}
`;

export function renderHtml(report: Report): string {
  const sections = reportView(report);
  const body = sections.map((s) => sectionHtml(s, report)).join('\n');
  return pageHtml({
    title: `numintel report${report.source.name ? ` \u2014 ${report.source.name}` : ''}`,
    heading: 'numintel report',
    subtitle: subtitle(report),
    body,
    footer: FOOTER,
    after: PATTERNS,
  });
}

// Hatching shared by the stacked line-type bar, so its parts differ without colour.
const PATTERN_IDS = ['p0', 'p1', 'p2', 'p3', 'p4', 'p5'];
const PATTERNS = `<svg width="0" height="0" style="position:absolute" aria-hidden="true"><defs>
<pattern id="p0" width="6" height="6" patternUnits="userSpaceOnUse"><rect width="6" height="6" fill="#2f6fb0"/></pattern>
<pattern id="p1" width="6" height="6" patternUnits="userSpaceOnUse"><rect width="6" height="6" fill="#9cc3e6"/><path d="M0 6L6 0" stroke="#1b1f24" stroke-width="1.2"/></pattern>
<pattern id="p2" width="6" height="6" patternUnits="userSpaceOnUse"><rect width="6" height="6" fill="#e8a33d"/><circle cx="3" cy="3" r="1.3" fill="#1b1f24"/></pattern>
<pattern id="p3" width="6" height="6" patternUnits="userSpaceOnUse"><rect width="6" height="6" fill="#6bb36b"/><path d="M0 3H6" stroke="#1b1f24" stroke-width="1.2"/></pattern>
<pattern id="p4" width="6" height="6" patternUnits="userSpaceOnUse"><rect width="6" height="6" fill="#d0d4d9"/><path d="M3 0V6" stroke="#1b1f24" stroke-width="1.2"/></pattern>
<pattern id="p5" width="6" height="6" patternUnits="userSpaceOnUse"><rect width="6" height="6" fill="#fff"/><path d="M0 0L6 6M6 0L0 6" stroke="#1b1f24" stroke-width="1"/></pattern>
</defs></svg>`;

function sectionHtml(s: Section, report: Report): string {
  const wide = s.id === 'states' || s.id === 'input' || s.id === 'act_on';
  const parts = [`<section id="${esc(s.id)}" data-section="${esc(s.id)}"${wide ? ' class="wide"' : ''}>`, `<h2>${esc(s.title)}</h2>`];
  if (s.note) parts.push(`<p class="note">${esc(s.note)}</p>`);
  if (s.facts.length > 0) parts.push(`<ul class="facts">${s.facts.map(factHtml).join('')}</ul>`);
  if (s.id === 'line_type') {
    const chart = s.charts[0];
    if (chart) parts.push(stackedBar(chart));
  }
  for (const table of s.tables ?? []) parts.push(tableHtml(table));
  if (s.id === 'states' && report.states) parts.push(stateMap(report.states.all, report.states.base));
  for (const chart of s.charts) parts.push(chartHtml(s.id === 'states' && report.states ? allStates(chart, report.states.all) : chart));
  parts.push('</section>');
  return parts.join('\n');
}

export function factHtml(f: Fact): string {
  // A space and brackets of its own, so the count and its share read apart ("32 (56.1%)") to a
  // screen reader and in copied text, not run together.
  const share = f.share === undefined ? '' : ` <span class="s">(${esc(percent(f.share))})</span>`;
  return `<li data-fact="${esc(f.key)}" data-value="${esc(f.value)}"><span class="v">${esc(f.value)}${share}</span><span class="l">${esc(f.label)}</span></li>`;
}

/** In the page the states table lists every state, not only the top ten. */
function allStates(chart: Chart, all: Record<string, number>): Chart {
  return { ...chart, title: 'Numbers by state', bars: Object.entries(all).map(([key, count]) => ({ key, label: key, count, share: chart.base ? count / chart.base : 0 })) };
}

function tableHtml(t: Table): string {
  const cell = (tag: 'td' | 'th', text: string, numeric: boolean | undefined, extra = '') => `<${tag}${extra}${numeric ? ' class="n"' : ''}>${esc(text)}</${tag}>`;
  const head = t.columns.map((col) => cell('th', col.label, col.numeric, ' scope="col"')).join('');
  const rows = t.rows.map((r) => `<tr data-key="${esc(r.key)}">${r.cells.map((text, i) => cell(i === 0 ? 'th' : 'td', text, t.columns[i]?.numeric, i === 0 ? ' scope="row"' : '')).join('')}</tr>`).join('\n');
  const foot = t.foot ? `\n<tfoot><tr>${t.foot.map((text, i) => cell(i === 0 ? 'th' : 'td', text, t.columns[i]?.numeric, i === 0 ? ' scope="row"' : '')).join('')}</tr></tfoot>` : '';
  const after = t.after ? `\n<p class="note">${esc(t.after)}</p>` : '';
  return `<table class="data" data-table="${esc(t.id)}"${t.value === undefined ? '' : ` data-value="${esc(t.value)}"`}>
<thead><tr>${head}</tr></thead>
<tbody>
${rows}
</tbody>${foot}
</table>${after}`;
}

export function chartHtml(chart: Chart): string {
  const rows = chart.bars
    .map((b) => {
      // The full width is the whole (100%): a bar is as long as its share.
      const w = Math.min(1, Math.max(0, b.share)) * 100;
      return `<tr data-key="${esc(b.key)}" data-count="${b.count}"><th scope="row">${esc(b.label)}</th><td class="n">${b.count.toLocaleString('en-US')}</td><td class="n">${esc(percent(b.share))}</td><td class="bar"><svg viewBox="0 0 100 10" preserveAspectRatio="none" role="img" aria-label="${esc(`${b.label}: ${b.count}`)}"><rect x="0" y="1" width="${w.toFixed(2)}" height="8" fill="#2f6fb0" stroke="#1b1f24" stroke-width="0.3" vector-effect="non-scaling-stroke"/></svg></td></tr>`;
    })
    .join('\n');
  return `<h3>${esc(chart.title)}</h3>
<table class="chart" data-chart="${esc(chart.id)}" data-base="${chart.base}">
<thead><tr><th scope="col">${esc(chart.histogram ? 'range' : 'value')}</th><th scope="col" class="n">count</th><th scope="col" class="n">share</th><th scope="col"><span class="sr">bar</span></th></tr></thead>
<tbody>
${rows}
</tbody>
</table>`;
}

/** One bar of 100% split by line type, each part hatched differently and labelled in the legend. */
function stackedBar(chart: Chart): string {
  let x = 0;
  const parts = chart.bars
    .filter((b) => b.count > 0)
    .map((b, i) => {
      const w = b.share * 1000;
      const rect = `<rect x="${x.toFixed(1)}" y="0" width="${w.toFixed(1)}" height="40" fill="url(#${PATTERN_IDS[i % PATTERN_IDS.length]})" stroke="#1b1f24" stroke-width="1"><title>${esc(`${b.label}: ${b.count} (${percent(b.share)})`)}</title></rect>`;
      const label = w > 150 ? `<text x="${(x + w / 2).toFixed(1)}" y="72" text-anchor="middle" font-size="26">${esc(`${b.label} ${percent(b.share)}`)}</text>` : '';
      x += w;
      return rect + label;
    })
    .join('');
  return `<svg viewBox="0 0 1000 82" width="100%" role="img" aria-label="line type shares" style="display:block;margin:6px 0">${parts}</svg>`;
}

function stateMap(all: Record<string, number>, base: number): string {
  const most = Math.max(0, ...Object.values(all));
  const size = 50;
  const gap = 4;
  const tiles = Object.entries(STATE_TILES)
    .map(([state, [col, row]]) => {
      const n = all[state] ?? 0;
      // Darker for more; the count is written in the tile, so the shade is only a help.
      const level = n === 0 || most === 0 ? 0 : 0.15 + 0.85 * (n / most);
      const fill = n === 0 ? '#fff' : `rgba(47,111,176,${level.toFixed(3)})`;
      const ink = level > 0.55 ? '#fff' : '#1b1f24';
      const x = col * (size + gap);
      const y = row * (size + gap);
      return `<g data-state="${esc(state)}" data-count="${n}"><rect x="${x}" y="${y}" width="${size}" height="${size}" rx="4" fill="${fill}" stroke="#5b6470" stroke-width="1"${n === 0 ? ' stroke-dasharray="3 3"' : ''}><title>${esc(`${state}: ${n}`)}</title></rect><text x="${x + size / 2}" y="${y + 21}" text-anchor="middle" fill="${ink}">${esc(state)}</text><text x="${x + size / 2}" y="${y + 38}" text-anchor="middle" fill="${ink}" font-weight="400">${n > 0 ? esc(n.toLocaleString('en-US')) : '\u2013'}</text></g>`;
    })
    .join('');
  const width = 12 * (size + gap);
  const height = 8 * (size + gap);
  return `<div class="map"><h3>Map of numbers by state (${esc(base.toLocaleString('en-US'))} ${base === 1 ? 'number' : 'numbers'}; darker = more, dashed = none)</h3><svg viewBox="0 0 ${width} ${height}" role="img" aria-label="numbers by state">${tiles}</svg></div>`;
}

/**
 * A self-contained page in the report's style around `body` (sections in a `.sections` grid): the
 * same head, policy and styles, for the other pages numintel writes (diff's changes page).
 */
export function pageHtml(page: { title: string; heading: string; subtitle: string; body: string; footer: string; css?: string; after?: string }): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="data:,">
<title>${esc(page.title)}</title>
<style>${CSS}${page.css ?? ''}</style>
</head>
<body>
<main>
<header><h1>${esc(page.heading)}</h1><p>${esc(page.subtitle)}</p></header>
<div class="sections">
${page.body}
</div>
<footer><p>${esc(page.footer)}</p></footer>
</main>
${page.after ?? ''}
</body>
</html>
`;
}
