// What `numintel cache` and a run's close do to the file as a whole: walk its entries, remove
// those expired or of one lookup, count them.
import type { RootDatabase } from 'lmdb';
import type { LookupKind } from '../core/lookups.js';
import { prefixIdOf, type Key } from './answer-keys.js';
import type { OpenGate } from './open-gate.js';

export interface OpenCache {
  readonly db: RootDatabase;
  readonly gate: OpenGate;
  /** The lookup of each prefix id in the file. */
  readonly kinds: ReadonlyMap<number, LookupKind>;
  /** Throws when the disk has no room for a commit. */
  checkDisk(): void;
}

export interface Entry {
  readonly key: Key;
  readonly kind: LookupKind | undefined;
  readonly fetchedAt: number;
}

/** Each answer with its lookup and fetch time (the file's own entries skipped). */
export function* entries({ db, kinds }: OpenCache): Generator<Entry> {
  for (const { key, value } of db.getRange({}) as Iterable<{ key: unknown; value: unknown }>) {
    const id = prefixIdOf(key);
    if (id === undefined) continue;
    const fetchedAt = Array.isArray(value) && typeof value[0] === 'number' ? value[0] : 0;
    yield { key: key as Key, kind: kinds.get(id), fetchedAt };
  }
}

/** Removes the keys in large batches, a few commits: a commit per key would rewrite the tree a million times. */
export async function removeAll({ db, gate, checkDisk }: OpenCache, keys: readonly Key[]): Promise<void> {
  // Batches, not transactions, for the reason write-batches.ts gives.
  for (let i = 0; i < keys.length; i += 10_000) {
    const batch = keys.slice(i, i + 10_000);
    checkDisk();
    await gate.committingAsync(() =>
      db.batch(() => {
        for (const key of batch) void db.remove(key);
      }),
    );
  }
}

/** The pages in use: a file written through the map is as large as the map, its unused part sparse. */
export function usedBytes(db: RootDatabase | undefined): number | undefined {
  try {
    const s = db?.getStats() as { lastPageNumber?: number; pageSize?: number } | undefined;
    if (s?.lastPageNumber !== undefined && s.pageSize) return (s.lastPageNumber + 1) * s.pageSize;
  } catch {
    // the file's size then
  }
  return undefined;
}
