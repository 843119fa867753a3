// Headless Chromium (Debian's `chromium` package) for the tests of numintel's HTML pages: a page
// opened from its file, with every request it made, every script error or warning and dialog, and
// what a script run in it read back (its text as the reader sees it: innerText).
import { existsSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';

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

export interface OpenedPage<T, A> {
  readonly requests: string[];
  readonly errors: string[];
  readonly dialogs: number;
  /** What `script` (run in the page; a string, as this project's TypeScript has no DOM types) returned. */
  readonly read: T;
  /** document.body.innerText: the page's text as a reader copies it or a screen reader reads it. */
  readonly text: string;
  /** What `after` read from the page once `script` had run (printing it, say). */
  readonly after: A;
}

export async function openPage<T, A = undefined>(
  browser: Browser,
  path: string,
  script: string,
  options: { screenshot?: string | undefined; after?: (page: Page) => Promise<A> } = {},
): Promise<OpenedPage<T, A>> {
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
    if (options.screenshot) await page.screenshot({ path: options.screenshot, fullPage: true });
    const after = (options.after ? await options.after(page) : undefined) as A;
    return { requests, errors, dialogs, read, text, after };
  } finally {
    await page.close();
  }
}
