// How a run gets its answer store: the persistent cache unless --no-cache or the in-process
// --sandbox says otherwise. The sandbox's answers are made up; they must never land in the cache a
// real run reads, so a sandbox run opens no store at all.
import type { Clock } from '../core/clock.js';
import { cacheDir, type Env } from '../settings/user-dirs.js';
import type { MaxAge } from '../settings/max-age.js';
import type { ProcessTable } from './open-gate.js';
import { NO_STORE, type AnswerStore } from './answer-store.js';
import { serviceOf } from './answer-keys.js';
import { LmdbAnswerStore } from './lmdb-store.js';

/** `on`: read and write; `refresh` (--refresh): write only; `off` (--no-cache, --sandbox): neither. */
export type CacheMode = 'on' | 'refresh' | 'off';

export interface OpenAnswerStoreOptions {
  readonly mode: CacheMode;
  readonly env: Env;
  readonly home: string;
  /** The service's base URL: scheme, host, port and path prefix are part of every key. */
  readonly baseUrl: string;
  readonly clock: Clock;
  readonly maxAge?: MaxAge;
  /** Reads only, and creates nothing (--dry-run). */
  readonly readOnly?: boolean;
  /** Receives the one warning of a cache that cannot be used (the caller writes it to stderr). */
  readonly warn: (message: string) => void;
  readonly processes?: ProcessTable;
}

/** Never throws: a cache that cannot be used warns once and the store answers nothing. */
export async function openAnswerStore(o: OpenAnswerStoreOptions): Promise<AnswerStore> {
  if (o.mode === 'off') return NO_STORE;
  return LmdbAnswerStore.open({
    dir: cacheDir(o.env, o.home),
    service: serviceOf(o.baseUrl),
    clock: o.clock,
    ...(o.maxAge ? { maxAge: o.maxAge } : {}),
    refresh: o.mode === 'refresh',
    ...(o.readOnly ? { readOnly: true } : {}),
    warn: o.warn,
    ...(o.processes ? { processes: o.processes } : {}),
  });
}
