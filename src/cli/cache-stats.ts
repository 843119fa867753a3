// What `numintel cache stats` prints: the JSON document, and the figures of its table or text.
import { LOOKUP_KINDS } from '../core/lookups.js';
import { formatDuration } from '../settings/max-age.js';
import type { CacheStats } from '../store/lmdb-store.js';
import type { Figures } from './figures.js';

export function statsJson(s: CacheStats) {
  return {
    path: s.path,
    bytes: s.bytes,
    entries: s.entries,
    lookups: Object.fromEntries(LOOKUP_KINDS.map((k) => [k, { ...s.kinds[k], max_age_ms: s.maxAge[k] }])),
    pruned_at: s.prunedAt === undefined ? null : new Date(s.prunedAt).toISOString(),
  };
}

/** The number formats come from the figures module, which the command loads when it runs. */
export function statsFigures(s: CacheStats, { bytes, count }: typeof import('./figures.js')): Figures {
  const perEntry = s.entries > 0 ? ` (${Math.round(s.bytes / s.entries)} bytes an entry)` : '';
  return {
    title: 'Lookup cache',
    lines: [
      ['path', s.path],
      ['size', `${bytes(s.bytes)}${perEntry}`],
      ['entries', count(s.entries)],
      ['last pruned', s.prunedAt === undefined ? 'never' : new Date(s.prunedAt).toISOString()],
    ] as [string, string][],
    table: {
      head: ['lookup', 'entries', 'fresh', 'expired', 'max age'],
      rows: LOOKUP_KINDS.map((k) => [k, count(s.kinds[k].entries), count(s.kinds[k].fresh), count(s.kinds[k].expired), formatDuration(s.maxAge[k])]),
    },
  };
}
