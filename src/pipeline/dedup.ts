// "Never pay twice": one run looks each lookup up once. A duplicate that arrives while the first
// is in flight joins it; a later one reuses the finished answer.
//
// The key is lookupKey(d, number, opts) partitioned: one map per lookup of the run, keyed by the
// number alone, because a run's options are fixed, so within one map the number is the whole key.
// Finished results are stored as one flat string per number (ResultCodec: leaf values only, keys
// once per shape), not as objects, so a million distinct numbers fit the memory budget. Answers that another try could change (a lookup
// that still failed after its retries) are NOT kept: a later duplicate tries again, which costs
// only if it then succeeds. Answers that would not change (invalid number, other refusals) are kept.
import type { LookupError, Result } from '../core/records.js';
import { ResultCodec } from './result-codec.js';

export type Finished = { readonly result: Result; readonly error: null } | { readonly result: null; readonly error: LookupError };

export class LookupCache<Pending> {
  private readonly done: Map<string, string | LookupError>[] = [];
  private readonly pending: Map<string, Pending>[] = [];
  private readonly codec = new ResultCodec();

  constructor(lookups: number) {
    for (let i = 0; i < lookups; i++) {
      this.done.push(new Map());
      this.pending.push(new Map());
    }
  }

  /** The in-flight lookup `lookup` (index into the run's lookups) of this number, if any. */
  inFlight(lookup: number, number: string): Pending | undefined {
    return this.pending[lookup]?.get(number);
  }

  /** A fresh copy of the finished answer, if there is one. */
  finished(lookup: number, number: string): Finished | undefined {
    const hit = this.done[lookup]?.get(number);
    if (hit === undefined) return undefined;
    if (typeof hit === 'string') return { result: this.codec.decode(hit), error: null };
    return { result: null, error: hit };
  }

  start(lookup: number, number: string, p: Pending): void {
    this.pending[lookup]?.set(number, p);
  }

  /** The lookup ended; `answer` undefined means "do not keep it" (a transient failure). */
  finish(lookup: number, number: string, answer: Finished | undefined): void {
    this.pending[lookup]?.delete(number);
    if (!answer) return;
    this.done[lookup]?.set(number, answer.error ?? this.codec.encode(answer.result));
  }

  /** The in-flight entry is abandoned (the run stopped) without an answer. */
  forget(lookup: number, number: string): void {
    this.pending[lookup]?.delete(number);
  }

  get size(): number {
    let n = 0;
    for (const m of this.done) n += m.size;
    return n;
  }
}
