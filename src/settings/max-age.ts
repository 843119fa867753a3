// How old a cached answer may be and still be used, per lookup: each lookup's default is its
// descriptor's maxAgeMs (ported numbers change carrier, so LRN answers age fastest). `--max-age` (and the `max-age` setting) takes one duration for every
// lookup (`12h`), per-lookup ones (`lrn=7d,cnam=30d`), or both (`12h,cnam=30d`); a lookup not named
// keeps its default.
import { UsageError } from '../core/errors.js';
import { LOOKUP_KINDS, LOOKUPS, isLookupKind, perLookup, type LookupKind } from '../core/lookups.js';

/** Milliseconds per lookup. */
export type MaxAge = Readonly<Record<LookupKind, number>>;

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** Each registered lookup's default (its descriptor's maxAgeMs), read when asked. */
export function defaultMaxAge(): MaxAge {
  return perLookup((d) => d.maxAgeMs);
}

const UNITS: Readonly<Record<string, number>> = { s: 1000, m: MINUTE, h: HOUR, d: DAY, w: 7 * DAY };
const DURATION = /^(\d+(?:\.\d+)?)\s*([smhdw])$/i;

export const MAX_AGE_SYNTAX = 'a duration like 90m, 12h or 30d (units s, m, h, d, w), or per lookup: lrn=7d,cnam=30d';

/** `90m` → 5 400 000; undefined when it is not a duration. */
export function parseDuration(text: string): number | undefined {
  const m = DURATION.exec(text.trim());
  if (!m) return undefined;
  const ms = Number(m[1]) * (UNITS[(m[2] as string).toLowerCase()] as number);
  return Number.isFinite(ms) ? Math.round(ms) : undefined;
}

/** The max age of each lookup, or undefined when `text` does not parse (see parseMaxAge for the error). */
export function tryParseMaxAge(text: string, base: MaxAge = defaultMaxAge()): MaxAge | undefined {
  try {
    return parseMaxAge(text, 'it', base);
  } catch {
    return undefined;
  }
}

/** Parses `--max-age`; a usage error quoting the part that is wrong, and saying where it came from. */
export function parseMaxAge(text: string, origin: string, base: MaxAge = defaultMaxAge()): MaxAge {
  const out: Record<LookupKind, number> = { ...base };
  const parts = text.split(',').map((p) => p.trim());
  const bad = (part: string, why: string) =>
    new UsageError(`invalid max-age ${JSON.stringify(part)} in ${JSON.stringify(text)} from ${origin}: ${why}`, `max-age must be ${MAX_AGE_SYNTAX}`);
  if (parts.every((p) => p === '')) throw bad(text, 'it is empty');
  const named = new Set<string>();
  for (const part of parts) {
    if (part === '') throw bad(part, 'an empty item');
    const eq = part.indexOf('=');
    if (eq === -1) {
      const ms = parseDuration(part);
      if (ms === undefined) throw bad(part, 'not a duration');
      // A bare duration is every lookup's, whatever its place: `cnam=30d,12h` keeps cnam at 30 days.
      for (const kind of LOOKUP_KINDS) if (!named.has(kind)) out[kind] = ms;
      continue;
    }
    const kind = part.slice(0, eq).trim().toLowerCase();
    if (!isLookupKind(kind)) throw bad(part, `unknown lookup "${kind}" (known: ${LOOKUP_KINDS.join(', ')})`);
    if (named.has(kind)) throw bad(part, `${kind} is given twice`);
    const ms = parseDuration(part.slice(eq + 1));
    if (ms === undefined) throw bad(part, 'not a duration');
    named.add(kind);
    out[kind] = ms;
  }
  return out;
}

/** The defaults as help shows them, `lrn=24h,cnam=7d,trust=24h`: hours below a week, else days. */
export function defaultMaxAgeText(): string {
  return LOOKUP_KINDS.map((k) => {
    const ms = LOOKUPS[k].maxAgeMs;
    return `${k}=${ms < 7 * DAY && ms % HOUR === 0 ? `${ms / HOUR}h` : formatDuration(ms)}`;
  }).join(',');
}

/** `7d`, `12h`, `90m`: the largest whole unit up to days, for messages and `cache stats`. */
export function formatDuration(ms: number): string {
  for (const [unit, size] of [['d', DAY], ['h', HOUR], ['m', MINUTE]] as const) {
    if (ms >= size && ms % size === 0) return `${ms / size}${unit}`;
  }
  return `${Math.round(ms / 1000)}s`;
}
