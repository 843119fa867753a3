// Headless Chromium (Debian's `chromium` package) for the tests of numintel's HTML pages: a page
// opened from its file, with every request it made, every script error or warning and dialog, and
// what a script run in it read back (its text as the reader sees it: innerText).
import { existsSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { chromium, type Browser } from 'playwright-core';

export const CHROMIUM = '/usr/bin/chromium';

/** Whether Chromium is here; on CI its absence is an error, elsewhere the browser tests are skipped with a word. */
export function chromiumPresent(what: string): boolean {
  const present = existsSync(CHROMIUM);
  if (!present && process.env.CI) throw new Error(`${CHROMIUM} is missing: CI must install it (apt-get install chromium; see .ci/run)`);
  if (!present) console.warn(`skipping the browser tests of ${what}: ${CHROMIUM} is missing (apt-get install chromium)`);
  return present;
}

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
}

export interface OpenedPage<T> {
  readonly requests: string[];
  readonly errors: string[];
  readonly dialogs: number;
  /** What `script` (run in the page; a string, as this project's TypeScript has no DOM types) returned. */
  readonly read: T;
  /** document.body.innerText: the page's text as a reader copies it or a screen reader reads it. */
  readonly text: string;
}

export async function openPage<T>(browser: Browser, path: string, script: string, screenshot?: string): Promise<OpenedPage<T>> {
  const page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
  const requests: string[] = [];
  const errors: string[] = [];
  let dialogs = 0;
  page.on('request', (r) => requests.push(r.url()));
  page.on('console', (m) => {
    if (m.type() === 'error' || m.type() === 'warning') errors.push(m.text());
  });
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('dialog', (d) => {
    dialogs++;
    void d.dismiss();
  });
  try {
    await page.goto(pathToFileURL(path).href, { waitUntil: 'load' });
    const read = (await page.evaluate(script)) as T;
    const text = (await page.evaluate('document.body.innerText')) as string;
    if (screenshot) await page.screenshot({ path: screenshot, fullPage: true });
    return { requests, errors, dialogs, read, text };
  } finally {
    await page.close();
  }
}
