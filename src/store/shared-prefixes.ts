// Reads a store can skip. A lookup whose prefix this store created holds only what this store put
// there, until another store (of this process or another) puts an answer there too, which it marks
// first ("shared/<id>"): until then its other numbers need no read. A cold run, or a new lookup's
// first run, so reads nothing of the file: a miss in a large file costs the main thread a few
// microseconds a row, the most of the cache's cost in a cold run.
import type { RootDatabase } from 'lmdb';
import type { Clock } from '../core/clock.js';
import { NumberSet } from '../core/number-set.js';
import { SHARED, type Key } from './answer-keys.js';

/** How often a store that reads nothing of the lookups it created looks whether another store put answers there. */
const SHARED_RECHECK_MS = 1000;

export class SharedPrefixes {
  /** The prefixes this store created, by id, each with the keys it put there, until marked shared. */
  private readonly own = new Map<number, NumberSet>();
  private checkedAt = -Infinity;
  /** Prefixes this store puts answers under and did not create, looked at once each. */
  private readonly marked = new Set<number>();
  private unwrittenMarks: string[] = [];

  constructor(
    private readonly db: RootDatabase,
    private readonly clock: Clock,
    /** Ends the store's read snapshot, so that a look for marks sees the latest commits. */
    private readonly freshRead: () => void,
  ) {}

  /** This store allocated the prefix `id`: nothing else is there yet. */
  created(id: number): void {
    this.own.set(id, new NumberSet());
  }

  /**
   * True when the key cannot be in the file, so it needs no read: its prefix was created by this
   * store, which has not put the key there, and no other store had marked the prefix shared when
   * this one last looked (at most SHARED_RECHECK_MS ago). Another store marks it in the batch of its
   * first answer there, so an answer it put is seen as soon as that batch is committed and looked for.
   */
  unread(id: number, key: Key): boolean {
    if (this.own.size === 0) return false;
    this.lookForMarks();
    const mine = this.own.get(id);
    if (mine === undefined) return false;
    return typeof key === 'number' ? !mine.hasWhole(key) : !mine.hasOther(key);
  }

  private lookForMarks(): void {
    const now = this.clock.now();
    if (now - this.checkedAt < SHARED_RECHECK_MS) return;
    this.checkedAt = now;
    // In a read transaction begun now: the answers' may be a second old, and lmdb's own is renewed
    // only once a turn.
    this.freshRead();
    this.db.resetReadTxn();
    for (const own of this.own.keys()) if (this.db.get(SHARED + own) !== undefined) this.own.delete(own);
  }

  /**
   * This store puts the key: a later read of it must look (see unread); a prefix it did not create
   * is marked shared, unless it already is (a run per number would otherwise rewrite the mark's page
   * in every commit).
   */
  put(id: number, key: Key): void {
    const mine = this.own.get(id);
    if (mine !== undefined) {
      if (typeof key === 'number') mine.addWhole(key);
      else mine.addOther(key);
    } else if (!this.marked.has(id)) {
      this.marked.add(id);
      if (this.db.get(SHARED + id) === undefined) this.unwrittenMarks.push(SHARED + id);
    }
  }

  /** The shared marks not written yet, put ahead of a batch's answers (in its transaction). */
  takeMarks(): string[] {
    const marks = this.unwrittenMarks;
    this.unwrittenMarks = [];
    return marks;
  }
}
