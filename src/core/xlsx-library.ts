// The workbook library, in a bundle file of its own (scripts/build.js): only a run that reads or
// writes .xlsx loads it. Nothing here throws numintel's errors, so none crosses the boundary.
import { createReadStream, createWriteStream, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { WorkbookReader as StreamingReader } from '@cj-tech-master/excelts';

export { WorkbookWriter } from '@cj-tech-master/excelts';

/**
 * excelts's streaming reader, keeping for itself the sheets that come before the shared strings
 * (where Excel writes them): each waits for its turn in a temporary directory, removed once the
 * sheet is read, and by removeCopies once the read is over, read or not. The library's own removal
 * is an fs.rm it does not wait for (a run that exits next keeps the copy, as large as the sheet),
 * and none at all when the read is closed early.
 */
export class WorkbookReader extends StreamingReader {
  readonly #copies = new Set<string>();
  /** The sheets read from a copy: passed over, they need no reading (readPast). */
  readonly #copied = new WeakSet<object>();

  override async _storeWaitingWorksheet(sheetNo: string, entry: Readable) {
    const dir = mkdtempSync(join(tmpdir(), 'numintel-sheet-'));
    this.#copies.add(dir);
    const path = join(dir, `sheet${sheetNo}.xml`);
    const writePromise = pipeline(entry, createWriteStream(path));
    // Awaited when the sheet's turn comes; a read closed before then removes the copy unread.
    writePromise.catch(() => undefined);
    return { sheetNo, path, writePromise, cleanup: () => this.#remove(dir) };
  }

  override async *_processWaitingWorksheets(waiting: Awaited<ReturnType<WorkbookReader['_storeWaitingWorksheet']>>[]) {
    for (const sheet of waiting) {
      await sheet.writePromise;
      const file = createReadStream(sheet.path);
      // The sheet's reader hears the file's errors; the one a read stopped early ends with (an
      // AbortError, from the stream's iterator) is nobody's.
      file.on('error', () => undefined);
      try {
        for (const event of this._parseWorksheet(file, sheet.sheetNo)) {
          this.#copied.add(event.value);
          yield event;
        }
      } finally {
        // Closed before it is removed: a sheet passed over unread may still be opening the file.
        if (!file.closed) await new Promise<void>((closed) => file.destroy().once('close', () => closed()));
        sheet.cleanup();
      }
    }
  }

  /**
   * Whether the sheets met so far have their names: the workbook part that names them is read
   * (Excel stores it first; some writers, excelts's own among them, last).
   */
  get namesRead(): boolean {
    return this.model !== undefined;
  }

  /** The name of the sheet stored as xl/worksheets/sheet<sheetNo>.xml, once namesRead. */
  sheetName(sheetNo: number): string | undefined {
    // The library names a sheet it meets through the same relationship target.
    const rel = this.workbookRels?.find((r) => r.Target === `worksheets/sheet${sheetNo}.xml`);
    return rel && this.model?.sheets?.find((s) => s.rId === rel.Id)?.name;
  }

  /**
   * Passes over a sheet the reader gave: one read from the archive as it comes is read through,
   * as the archive's next entry comes only after its bytes; a copy is left unread (and removed).
   */
  async readPast(ws: { iterator: AsyncIterable<unknown> }): Promise<void> {
    if (this.#copied.has(ws)) return;
    for await (const _ of ws.iterator);
  }

  /** Removes the copies of the sheets this read met, read or not: call it once the read is over. */
  removeCopies(): void {
    for (const dir of this.#copies) this.#remove(dir);
  }

  #remove(dir: string): void {
    rmSync(dir, { recursive: true, force: true });
    this.#copies.delete(dir);
  }
}
