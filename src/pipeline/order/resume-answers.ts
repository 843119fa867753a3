// --resume, and never paying twice: the answers a JSON lines file already holds, for the resumed
// run's dedup. A number that recurs after the resume point then takes its earlier row's answer, as
// it would have in one uninterrupted run, instead of a request (with --no-cache nothing else has
// it). Streamed, a chunk of the file at a time: the dedup spills what it is given to its temp
// file, so a million-row file costs the heap only the dedup's index.
//
// Only successes are given: a record's result is the service's answer as received, so the later
// row's record is the one an uninterrupted run writes (same result, `cached` and `fetched_at`). A
// failed lookup is not: the file does not say whether the run kept its error (a refusal) or would
// have tried again (a failure after retries), and asking again costs only if it then succeeds.
// CSV and TSV files are not read back: their cells lose the result's types (the number 7, the
// text "7", true and "true" are one cell; an absent field and a null one are one empty cell), so
// no result can be rebuilt that is the one the service gave, which the record carries to --report;
// a resumed CSV pays again for a recurring number unless the cache has it.
import { createReadStream } from 'node:fs';
import type { LookupKind } from '../../core/lookups.js';
import { isObject } from '../../core/json.js';
import type { Result } from '../../core/records.js';
import type { Finished } from '../../store/answer-store.js';
import { readError } from '../source/errors.js';
import { lineBatches, type ResumePoint } from './resume.js';

/** One written row's number and its successful answers, per lookup of the run (undefined: none). */
export interface WrittenAnswers {
  readonly number: string;
  readonly answers: readonly (Finished | undefined)[];
}

/**
 * The answers of the first `point.rows` records of a JSON lines file (its bytes up to
 * `point.validBytes`, which inspectOutputForResume found whole), `kinds` being the run's lookups
 * in plan order, those of each chunk of the file together. Rows with an invalid number or no
 * success give nothing.
 */
export async function* writtenAnswers(path: string, label: string, point: ResumePoint, kinds: readonly LookupKind[]): AsyncGenerator<WrittenAnswers[]> {
  if (point.rows === 0 || point.validBytes === 0) return;
  const chunks = createReadStream(path, { end: point.validBytes - 1 });
  try {
    for await (const batch of lineBatches(chunks)) {
      const found: WrittenAnswers[] = [];
      for (const line of batch) {
        const answers = line.trim() === '' ? undefined : answersOf(JSON.parse(line) as unknown, kinds);
        if (answers) found.push(answers);
      }
      yield found;
    }
  } catch (err) {
    throw readError(err, label);
  } finally {
    chunks.destroy();
  }
}

function answersOf(record: unknown, kinds: readonly LookupKind[]): WrittenAnswers | undefined {
  if (!isObject(record) || typeof record.number !== 'string') return undefined;
  // An enrich record keeps results, cached and fetched_at per lookup; a single lookup's, one each.
  const enrich = isObject(record.results);
  const part = (field: unknown, kind: LookupKind): unknown => (enrich ? (isObject(field) ? field[kind] : undefined) : record.lookup === kind ? field : undefined);
  let any = false;
  const answers = kinds.map((kind): Finished | undefined => {
    const result = part(enrich ? record.results : record.result, kind);
    if (!isObject(result)) return undefined;
    any = true;
    const at = part(record.fetched_at, kind);
    const fetchedAt = typeof at === 'string' ? Date.parse(at) : NaN;
    return { result: result as Result, error: null, cached: part(record.cached, kind) === true, ...(Number.isNaN(fetchedAt) ? {} : { fetchedAt }) };
  });
  return any ? { number: record.number, answers } : undefined;
}
