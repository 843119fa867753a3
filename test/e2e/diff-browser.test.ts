// The changes page of `numintel diff --html` in a real browser (headless Chromium): it loads with
// no script and no request beyond the file itself, a hostile file name stays text, every count is
// the one `diff -f json` gives, and each count and its share read as separate words.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumPresent, launchChromium, openPage } from '../support/browser.js';
import { requireBuiltCli, runCli } from '../support/cli.js';
import { tempDir } from '../support/tmp.js';

const present = chromiumPresent('the changes page');
let browser: Browser | undefined;
let dir: string;

beforeAll(async () => {
  if (!present) return;
  requireBuiltCli();
  dir = tempDir('numintel-diff-browser-');
  browser = await launchChromium();
}, 60_000);

afterAll(async () => {
  await browser?.close();
});

interface Read {
  chart: Record<string, number>;
  facts: Record<string, string>;
  lists: Record<string, { count: number; numbers: string[] }>;
  scripts: number;
}

// Each chart row's count as shown, checked against its data-count; each fact's figure as the
// reader sees it; each list of numbers to act on.
const READ_PAGE = `(() => {
  const chart = {};
  for (const row of document.querySelectorAll('table.chart tbody tr')) {
    const shown = Number((row.cells[1]?.textContent ?? '').replace(/,/g, ''));
    if (String(shown) !== row.dataset.count) throw new Error('row ' + row.dataset.key + ' shows ' + shown + ', data-count ' + row.dataset.count);
    chart[row.dataset.key] = shown;
  }
  const facts = {};
  for (const li of document.querySelectorAll('[data-fact]')) facts[li.dataset.fact] = li.querySelector('.v').innerText;
  const lists = {};
  for (const h of document.querySelectorAll('h3[data-kind]')) {
    const ul = document.querySelector('ul.numbers[data-kind="' + h.dataset.kind + '"]');
    lists[h.dataset.kind] = { count: Number(h.dataset.count), numbers: [...ul.querySelectorAll('li:not(.note)')].map((li) => li.innerText) };
  }
  return { chart, facts, lists, scripts: document.scripts.length };
})()`;

describe.skipIf(!present)('the changes page in Chromium', () => {
  it('shows the figures of diff -f json, counts and shares apart; a hostile file name stays text', async () => {
    const header = 'input,number,lrn_lrn,lrn_carrier,lrn_carrier_type,lrn_error,trust_is_spam,trust_reputation_score,trust_trust_level,trust_error';
    const row = (n: number, lrn: number, type: string, spam: boolean, score: number) => `${n},${n},${lrn},Verizon Wireless,${type},,${spam},${score},high,`;
    const numbers = Array.from({ length: 120 }, (_, i) => 12015550000 + i);
    const before = numbers.map((n) => row(n, n, 'WIRELESS', false, 80));
    // After: every 7th ported, every 11th landline now, every 13th flagged, the last 3 gone, 2 new.
    const after = numbers.slice(0, -3).map((n, i) => row(n, i % 7 === 0 ? n + 1 : n, i % 11 === 0 ? 'LANDLINE' : 'WIRELESS', i % 13 === 0, 80));
    after.push(row(12015559998, 12015559998, 'VOIP', false, 80), row(12015559999, 12015559999, 'VOIP', false, 80));
    const b = join(dir, 'march <img src=x onerror=alert(1)> &amp;.csv');
    const a = join(dir, 'april.csv');
    writeFileSync(b, `${header}\n${before.join('\n')}\n`);
    writeFileSync(a, `${header}\n${after.join('\n')}\n`);
    const html = join(dir, 'changes.html');
    const run = await runCli(['diff', b, a, '--html', html, '-f', 'json', '--first', '5']);
    expect(run.code, run.stderr).toBe(0);
    const json = JSON.parse(run.stdout) as { matched: number; unchanged: number; changed: number; kinds: Record<string, number>; numbers: Record<string, string[]> };
    const page = await openPage<Read>(browser as Browser, html, READ_PAGE);
    expect(page.errors).toEqual([]);
    expect(page.requests).toEqual([pathToFileURL(html).href]);
    expect(page.dialogs).toBe(0);
    expect(page.read.scripts).toBe(0);
    expect(page.text).toContain('march <img src=x onerror=alert(1)> &amp;.csv');
    expect(page.read.chart).toEqual(json.kinds);
    expect(json.kinds).toMatchObject({ ported: 17, line_type: 11, flagged: 9, removed: 3, added: 2 });
    // Each list: the count of its kind, the first numbers of diff -f json.
    const changedKinds = Object.keys(json.kinds).filter((k) => (json.kinds[k] ?? 0) > 0);
    expect(Object.keys(page.read.lists)).toEqual(changedKinds);
    for (const k of changedKinds) expect(page.read.lists[k]).toEqual({ count: json.kinds[k], numbers: json.numbers[k] });
    // A count and its share read apart: "117 (95.9%)", never "11795.9%".
    const all = json.matched + (json.kinds.added ?? 0) + (json.kinds.removed ?? 0);
    const share = (n: number, of: number) => `${((n / of) * 100).toFixed(1)}%`;
    expect(page.read.facts.matched).toBe(`${json.matched} (${share(json.matched, all)})`);
    expect(page.read.facts.unchanged).toBe(`${json.unchanged} (${share(json.unchanged, json.matched)})`);
    for (const figure of Object.values(page.read.facts)) expect(figure).toMatch(/^[\d,]+( \(\d+\.\d%\))?$/);
    expect(page.text).toContain(`${json.changed} (${share(json.changed, all)})\nchanged, came or went`);
    expect(page.text).toMatch(new RegExp(`ported \\(LRN changed or activated later\\)\\t17\\t${share(17, all).replace('.', '\\.')}`));
    expect(page.text).not.toMatch(/\d\d{3,}\.\d%/);
  });

  it('--only: the page shows those kinds; the page may not replace an input', async () => {
    const b = join(dir, 'april.csv');
    const html = join(dir, 'only.html');
    const run = await runCli(['diff', join(dir, 'march <img src=x onerror=alert(1)> &amp;.csv'), b, '--html', html, '--only', 'ported,removed']);
    expect(run.code, run.stderr).toBe(0);
    const page = await openPage<Read>(browser as Browser, html, READ_PAGE);
    expect(Object.keys(page.read.chart)).toEqual(['ported', 'removed']);
    expect(page.text).toContain('Only ported, removed.');
    const refused = await runCli(['diff', join(dir, 'march <img src=x onerror=alert(1)> &amp;.csv'), b, '--html', b]);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(/^numintel: /);
  });
});
