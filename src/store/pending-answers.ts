// Answers waiting to go into the LMDB file: what a run of a few numbers fetched without opening LMDB
// (light-store.ts) leaves in `pending/` beside it, one small file per run, written whole under a
// temporary name and renamed (a reader sees a file entire or not at all). The next process that
// opens LMDB for writing moves them in and removes the files (LmdbAnswerStore.merge); until then
// every reader of the cache reads them too. Files a merge listed are removed only after its commit,
// and a file written after the listing waits for the next merge: no answer is lost between the two.
import { readFileSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Result } from '../core/records.js';
import { tempSuffix } from '../core/temp-name.js';
import { makeDir } from './cache-dir.js';

/** One answer: its lookup as the cache names it ("<origin> <kind> <options>"), the number, when it was fetched. */
export interface PendingAnswer {
  readonly lookup: string;
  readonly number: string;
  readonly fetchedAt: number;
  readonly result: Result;
}

/** [fetchedAt, result], as the LMDB file stores an answer. */
export type Stored = [fetchedAt: number, result: Result];

/** The answers of a lookup by number, the newest of each. */
export type HeldAnswers = Map<string, Map<string, Stored>>;

export interface PendingFiles {
  /** The files read, and unreadable ones: removed after a merge. */
  readonly files: readonly string[];
  readonly answers: readonly PendingAnswer[];
}

/** A temporary file this old was left by a process that died while writing it. */
const STALE_MS = 3_600_000;

export function pendingDir(cacheDir: string): string {
  return join(cacheDir, 'pending');
}

/** The answer files waiting in `dir` (none when it does not exist), by path. */
export function listPending(dir: string): string[] {
  try {
    return readdirSync(dir)
      .filter((name) => name.endsWith('.json'))
      .map((name) => join(dir, name));
  } catch {
    return [];
  }
}

/**
 * Every answer waiting in `dir`, read from `listed` (listPending's, when the caller has it), and
 * the files to remove once they are merged: those read, and unreadable ones.
 */
export function readPending(dir: string, listed = listPending(dir)): PendingFiles {
  const files: string[] = [];
  const answers: PendingAnswer[] = [];
  for (const file of listed) {
    let entries: unknown;
    try {
      entries = JSON.parse(readFileSync(file, 'utf8'));
    } catch (err) {
      // Gone: merged by another process since the listing (its answers are in LMDB now).
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') files.push(file);
      continue;
    }
    files.push(file);
    if (!Array.isArray(entries)) continue;
    for (const e of entries as unknown[]) {
      if (!Array.isArray(e) || e.length !== 4) continue;
      const [lookup, number, fetchedAt, result] = e as unknown[];
      if (typeof lookup === 'string' && typeof number === 'string' && typeof fetchedAt === 'number' && typeof result === 'object' && result !== null && !Array.isArray(result)) {
        answers.push({ lookup, number, fetchedAt, result: result as Result });
      }
    }
  }
  return { files, answers };
}

/** Leaves `answers` for the next merge, in one new file. Throws what the file system refused. */
export function writePending(dir: string, answers: readonly PendingAnswer[]): void {
  const name = tempSuffix();
  const partial = join(dir, `.${name}.tmp`);
  const text = JSON.stringify(answers.map((a) => [a.lookup, a.number, a.fetchedAt, a.result]));
  const write = () => writeFileSync(partial, text, { mode: 0o600, flag: 'wx' });
  try {
    // The directory is made only when missing: making it first every time failed (it exists) with
    // an error thrown and caught on every run.
    try {
      write();
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      makeDir(dir);
      write();
    }
    renameSync(partial, join(dir, `${name}.json`));
  } catch (err) {
    rmSync(partial, { force: true });
    throw err;
  }
}

/** After a merge committed: the files it read, and temporary ones a killed process left. */
export function removePending(dir: string, files: readonly string[]): void {
  for (const file of [...files, ...staleTemporaryFiles(dir)]) rmSync(file, { force: true });
}

/** The answers by lookup and number, the newest of each (files may hold one answer twice). */
export function holdAnswers(answers: readonly PendingAnswer[], into: HeldAnswers = new Map()): HeldAnswers {
  for (const a of answers) {
    let byNumber = into.get(a.lookup);
    if (!byNumber) into.set(a.lookup, (byNumber = new Map()));
    const there = byNumber.get(a.number);
    if (!there || there[0] < a.fetchedAt) byNumber.set(a.number, [a.fetchedAt, a.result]);
  }
  return into;
}

/** The newer of two answers, either maybe missing. */
export function newer(a: Stored | undefined, b: Stored | undefined): Stored | undefined {
  if (!a) return b;
  if (!b) return a;
  return b[0] > a[0] ? b : a;
}

/** Temporary files in `dir` older than STALE_MS: left by a process that died while writing one. */
function staleTemporaryFiles(dir: string): string[] {
  const stale: string[] = [];
  try {
    for (const name of readdirSync(dir)) {
      if (!name.endsWith('.tmp')) continue;
      const file = join(dir, name);
      try {
        if (Date.now() - statSync(file).mtimeMs > STALE_MS) stale.push(file);
      } catch {
        // gone: renamed into place, or removed
      }
    }
  } catch {
    // no directory: nothing left
  }
  return stale;
}
