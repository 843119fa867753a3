// A plain list: one number per line, blank lines and `#` comments skipped, whitespace trimmed.
import { StringDecoder } from 'node:string_decoder';
import type { SourceItem } from '../core/run.js';

/** The input's lines, as they arrive (CRLF or LF; the last line may lack its newline). */
async function* readLines(chunks: AsyncIterable<Buffer>): AsyncGenerator<string> {
  const decoder = new StringDecoder('utf8');
  let partial = '';
  for await (const chunk of chunks) {
    const text = partial + decoder.write(chunk);
    const lines = text.split('\n');
    partial = lines.pop() ?? '';
    for (const line of lines) yield line;
  }
  const last = partial + decoder.end();
  if (last !== '') yield last;
}

/** A trimmed line that is neither blank nor a `#` comment. */
export const isEntry = (line: string): boolean => line !== '' && !line.startsWith('#');

/** One item per entry. */
export async function* listItems(chunks: AsyncIterable<Buffer>): AsyncGenerator<SourceItem> {
  let index = 0;
  for await (const raw of readLines(chunks)) {
    const input = raw.trim();
    if (!isEntry(input)) continue;
    yield { index: index++, input };
  }
}

/** Entries in a list, without keeping any of them (for the progress total). */
export async function countListEntries(chunks: AsyncIterable<Buffer>): Promise<number> {
  let entries = 0;
  for await (const line of readLines(chunks)) if (isEntry(line.trim())) entries++;
  return entries;
}
