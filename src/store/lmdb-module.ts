// lmdb, loaded the first time a store opens the database, and only then: a run without the cache
// never loads its native module. The command-line bundle replaces this module with a plain require
// of its carried copy of lmdb (scripts/lmdb-bundle.js).
import { createRequire } from 'node:module';

let lmdb: typeof import('lmdb') | undefined;

export function loadLmdb(): typeof import('lmdb') {
  return (lmdb ??= createRequire(import.meta.url)('lmdb') as typeof import('lmdb'));
}
