// Wrapping plain text to a column width before it is coloured: cli-table3's own wrapping miscounts
// text that already holds colour codes, so cells are wrapped here and painted line by line.
import stringWidth from 'string-width';

/**
 * Columns a plain string takes on a terminal, counted as cli-table3 counts them (string-width: wide
 * CJK and emoji two, combining marks none), so that a cell measured to fit is never cut by it.
 */
export const textWidth = (s: string): number => stringWidth(s);
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
    let rest = word;
    while (width(rest) > max) {
      const cut = fitting(rest, max);
      lines.push(rest.slice(0, cut));
      rest = rest.slice(cut);
    }
    line = rest;
  }
  lines.push(line);
  return lines;
}

/**
 * The length of the longest start of `word` (whole code points, at least one) whose characters take
 * at most `max` columns one by one: their sum is never less than what they take together.
 */
function fitting(word: string, max: number): number {
  let used = 0;
  let end = 0;
  for (const ch of word) {
    const w = width(ch);
    if (end > 0 && used + w > max) break;
    used += w;
    end += ch.length;
  }
  return end;
}

/** The cell as cli-table3 gets it: wrapped, each line painted on its own. */
export function paintWrapped(text: string, max: number, paint: (s: string) => string): string {
  return wrapText(text, max).map((line) => paint(line)).join('\n');
}

/** `text` cut to `max` columns, its last one an ellipsis when anything was cut. */
export function truncateText(text: string, max: number): string {
  if (width(text) <= max) return text;
  if (max < 2) return '…';
  return `${text.slice(0, fitting(text, max - 1))}…`;
}
