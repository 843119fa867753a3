// How the cache file lays out its entries. Keys are one number each: the prefix id of (service,
// lookup, options key) times 10^11 plus the 11-digit number, so a key is a handful of bytes; the
// prefix ids are kept in the file itself ("prefix/<service> <kind> <options>") and never reused, so
// processes that allocated them at different times agree. A number that is not 11 digits
// (--no-validate) is keyed "<id>:<digits>". Values are [fetchedAt, result] in msgpack with lmdb's
// shared record structures: each result's field names are stored once per shape, not once per entry.
//
// The service is the base URL without its trailing slashes: scheme, host, port and path prefix,
// so `https://gw/a` and `https://gw/b` never share answers. A base URL without a path is its origin,
// which is what files written before the path was part of the key hold: they stay readable as they are.
import type { LookupKind } from '../core/lookups.js';
import type { Result } from '../core/records.js';
import { withoutTrailingSlashes } from '../core/text.js';

/** [fetchedAt, result], as the file stores an answer. */
export type Stored = [fetchedAt: number, result: Result];

export type Key = number | string;

/** Prefix id × STRIDE + number: 11-digit numbers (< 2·10^10) fit below STRIDE, ids up to 90 000 below 2^53. */
export const STRIDE = 1e11;
const ELEVEN = /^1\d{10}$/;
const ODD_KEY = /^(\d+):/;

/** "prefix/<lookup name>" → its id; the next id to allocate; when the cache was last pruned. */
export const PREFIX = 'prefix/';
export const NEXT_PREFIX = 'next-prefix';
export const PRUNED_AT = 'pruned-at';
/** "shared/<id>": another store than the prefix's creator put answers there (shared-prefixes.ts). */
export const SHARED = 'shared/';

/** What tells one service from another: the base URL without query, fragment and trailing slashes. */
export function serviceOf(baseUrl: string): string {
  const url = new URL(baseUrl);
  return `${url.origin}${withoutTrailingSlashes(url.pathname)}`;
}

/** A lookup as the file names its prefix: "<service> <kind> <options>". */
export function lookupName(service: string, kind: LookupKind, opts: string): string {
  return `${service} ${kind} ${opts}`;
}

/** The kind in a lookup name (the service holds no space: a URL's path has them escaped). */
export function kindOfName(name: string): string {
  return name.split(' ').at(-2) ?? '';
}

/** The key of a number's answer under the lookup (prefix) `id`. */
export function answerKey(id: number, number: string): Key {
  return ELEVEN.test(number) ? id * STRIDE + Number(number) : `${id}:${number}`;
}

/** The prefix id of an answer's key; undefined for the file's own entries (prefixes, marks). */
export function prefixIdOf(key: unknown): number | undefined {
  if (typeof key === 'number') return Math.floor(key / STRIDE);
  if (typeof key === 'string') {
    const m = ODD_KEY.exec(key);
    if (m) return Number(m[1]);
  }
  return undefined;
}
