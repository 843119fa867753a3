// Looking at the start of an input before deciding what it is (plain list or CSV, which
// delimiter), without losing a byte of it: the bytes read while peeking are replayed in front of
// the rest of the stream. Peeking stops at the first line that says something, so a slow producer
// on stdin is only waited for until that line arrives.
import { isEntry } from './list.js';

const BOM = Buffer.from([0xef, 0xbb, 0xbf]);
/** A "first line" longer than this is sniffed as far as it got rather than read to its end. */
const MAX_PEEK = 1 << 20;

export interface Peek {
  /** Bytes read so far, BOM removed. */
  readonly head: Buffer;
  /** Where the first significant line starts in `head`: blank and `#` lines come before it. */
  readonly start: number;
  /** The first line that is neither blank nor a `#` comment; undefined when there is none. */
  readonly line: string | undefined;
  /** Bytes of the input that `head` does not hold at its start (the BOM). */
  readonly dropped: number;
  readonly rest: AsyncIterator<Buffer>;
}

export async function peekInput(input: AsyncIterable<Buffer | string>): Promise<Peek> {
  const rest = bytesOf(input)[Symbol.asyncIterator]();
  let head: Buffer = Buffer.alloc(0);
  let start = 0;
  let dropped = 0;
  let ended = false;
  for (;;) {
    if (!ended) {
      const next = await rest.next();
      if (next.done) ended = true;
      else head = head.length === 0 ? next.value : Buffer.concat([head, next.value]);
    }
    if (dropped === 0 && (head.length >= BOM.length || ended) && head.subarray(0, BOM.length).equals(BOM)) {
      head = head.subarray(BOM.length);
      dropped = BOM.length;
    }
    if (dropped === 0 && head.length < BOM.length && !ended) continue;
    for (;;) {
      const lf = head.indexOf(0x0a, start);
      const end = lf === -1 ? head.length : lf;
      if (lf === -1 && !ended && head.length - start < MAX_PEEK) break;
      const line = head.subarray(start, end).toString('utf8').trim();
      if (isEntry(line)) return { head, start, line, dropped, rest };
      if (lf === -1) return { head, start: head.length, line: undefined, dropped, rest };
      start = lf + 1;
    }
  }
}

/** The peeked bytes from `from` on, then the rest of the input; closes the input when dropped. */
export async function* replay(peek: Peek, from: number): AsyncGenerator<Buffer> {
  try {
    if (from < peek.head.length) yield peek.head.subarray(from);
    for (;;) {
      const next = await peek.rest.next();
      if (next.done) return;
      yield next.value;
    }
  } finally {
    await peek.rest.return?.();
  }
}

async function* bytesOf(input: AsyncIterable<Buffer | string>): AsyncGenerator<Buffer> {
  for await (const chunk of input) yield typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
}

const CANDIDATES = [',', '\t', ';', '|'];

/** The candidate that splits `line` into the most fields outside quotes (ties: earlier wins). */
export function sniffDelimiter(line: string): { delimiter: string; fields: number } {
  let best = { delimiter: ',', fields: 1 };
  for (const delimiter of CANDIDATES) {
    const fields = countFields(line, delimiter);
    if (fields > best.fields) best = { delimiter, fields };
  }
  return best;
}

function countFields(line: string, delimiter: string): number {
  let fields = 1;
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    if (line[i] === '"') quoted = !quoted;
    else if (!quoted && line.startsWith(delimiter, i)) {
      fields++;
      i += delimiter.length - 1;
    }
  }
  return fields;
}
