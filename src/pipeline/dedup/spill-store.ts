// Append-only storage for finished answers, outside the JS heap: records are gathered in a small
// buffer and written to a temp file when it fills; a record is read back (one positional read)
// only when a duplicate asks for it. The file is unlinked as soon as it is open, so it disappears
// with the process however the run ends (where the OS refuses that, close() removes it).
// A reader that asks for records in about the order they were written (diff's before file against
// an after file of the same list) can have each read from the file bring `readAheadBytes` with it,
// so the next records come from memory. A run that never fills the buffer never touches the disk. If the file cannot be created or
// written (no space, no permission), full buffers are kept in memory instead: nothing is lost.
import { closeSync, openSync, readSync, unlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import type { Located } from './number-index.js';
import { tempSuffix } from '../../core/temp-name.js';

const BUFFER_BYTES = 64 * 1024;

export interface SpillOptions {
  /** Where the temp file goes (os.tmpdir() in the CLI). */
  readonly dir: string;
  readonly bufferBytes?: number;
  /** Bytes read from the file at once, the asked-for record first; kept for the next reads. Default: only the record. */
  readonly readAheadBytes?: number;
}

/** Buffers that could not be written, by their offset in the record stream. */
interface Held {
  readonly start: number;
  readonly bytes: Buffer;
}

export class SpillStore {
  private buffer: Buffer;
  private used = 0;
  /** Bytes before `buffer`: on disk, then in `held` once the disk failed. */
  private base = 0;
  private fileEnd = 0;
  private fd: number | undefined;
  private path: string | undefined;
  private failed = false;
  private readonly held: Held[] = [];
  private closed = false;
  /** The last piece read ahead from the file, and where in the stream it starts. */
  private ahead: Buffer | undefined;
  private aheadStart = 0;

  constructor(private readonly opts: SpillOptions) {
    this.buffer = Buffer.allocUnsafe(opts.bufferBytes ?? BUFFER_BYTES);
  }

  /** true once records went to a file; false while all are in memory. */
  get onDisk(): boolean {
    return this.fileEnd > 0;
  }

  append(text: string): Located {
    if (this.closed) throw new Error('the answer store is closed');
    // UTF-8 takes at most 3 bytes per UTF-16 unit: text that fits so is written without measuring it first.
    if (text.length * 3 <= this.buffer.length - this.used) {
      const offset = this.base + this.used;
      const length = this.buffer.write(text, this.used);
      this.used += length;
      return { offset, length };
    }
    const length = Buffer.byteLength(text);
    if (length > this.buffer.length - this.used) this.flush();
    if (length > this.buffer.length) {
      // Larger than the buffer: it goes out on its own.
      const offset = this.base;
      this.spill(Buffer.from(text));
      return { offset, length };
    }
    const offset = this.base + this.used;
    this.buffer.write(text, this.used);
    this.used += length;
    return { offset, length };
  }

  read({ offset, length }: Located): string {
    if (offset >= this.base) return this.buffer.toString('utf8', offset - this.base, offset - this.base + length);
    if (offset >= this.fileEnd) {
      const h = this.heldAt(offset);
      return h.bytes.toString('utf8', offset - h.start, offset - h.start + length);
    }
    const ahead = this.ahead;
    if (ahead && offset >= this.aheadStart && offset + length <= this.aheadStart + ahead.length) {
      return ahead.toString('utf8', offset - this.aheadStart, offset - this.aheadStart + length);
    }
    const want = Math.min(Math.max(length, this.opts.readAheadBytes ?? 0), this.fileEnd - offset);
    const out = Buffer.allocUnsafe(want);
    let got = 0;
    while (got < want) {
      const n = readSync(this.fd as number, out, got, want - got, offset + got);
      if (n === 0) throw new Error(`the answer store ended early at ${offset + got}`);
      got += n;
    }
    if (want === length) return out.toString('utf8');
    this.ahead = out;
    this.aheadStart = offset;
    return out.toString('utf8', 0, length);
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    if (this.fd !== undefined) closeSync(this.fd);
    if (this.path) removeQuietly(this.path);
    this.held.length = 0;
    this.ahead = undefined;
  }

  private flush(): void {
    if (this.used === 0) return;
    const full = this.buffer.subarray(0, this.used);
    // A held buffer must stay as it is: the next records need a fresh one.
    if (this.spill(full) === 'held') this.buffer = Buffer.allocUnsafe(this.buffer.length);
    this.used = 0;
  }

  /** Writes `bytes` (the next ones of the stream) to the file, or holds them if it cannot. */
  private spill(bytes: Buffer): 'written' | 'held' {
    const start = this.base;
    this.base += bytes.length;
    if (!this.failed) {
      try {
        this.fd ??= this.open();
        let done = 0;
        while (done < bytes.length) done += writeSync(this.fd, bytes, done, bytes.length - done, this.fileEnd + done);
        this.fileEnd += bytes.length;
        return 'written';
      } catch {
        // Later records are held in memory, after what the file already has.
        this.failed = true;
      }
    }
    this.held.push({ start, bytes });
    return 'held';
  }

  private open(): number {
    const path = join(this.opts.dir, `numintel-answers-${tempSuffix()}.tmp`);
    const fd = openSync(path, 'wx+', 0o600);
    try {
      unlinkSync(path);
    } catch {
      this.path = path;
    }
    return fd;
  }

  private heldAt(offset: number): Held {
    let lo = 0;
    let hi = this.held.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if ((this.held[mid] as Held).start <= offset) lo = mid;
      else hi = mid - 1;
    }
    const h = this.held[lo];
    if (!h || offset < h.start || offset >= h.start + h.bytes.length) throw new Error(`no stored answer at ${offset}`);
    return h;
  }
}

function removeQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // already gone
  }
}
