// The README stays a page people read: short, a table of contents, every docs/ page linked from it;
// each docs/ page opens with its own table of contents; every link between them lands on a heading.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../support/cli.js';

const read = (file: string): string => readFileSync(join(ROOT, file), 'utf8');
const withoutCode = (text: string): string => text.replace(/^```[^\n]*\n[\s\S]*?^```$/gm, '');
const docs = readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`);

/** The anchors GitHub gives a page's headings: lower case, punctuation dropped, spaces as dashes. */
function anchors(file: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const m of withoutCode(read(file)).matchAll(/^#{1,6}\s+(.+)$/gm)) {
    const base = m[1]!.trim().toLowerCase().replace(/[^\p{L}\p{N} _-]/gu, '').replace(/ /g, '-');
    const n = seen.get(base);
    seen.set(base, (n ?? -1) + 1);
    out.add(n === undefined ? base : `${base}-${n + 1}`);
  }
  return out;
}

/** Links to local files and anchors, as [text](target), outside code blocks. */
function links(file: string): string[] {
  return [...withoutCode(read(file)).matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]!).filter((l) => !/^[a-z]+:/.test(l));
}

/** The list of links right after the page's title and opening paragraphs: its table of contents. */
function tableOfContents(file: string): string[] {
  const lines = read(file).split('\n');
  const start = lines.findIndex((l, i) => i > 0 && l.startsWith('- ['));
  const firstSection = lines.findIndex((l) => l.startsWith('## '));
  if (start < 0 || (firstSection >= 0 && start > firstSection)) return [];
  const toc: string[] = [];
  for (let i = start; i < lines.length && /^\s*- \[|^\s{2,}\S/.test(lines[i]!); i++) toc.push(lines[i]!);
  return toc;
}

describe('the README and docs/', () => {
  it('keeps the README to at most 600 lines, opening with a table of contents', () => {
    expect(read('README.md').split('\n').length).toBeLessThanOrEqual(600);
    expect(tableOfContents('README.md').join('\n')).toContain('](#getting-a-key)');
  });

  it('links every docs/ page from the README', () => {
    const linked = new Set(links('README.md').map((l) => l.split('#')[0]));
    for (const page of docs) expect(linked, page).toContain(page);
  });

  it('opens every docs/ page with a table of contents of its own sections', () => {
    for (const page of docs) {
      const toc = tableOfContents(page);
      expect(toc.length, page).toBeGreaterThan(2);
      const own = anchors(page);
      for (const m of toc.join('\n').matchAll(/\]\(#([^)]+)\)/g)) expect(own, `${page} #${m[1]}`).toContain(m[1]);
    }
  });

  it('lands every link between them on a file and a heading that exist', () => {
    for (const file of ['README.md', ...docs]) {
      for (const link of links(file)) {
        const [path, anchor] = link.split('#') as [string, string | undefined];
        const target = path === '' ? file : normalize(join(dirname(file), path));
        expect(existsSync(join(ROOT, target)), `${file} → ${link}`).toBe(true);
        if (anchor && target.endsWith('.md')) expect(anchors(target), `${file} → ${link}`).toContain(anchor);
      }
    }
  });
});
