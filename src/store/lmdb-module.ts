// lmdb, loaded the first time a store opens the database, and only then: a run without the cache,
// or a light run the cache does not answer (light-store.ts), never loads its native module.
// Synchronously, so that a light store can open the database in the middle of a run, when a number
// turns out to be in it. The command-line bundle replaces this module with a plain require of its
// carried copy of lmdb (scripts/lmdb-bundle.js).
import { createRequire } from 'node:module';

let lmdb: typeof import('lmdb') | undefined;
let orderedBinary: typeof import('ordered-binary') | undefined;

export function loadLmdb(): typeof import('lmdb') {
  return (lmdb ??= createRequire(import.meta.url)('lmdb') as typeof import('lmdb'));
}

/**
 * lmdb's key encoding, for the plain-read lookup (lmdb-peek.ts), loaded on its first key: loading
 * it compiles a function it writes at run time (no code cache holds that), which a run that never
 * reads the file should not pay.
 */
export function loadOrderedBinary(): typeof import('ordered-binary') {
  return (orderedBinary ??= createRequire(import.meta.url)('ordered-binary') as typeof import('ordered-binary'));
}
