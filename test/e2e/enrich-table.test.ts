// `numintel enrich` at a real terminal (a pseudo-terminal made by util-linux `script`, 80 and 120
// columns wide): one table, a row per input row, who each row is (the CSV's other columns, as
// many as fit) and the result fields under clean labels, within the terminal's width.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { HAS_SCRIPT, requireBuiltCli, startCli } from '../support/cli.js';
import { textWidth } from '../../src/output/wrap.js';
import { tempDir } from '../support/tmp.js';

const NAMES = ['Ada Lovelace', 'Grace Hopper', 'Alan Turing', 'Katherine Johnson', 'Edsger Dijkstra', 'Barbara Liskov'];
const COMPANIES = ['Analytical Engines Ltd', 'US Navy', 'Bletchley Park', 'NASA Langley', 'Eindhoven University', 'MIT'];

// oxlint-disable-next-line no-control-regex
const ESCAPES = /\x1b\[[0-9;?]*[A-Za-z]/g;
const cellsOf = (line: string) => line.split('│').slice(1, -1).map((c) => c.trim());

describe.skipIf(!HAS_SCRIPT)(`enrich at a terminal${HAS_SCRIPT ? '' : ' (skipped: util-linux `script` is not installed)'}`, () => {
  const dir = tempDir('numintel-enrich-table-');
  const input = join(dir, 'leads.csv');
  const rows = Array.from({ length: 24 }, (_, i) => [NAMES[i % 6], COMPANIES[i % 6], `(201) 555-${String(1000 + i * 37).padStart(4, '0')}`, 'Hoboken']);
  writeFileSync(input, `name,company,phone,city\n${rows.map((r) => r.join(',')).join('\n')}\n`);

  const screen = async (columns: number) => {
    requireBuiltCli();
    const cli = startCli(['enrich', '-i', input, '--sandbox', '-q'], { terminal: true, columns, env: { TERM: 'dumb' }, timeoutMs: 30_000 });
    const r = await cli.done;
    expect(r.code, r.stdout + r.stderr).toBe(0);
    return r.stdout.replace(ESCAPES, '').split(/\r?\n/).map((l) => l.replace(/\r/g, '')).filter((l) => /^[┌├│└]/.test(l));
  };

  it.each([80, 120])('%i columns: one table of 24 rows, within the width, under clean labels', async (columns) => {
    const lines = await screen(columns);
    expect(lines).toHaveLength(24 + 4);
    for (const l of lines) expect(textWidth(l)).toBeLessThanOrEqual(columns);
    const head = cellsOf(lines[1]!);
    expect(head[0]).toBe('name');
    expect(head).toEqual(expect.arrayContaining(['number', 'lrn', 'caller name', 'trust']));
    expect(head).not.toContain('phone');
    expect(lines.join('\n')).not.toMatch(/lrn_lrn|cnam_cnam|trust_trust_level/);
    // Row by row in input order: who it is, and its number.
    lines.slice(3, -1).forEach((l, i) => {
      const cells = cellsOf(l);
      expect(cells[0]).toBe(rows[i]![0]);
      expect(cells[head.indexOf('number')]).toBe(`1201555${String(1000 + i * 37).padStart(4, '0')}`);
    });
    if (columns === 120) expect(head.slice(0, 3)).toEqual(['name', 'company', 'city']);
  });
});
