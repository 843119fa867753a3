// No regular expression in the project may backtrack super-linearly: a cell of the user's input or
// a header from a hostile server reaches many of them. Every regex literal in src/ is found with
// oxc's parser (the one oxlint uses; TypeScript 7 has no JavaScript API) and checked by recheck (a
// ReDoS checker that proves or refutes polynomial and exponential backtracking).
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { parseSync, Visitor } from 'oxc-parser';
import { checkSync } from 'recheck';
import { describe, expect, it } from 'vitest';

const SRC = join(import.meta.dirname, '..', '..', 'src');

function tsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? tsFiles(join(dir, e.name)) : e.name.endsWith('.ts') && !e.name.endsWith('.d.ts') ? [join(dir, e.name)] : [],
  );
}

interface Found {
  where: string;
  source: string;
  flags: string;
}

function regexLiterals(file: string): Found[] {
  const text = readFileSync(file, 'utf8');
  const parsed = parseSync(file, text);
  // A file the parser could not read whole would hide its regexes: that fails the scan.
  if (parsed.errors.length > 0) throw new Error(`${file}: ${parsed.errors.map((e) => e.message).join('; ')}`);
  const found: Found[] = [];
  new Visitor({
    Literal(node) {
      if (!('regex' in node)) return;
      // Offsets count UTF-16 units, as the text's indices do.
      const line = text.slice(0, node.start).split('\n').length;
      found.push({ where: `${relative(SRC, file)}:${line}`, source: node.regex.pattern, flags: node.regex.flags });
    },
  }).visit(parsed.program);
  return found;
}

const all = tsFiles(SRC).flatMap(regexLiterals);

describe('regular expressions in src/', () => {
  it('are found (the scan itself works)', () => {
    expect(all.length).toBeGreaterThan(30);
    expect(all.some((r) => r.where.startsWith('core/numbers.ts'))).toBe(true);
  });

  it('the checker refutes a known bad pattern and a polynomial one', () => {
    expect(checkSync('(a+)+$', '').status).toBe('vulnerable');
    expect(checkSync('\\s*x\\s*$', '').status).toBe('vulnerable');
  });

  it('none backtracks super-linearly', () => {
    const unsafe = all
      .map((r) => ({ ...r, result: checkSync(r.source, r.flags, { timeout: 10_000 }) }))
      .filter((r) => r.result.status !== 'safe')
      .map((r) => `${r.where} /${r.source}/${r.flags}: ${r.result.status}${r.result.status === 'vulnerable' ? ` (${r.result.complexity.type}, attack ${JSON.stringify(r.result.attack.pattern)})` : ''}`);
    expect(unsafe).toEqual([]);
  }, 120_000);
});
