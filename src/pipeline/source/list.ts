// A plain list: one number per line, blank lines and `#` comments skipped, whitespace trimmed.
import { StringDecoder } from 'node:string_decoder';
import { InputError } from '../../core/errors.js';
import type { SourceItem } from '../../core/run.js';

/** A line longer than this is not a phone number (`/dev/zero`, a binary file): stop before memory goes. */
export const MAX_LINE_CHARS = 64 * 1024;

/** The input's lines, as they arrive (CRLF or LF; the last line may lack its newline). */
async function* readLines(chunks: AsyncIterable<Buffer>, label = 'the input'): AsyncGenerator<string> {
  const decoder = new StringDecoder('utf8');
  let partial = '';
  let lineNo = 0;
  for await (const chunk of chunks) {
    const text = partial + decoder.write(chunk);
    const lines = text.split('\n');
    partial = lines.pop() ?? '';
    for (const line of lines) {
      lineNo++;
      if (line.length > MAX_LINE_CHARS) throw tooLong(label, lineNo);
      yield line;
    }
    if (partial.length > MAX_LINE_CHARS) throw tooLong(label, lineNo + 1);
  }
  const last = partial + decoder.end();
  if (last !== '') yield last;
}

function tooLong(label: string, lineNo: number): InputError {
  return new InputError(`${label}: line ${lineNo} runs past ${MAX_LINE_CHARS} characters, which no phone number does`, 'is it the right file? a list has one number per line');
}

/** A trimmed line that is neither blank nor a `#` comment. */
export const isEntry = (line: string): boolean => line !== '' && !line.startsWith('#');

/** One item per entry. */
export async function* listItems(chunks: AsyncIterable<Buffer>, label?: string): AsyncGenerator<SourceItem> {
  let index = 0;
  for await (const raw of readLines(chunks, label)) {
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
