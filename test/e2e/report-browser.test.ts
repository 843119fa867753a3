// The HTML report in a real browser (headless Chromium, Debian's `chromium` package): it loads
// with no script error and no request beyond the file itself, hostile text from the service stays
// text, and the numbers the page shows are those of `report -f json`. A screenshot is saved for a
// person to look at (NUMINTEL_REPORT_SCREENSHOT, else a file in the temp directory, named in the log).
import { readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Report } from '../../src/report/report.js';
import { chartsFromJson } from '../report/charts-from-json.js';
import { HOSTILE_CARRIER, RECORDS, written } from '../report/fixture.js';
import { chromiumPresent, launchChromium, openPage } from '../support/browser.js';
import { requireBuiltCli, runCli } from '../support/cli.js';
import { tempDir } from '../support/tmp.js';

const present = chromiumPresent('the HTML report');

let browser: Browser | undefined;
let dir: string;

beforeAll(async () => {
  if (!present) return;
  requireBuiltCli();
  dir = tempDir('numintel-browser-');
  browser = await launchChromium();
}, 60_000);

afterAll(async () => {
  await browser?.close();
});

interface Opened {
  requests: string[];
  errors: string[];
  dialogs: number;
  charts: Record<string, Record<string, number>>;
  facts: Record<string, string>;
  /** Each fact's figure as the reader sees it (innerText): its count, and its share when it has one. */
  figures: Record<string, string>;
  scripts: number;
  text: string;
  /** Each table of words and figures (cost, numbers to act on): its rows' cells as innerText. */
  tables: Record<string, string[][]>;
  /** Each chart row as innerText. */
  chartRows: string[];
  print: { layout: string; breaks: string; pdfBytes: number };
}

// Runs in the page (a string: this project's TypeScript has no DOM types). Each chart's numbers as
// the reader sees them in its table, checked against the row's data-count; the facts; scripts.
const READ_PAGE = `(() => {
  const charts = {};
  for (const table of document.querySelectorAll('table.chart')) {
    const counts = {};
    for (const row of table.querySelectorAll('tbody tr')) {
      const shown = Number((row.cells[1]?.textContent ?? '').replace(/,/g, ''));
      if (String(shown) !== row.dataset.count) throw new Error('row ' + row.dataset.key + ' shows ' + shown + ', data-count ' + row.dataset.count);
      counts[row.dataset.key] = shown;
    }
    charts[table.dataset.chart] = counts;
  }
  const facts = {};
  const figures = {};
  for (const li of document.querySelectorAll('[data-fact]')) {
    facts[li.dataset.fact] = li.dataset.value;
    figures[li.dataset.fact] = li.querySelector('.v').innerText;
  }
  const tables = {};
  for (const t of document.querySelectorAll('table.data')) tables[t.dataset.table] = [...t.rows].map((r) => [...r.cells].map((c) => c.innerText));
  const chartRows = [...document.querySelectorAll('table.chart tbody tr')].map((r) => r.innerText);
  return { charts, facts, figures, tables, chartRows, scripts: document.scripts.length, text: document.body.innerText };
})()`;

/** Opens a page and reads back what it shows, with everything it asked for and complained about. */
async function open(path: string, screenshot?: string): Promise<Opened> {
  type Read = Pick<Opened, 'charts' | 'facts' | 'figures' | 'scripts' | 'text' | 'tables' | 'chartRows'>;
  const opened = await openPage<Read, Opened['print']>(browser as Browser, path, READ_PAGE, {
    screenshot,
    // On paper: one column of sections, none split across pages, and the page prints.
    after: async (page) => {
      await page.emulateMedia({ media: 'print' });
      const print = (await page.evaluate(
        `({ layout: getComputedStyle(document.querySelector('.sections')).display, breaks: getComputedStyle(document.querySelector('section')).breakInside })`,
      )) as { layout: string; breaks: string };
      const pdf = await page.pdf({ format: 'Letter' });
      return { ...print, pdfBytes: pdf.length };
    },
  });
  return { requests: opened.requests, errors: opened.errors, dialogs: opened.dialogs, print: opened.after, ...opened.read };
}

