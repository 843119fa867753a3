// Where CSV records end, found without parsing them: a byte-level state machine that knows about
// quotes, so counting a million-row file or finding the torn tail of an output file stays cheap
// (no strings, no cell arrays). It follows the same rules as csv-parse with `relax_quotes`: a quote
// opens a quoted field only at the start of a field, `""` inside quotes is a literal quote.

const QUOTE = 0x22;
const LF = 0x0a;
const CR = 0x0d;

const FIELD_START = 0;
const UNQUOTED = 1;
const QUOTED = 2;
const QUOTE_IN_QUOTED = 3;

export class CsvRecordScanner {
  private state = FIELD_START;
  private content = false;
  private readonly delimiterByte: number;
  /** Bytes consumed so far. */
  offset = 0;

  /** Only the delimiter's last byte marks a field start: exact for every one-byte delimiter. */
  constructor(delimiter: string) {
    const bytes = Buffer.from(delimiter);
    this.delimiterByte = bytes[bytes.length - 1] ?? 0x2c;
  }

  /**
   * Feeds the next bytes; `onRecord(end, hasContent)` is called at every newline outside quotes,
   * with the offset just past it. Blank lines (nothing but CR) are reported with hasContent false.
   */
  scan(chunk: Uint8Array, onRecord: (end: number, hasContent: boolean) => void): void {
    let { state, content } = this;
    const base = this.offset;
    for (let i = 0; i < chunk.length; i++) {
      const b = chunk[i] as number;
      if (state === QUOTED) {
        if (b === QUOTE) state = QUOTE_IN_QUOTED;
        continue;
      }
      if (b === LF) {
        onRecord(base + i + 1, content);
        state = FIELD_START;
        content = false;
        continue;
      }
      if (b !== CR) content = true;
      if (b === this.delimiterByte) state = FIELD_START;
      else if (b === QUOTE) state = state === FIELD_START || state === QUOTE_IN_QUOTED ? QUOTED : UNQUOTED;
      else if (b !== CR) state = UNQUOTED;
    }
    this.state = state;
    this.content = content;
    this.offset = base + chunk.length;
  }

  /** True when the bytes so far end inside a record that has something in it. */
  get insideRecord(): boolean {
    return this.content || this.state === QUOTED;
  }
}

/** Non-empty CSV records in `chunks` (a last record without a newline counts). */
export async function countCsvRecords(chunks: AsyncIterable<Uint8Array>, delimiter: string): Promise<number> {
  const scanner = new CsvRecordScanner(delimiter);
  let records = 0;
  const onRecord = (_end: number, hasContent: boolean) => {
    if (hasContent) records++;
  };
  for await (const chunk of chunks) scanner.scan(chunk, onRecord);
  return scanner.insideRecord ? records + 1 : records;
}
