// The read transaction a store reads answers in. Left to itself, lmdb begins a read transaction in
// each turn of the event loop that reads, and a timer resets it after the turn; a run reads a row
// or a few a turn, so in a cold run of a million rows, with lmdb's write thread committing beside
// it, that renewal cost more than the reads. One transaction is kept instead, let go as soon as a
// commit of this process lands, before that commit's answers are let go (every answer this process
// put is then read either from its batch or in the file), and by a timer SNAPSHOT_MS after it was
// begun: other processes' commits are seen a second later at most, and a run that stops reading
// (waiting at a rate limit, say) does not keep LMDB from reusing the pages commits free.
import type { RootDatabase, Transaction } from 'lmdb';

const SNAPSHOT_MS = 1000;

export class ReadSnapshot {
  private readOptions: { readonly transaction: Transaction } | undefined;
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly db: RootDatabase) {}

  /** lmdb's read options for the current transaction, begun now if there is none. */
  get(): { readonly transaction: Transaction } {
    if (!this.readOptions) {
      this.readOptions = { transaction: this.db.useReadTransaction() };
      this.timer = setTimeout(() => this.release(), SNAPSHOT_MS).unref();
    }
    return this.readOptions;
  }

  /** Ends the transaction: the next read sees every commit so far. Idempotent. */
  release(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    const txn = this.readOptions?.transaction;
    this.readOptions = undefined;
    txn?.done();
  }
}
