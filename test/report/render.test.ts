// The renderings of the fixture's report: text at 80 and 120 columns (aligned, within the width,
// colour only when asked), and HTML in which hostile text from the service stays text.
import { describe, expect, it } from 'vitest';
import { ReportAccumulator } from '../../src/report/accumulator.js';
import { recordFacts } from '../../src/report/facts.js';
import { esc, renderHtml } from '../../src/report/render-html.js';
import { renderText } from '../../src/report/render-text.js';
import type { Report } from '../../src/report/report.js';
import { AS_OF, HOSTILE_CARRIER, HOSTILE_NAME, RECORDS } from './fixture.js';

function fixtureReport(name = 'leads.csv'): Report {
  const acc = new ReportAccumulator({ asOf: AS_OF, source: 'csv', name, prices: { lrn: 0.0005 } });
  for (const r of RECORDS) {
    const facts = recordFacts(r);
    if (facts) acc.add(facts);
  }
  return acc.finish();
}

// oxlint-disable-next-line no-control-regex
const ANSI = /\x1b\[/;
/** A bar's last cell: 1/8 to 7/8 of a cell. */
const EIGHTHS = ['\u258f', '\u258e', '\u258d', '\u258c', '\u258b', '\u258a', '\u2589'];
// oxlint-disable-next-line no-control-regex
const strip = (s: string) => s.replace(/\x1b\[[0-9;]*m/g, '');

describe('text', () => {
  for (const width of [80, 120]) {
    it(`at ${width} columns: every line fits, figures and bars line up`, () => {
      const text = renderText(fixtureReport(), { width, color: false, unicode: true });
      const lines = text.split('\n');
      for (const line of lines) expect([...line].length, line).toBeLessThanOrEqual(width);
      expect(text).not.toMatch(ANSI);
      for (const title of ['Input', 'Cost', 'Numbers to act on', 'Line type', 'Porting', 'Carriers', 'States', 'Time zones', 'Messaging', 'Caller name (CNAM)', 'Trust']) {
        expect(lines).toContain(title);
      }
      expect(text).toMatch(/wireless or VoIP\s+4\s+50\.0%/);
      expect(text).toMatch(/ported\s+2\s+25\.0%/);
      // One cost table in dollars, prices and amounts to 4 decimals; only LRN has a price, and the note says what the total leaves out.
      expect(text).toMatch(/\n {4}lookup +billed +unit price +amount\n {4}LRN +7 +\$0\.0005 +\$0\.0035\n {4}CNAM +7 +no price +\u2013\n {4}Trust +7 +no price +\u2013\n {4}total +7 +\$0\.0035\n/);
      expect(text.replace(/\s+/g, ' ')).toContain('in USD; CNAM, Trust not in the total (no price).');
      // Caller names: real names, placeholders, none.
      expect(text).toMatch(/real name +4 +50\.0%\n {2}placeholder +2 +25\.0%\n {2}no name +2 +25\.0%/);
      // The chart of line types: label, count, share, then a bar as long as the share allows.
      const chart = lines.slice(lines.indexOf('  Numbers by line type') + 1, lines.indexOf('  Numbers by line type') + 6);
      expect(chart.map((l) => l.trim().split(/\s{2,}/).slice(0, 3))).toEqual([
        ['mobile (wireless)', '3', '37.5%'],
        ['landline', '2', '25.0%'],
        ['VoIP', '1', '12.5%'],
        ['toll-free', '1', '12.5%'],
        ['other', '1', '12.5%'],
      ]);
      // Counts right-aligned in one column, bars starting in one column, each as long as its share of the whole.
      const barStart = chart.map((l) => l.indexOf('\u2588'));
      expect(new Set(barStart).size).toBe(1);
      const room = Math.min(50, width - (4 + 17 + 2 + 1 + 2 + 6 + 2));
      const cells = (l: string) => [...l.slice(barStart[0])].reduce((n, ch) => n + (ch === '\u2588' ? 1 : (EIGHTHS.indexOf(ch) + 1) / 8), 0);
      for (const [i, share] of [0.375, 0.25, 0.125, 0.125, 0.125].entries()) expect(Math.abs(cells(chart[i] ?? '') - share * room)).toBeLessThanOrEqual(1 / 16);
      expect(text.replace(/\s+/g, ' ')).toContain('not legal advice');
      // Service text is shown as it is (it is data), cut with an ellipsis when too long.
      expect(text).toContain('<script>alert("carrier")');
    });
  }

  it('colour only when asked; # bars where block characters are not wanted', () => {
    const coloured = renderText(fixtureReport(), { width: 80, color: true, unicode: true });
    expect(coloured).toMatch(ANSI);
    expect(strip(coloured)).toBe(renderText(fixtureReport(), { width: 80, color: false, unicode: true }));
    const ascii = renderText(fixtureReport(), { width: 80, color: false, unicode: false });
    expect(ascii).not.toMatch(/[\u2580-\u259f]/);
    expect(ascii).toMatch(/mobile \(wireless\)\s+3\s+37\.5%\s+#+$/m);
  });

  it('control characters and escape sequences from the service are removed', () => {
    const acc = new ReportAccumulator({ asOf: AS_OF, source: 'jsonl' });
    const facts = recordFacts({ ...RECORDS[0], results: { ...RECORDS[0]?.results, lrn: { lrn: '1', enhanced_lrn_data: { carrier: 'Evil\x1b[31mRed\x07', carrier_type: 'WIRELESS' } } } });
    if (facts) acc.add(facts);
    const text = renderText(acc.finish(), { width: 80, color: false, unicode: true });
    expect(text).toContain('EvilRed');
    // oxlint-disable-next-line no-control-regex
    expect(text).not.toMatch(/[\x00-\x08\x1b]/);
  });
});

describe('HTML', () => {
  it('escapes every string from the input or the service', () => {
    const html = renderHtml(fixtureReport('<b>leads</b>".csv'));
    expect(html).not.toContain('<script');
    expect(html).not.toContain('<img');
    expect(html).not.toContain('<b>leads');
    expect(html).toContain(esc(HOSTILE_CARRIER));
    expect(html).toContain('&lt;script&gt;alert(&quot;carrier&quot;)&lt;/script&gt;');
    expect(html).toContain('&lt;b&gt;leads&lt;/b&gt;&quot;.csv');
    // In attributes too: the data-key of the carrier's bar cannot end its quotes.
    expect(html).toContain(`data-key="${esc(HOSTILE_CARRIER)}"`);
    expect(esc(HOSTILE_NAME)).toBe('&lt;img src=x onerror=alert(&#39;cnam&#39;)&gt; &amp; &quot;friends&quot;');
  });

  it('needs nothing from anywhere: no script, no external reference, a policy that forbids them', () => {
    const html = renderHtml(fixtureReport());
    expect(html).not.toMatch(/<script|<link(?![^>]*href="data:)|<img|@import|url\((?!#)|src=|https?:\/\/(?!www\.w3\.org)/i);
    expect(html).toContain(`content="default-src 'none'; style-src 'unsafe-inline'; img-src data:"`);
    expect(html).toContain('@media print');
  });

  it('every chart is a table of its numbers, and the states are also a map', () => {
    const html = renderHtml(fixtureReport());
    const counts = (chart: string) => {
      const table = new RegExp(`<table class="chart" data-chart="${chart}"[\\s\\S]*?</table>`).exec(html)?.[0] ?? '';
      return Object.fromEntries([...table.matchAll(/data-key="([^"]*)" data-count="(\d+)"/g)].map((m) => [m[1], Number(m[2])]));
    };
    expect(counts('line_type')).toEqual({ mobile: 3, landline: 2, voip: 1, toll_free: 1, other: 1 });
    expect(counts('states')).toEqual({ CA: 2, NJ: 2, NY: 2, IL: 1, TX: 1 });
    expect(html).toMatch(/<g data-state="NJ" data-count="2">/);
    expect(html).toMatch(/<g data-state="WY" data-count="0">/);
    expect(counts('reputation')).toEqual({ '0-9': 1, '10-19': 1, '20-29': 0, '30-39': 0, '40-49': 1, '50-59': 0, '60-69': 0, '70-79': 1, '80-89': 1, '90-100': 3 });
  });
});
