// Messages for a person at a terminal: wrapped between words to its width, so that the terminal
// does not break them mid-word. A pipe or a file gets each message on its own unwrapped lines,
// which scripts and logs read as they are.
import { wrapText } from '../output/wrap.js';
import type { OutStream, World } from './world.js';
import { widthOf } from './world.js';

/** `text` (lines ending in \n) as `stream` should get it; continuation lines indented by two. */
export function forTerminal(text: string, stream: OutStream, env: World['env']): string {
  const width = stream.isTTY ? widthOf(stream, env) : undefined;
  if (width === undefined || width < 20) return text;
  const end = text.endsWith('\n') ? '\n' : '';
  const lines = (end ? text.slice(0, -1) : text).split('\n');
  const wrapped = lines.flatMap((line) => {
    const [first = '', ...rest] = wrapText(line, width);
    // The rest rewrapped narrower, to make room for the indent.
    const more = rest.length === 0 ? [] : wrapText(rest.join(' '), width - 2).map((l) => `  ${l}`);
    return [first, ...more];
  });
  return `${wrapped.join('\n')}${end}`;
}
