// Two runs of one list compared by number: the before run held as snapshots (in a BeforeIndex,
// on disk when large), the after run streamed past them. Each changed number comes out once, in
// the after run's order, then the numbers of the before run alone in its order.
import type { RowFacts } from '../report/facts.js';
import { isTrue } from '../report/normalise.js';
import { CHANGE_KINDS, compare, type ChangeKind } from './compare.js';
import { BeforeIndex, REPEAT, type BeforeIndexOptions } from './before-index.js';
import { DIFF_FIELDS, SnapshotPacker, snapshotOf, type DiffField, type Snapshot } from './snapshot.js';

/** The compared fields, the error and the lookups that answered. */
const FIELD_COUNT = DIFF_FIELDS.length + 2;

export interface ChangedRow {
  readonly number: string;
  readonly kinds: readonly ChangeKind[];
  readonly fields: readonly DiffField[];
  readonly before: Snapshot | undefined;
  readonly after: Snapshot | undefined;
  /** The after file's input columns for this number (none for a removed one). */
  readonly inputs?: readonly (readonly [string, string])[];
}

export interface DiffFigures {
  before: { rows: number; numbers: number; duplicates: number; no_number: number };
  after: { rows: number; numbers: number; duplicates: number; no_number: number };
  matched: number;
  unchanged: number;
  changed: number;
  kinds: Record<ChangeKind, number>;
  /** The first numbers of each kind, to act on. */
  numbers: Record<ChangeKind, string[]>;
  /** Per flag, the numbers it was turned on for (flagged) and off for (unflagged). */
  flags: Record<Flag, { flagged: number; unflagged: number }>;
}

const FLAGS = ['is_spam', 'is_robocall', 'is_scam'] as const;
type Flag = (typeof FLAGS)[number];

export class Diff {
  /** Number → its packed snapshot (see SnapshotPacker). */
  private readonly index: BeforeIndex;
  private readonly packer = new SnapshotPacker();
  /** The compared fields the before run has (the only ones that can change). */
  readonly beforeFields = new Set<DiffField>();
  readonly figures: DiffFigures;

  constructor(
    private readonly scoreDelta: number,
    private readonly keep: number,
    index: BeforeIndexOptions,
  ) {
    this.index = new BeforeIndex(index);
    const zero = () => ({ rows: 0, numbers: 0, duplicates: 0, no_number: 0 });
    this.figures = {
      before: zero(),
      after: zero(),
      matched: 0,
      unchanged: 0,
      changed: 0,
      kinds: Object.fromEntries(CHANGE_KINDS.map((k) => [k, 0])) as Record<ChangeKind, number>,
      numbers: Object.fromEntries(CHANGE_KINDS.map((k) => [k, []])) as unknown as Record<ChangeKind, string[]>,
      flags: Object.fromEntries(FLAGS.map((f) => [f, { flagged: 0, unflagged: 0 }])) as Record<Flag, { flagged: number; unflagged: number }>,
    };
  }

  /** A row of the before run; a number seen again keeps its first row. */
  addBefore(row: RowFacts): void {
    const f = this.figures.before;
    f.rows++;
    if (row.number === null) return void f.no_number++;
    if (this.index.has(row.number)) return void f.duplicates++;
    f.numbers++;
    const snap = snapshotOf(row);
    // Once every field has been seen there is nothing more to learn.
    if (this.beforeFields.size < FIELD_COUNT) for (const k in snap) this.beforeFields.add(k as DiffField);
    this.index.add(row.number, this.packer.pack(snap, row.number));
  }

  /** true when the before run's index went partly to a temp file. */
  get spilled(): boolean {
    return this.index.spilled;
  }

  /** A row of the after run: what changed for its number, or undefined when nothing did. */
  addAfter(row: RowFacts): ChangedRow | undefined {
    const f = this.figures.after;
    f.rows++;
    if (row.number === null) return void f.no_number++;
    const packed = this.index.take(row.number);
    if (packed === REPEAT) return void f.duplicates++;
    f.numbers++;
    const after = snapshotOf(row);
    if (packed === undefined) return this.count({ number: row.number, kinds: ['added'], fields: [], before: undefined, after, inputs: row.inputs });
    this.figures.matched++;
    // The same record is the same values: most numbers of most diffs stop here, unpacked.
    if (this.packer.pack(after, row.number) === packed) {
      this.figures.unchanged++;
      return undefined;
    }
    const before = this.packer.unpack(packed);
    const change = compare(before, after, this.scoreDelta);
    if (change.kinds.length === 0) {
      this.figures.unchanged++;
      return undefined;
    }
    // A flag's field is shown only when it turned on or off: its after value says which.
    for (const flag of FLAGS) if (change.fields.includes(flag)) this.figures.flags[flag][isTrue(after[flag] ?? '') ? 'flagged' : 'unflagged']++;
    return this.count({ number: row.number, kinds: change.kinds, fields: change.fields, before, after, inputs: row.inputs });
  }

  /** The numbers of the before run alone, once the after run has been read. */
  *removed(): Generator<ChangedRow> {
    for (const packed of this.index.untaken()) {
      yield this.count({ number: this.packer.numberOf(packed), kinds: ['removed'], fields: [], before: this.packer.unpack(packed), after: undefined });
    }
  }

  /** Releases the before run's index (and its temp file). */
  close(): void {
    this.index.close();
  }

  private count(row: ChangedRow): ChangedRow {
    this.figures.changed++;
    for (const k of row.kinds) {
      this.figures.kinds[k]++;
      const list = this.figures.numbers[k];
      if (list.length < this.keep) list.push(row.number);
    }
    return row;
  }
}
