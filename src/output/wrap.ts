// Wrapping plain text to a column width before it is coloured: cli-table3's own wrapping miscounts
// text that already holds colour codes, so cells are wrapped here and painted line by line.

/** Columns a plain string takes, counting code points (wide CJK/emoji are not special-cased). */
export const textWidth = (s: string) => [...s].length;
const width = textWidth;

/** Greedy word wrap to `max` columns; a word longer than a line is split. Never returns []. */
export function wrapText(text: string, max: number): string[] {
  if (max < 1 || width(text) <= max) return [text];
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    const candidate = line === '' ? word : `${line} ${word}`;
    if (width(candidate) <= max) {
      line = candidate;
      continue;
    }
    if (line !== '') lines.push(line);
    let rest = [...word];
    while (rest.length > max) {
      lines.push(rest.slice(0, max).join(''));
      rest = rest.slice(max);
    }
    line = rest.join('');
  }
  lines.push(line);
  return lines;
}

/** The cell as cli-table3 gets it: wrapped, each line painted on its own. */
export function paintWrapped(text: string, max: number, paint: (s: string) => string): string {
  return wrapText(text, max).map((line) => paint(line)).join('\n');
}