describe.skipIf(!present)('the HTML report in Chromium', () => {
  it('hostile service text stays text; no request, no error; every chart as report -f json says', async () => {
    const csv = join(dir, 'hostile.csv');
    writeFileSync(csv, await written(RECORDS, 'csv', ['lrn', 'cnam', 'trust']));
    const html = join(dir, 'hostile.html');
    const run = await runCli(['report', csv, '--html', html, '-f', 'json', '--as-of', '2026-01-31', '--price', 'lrn=0.0005,cnam=0.006', '--currency', 'EUR']);
    expect(run.code).toBe(0);
    const report = JSON.parse(run.stdout) as Report;
    const page = await open(html);
    expect(page.errors).toEqual([]);
    expect(page.requests).toEqual([pathToFileURL(html).href]);
    expect(page.dialogs).toBe(0);
    expect(page.scripts).toBe(0);
    expect(page.text).toContain(HOSTILE_CARRIER);
    expect(page.charts).toEqual(chartsFromJson(report));
    expect(page.facts.rows).toBe(String(report.input.rows));
    expect(page.facts.ported).toBe(String(report.porting?.ported));
    expect(page.facts.wireless_or_voip).toBe(String(report.line_type?.wireless_or_voip));
    // A count and its share read apart, as a screen reader and copied text take them: "32 (56.1%)", never "3256.1%".
    const share = (n: number, of: number) => `${((n / of) * 100).toFixed(1)}%`;
    const porting = report.porting!;
    expect(page.figures.ported).toBe(`${porting.ported} (${share(porting.ported, porting.base)})`);
    expect(page.text).toContain(`${porting.ported} (${share(porting.ported, porting.base)})\nported`);
    for (const figure of Object.values(page.figures)) expect(figure).toMatch(/^[\d,]+( \(\d+\.\d%\))?$/);
    expect(Object.values(page.figures).filter((f) => f.includes('%')).length).toBeGreaterThan(3);
    expect(page.text).not.toMatch(/\d\d{3,}\.\d%/);
    // The caller names, new figures with shares, read apart too.
    const cnam = report.cnam!;
    expect(page.figures.real_name).toBe(`${cnam.real} (${share(cnam.real ?? 0, cnam.base)})`);
    expect(page.figures.placeholder).toBe(`${cnam.placeholder} (${share(cnam.placeholder ?? 0, cnam.base)})`);
    expect(page.text).toContain(`${cnam.placeholder} (${share(cnam.placeholder ?? 0, cnam.base)})\nplaceholder`);
    // In every chart row the count and the share are words of their own.
    for (const row of page.chartRows) expect(row).toMatch(/(^|\s)[\d,]+\s+\d+\.\d%(\s|$)/);
    // One cost table in euros, prices and amounts to 4 decimals (the amounts add up to the total).
    expect(page.tables.cost).toEqual([
      ['lookup', 'billed', 'unit price', 'amount'],
      ['LRN', '7', '\u20ac0.0005', '\u20ac0.0035'],
      ['CNAM', '7', '\u20ac0.0060', '\u20ac0.0420'],
      ['Trust', '7', 'no price', '\u2013'],
      ['total', '14', '', '\u20ac0.0455'],
    ]);
    // The numbers to act on, the most severe first, each cell its own word.
    expect(page.tables.act_on?.map((r) => r.slice(0, 3))).toEqual([
      ['row', 'number', 'why'],
      ['5', '13105550005', 'scam, low trust'],
      ['3', '12125550003', 'robocall'],
      ['2', '12015550002', 'spam, low trust, ported 20 days ago'],
    ]);
    expect(page.print.layout).toBe('block');
    expect(page.print.breaks).toBe('avoid');
    expect(page.print.pdfBytes).toBeGreaterThan(10_000);
  });

  it('the report of a sandbox run of the sample contacts, with a screenshot', async () => {
    const out = join(dir, 'contacts.enriched.csv');
    await runCli(['enrich', 'samples/contacts.csv', '--sandbox', '--enhanced', '--messaging', '--spam', '-o', out, '-q']);
    const html = join(dir, 'contacts.html');
    const run = await runCli(['report', out, '--html', html, '-f', 'json', '--as-of', '2026-11-22', '--price', 'lrn=0.0005,cnam=0.006,trust=0.002']);
    expect(run.code).toBe(0);
    const report = JSON.parse(run.stdout) as Report;
    const shot = process.env.NUMINTEL_REPORT_SCREENSHOT ?? join(tmpdir(), 'numintel-report-screenshot.png');
    const page = await open(html, shot);
    expect(page.errors).toEqual([]);
    expect(page.requests).toEqual([pathToFileURL(html).href]);
    expect(page.charts).toEqual(chartsFromJson(report));
    expect(Object.keys(page.charts)).toEqual(expect.arrayContaining(['line_type', 'activated', 'carriers', 'states', 'time_zones', 'providers', 'cnam_spam', 'trust_levels', 'reputation']));
    expect(readFileSync(shot).subarray(1, 4).toString()).toBe('PNG');
    console.log(`screenshot of the HTML report: ${shot}`);
  }, 30_000);
});
