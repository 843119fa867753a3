// One row's lookups, as the runner tracks them, and the record written for it. Key order is part
// of the output contract (json/jsonl readers diff it): input, number, lookup|…, ok, result(s),
// error(s), cached, fetched_at, then the CSV row last.
import type { LookupDescriptor } from '../../core/lookups.js';
import type { EnrichRecord, LookupError, LookupRecord, OutputRecord, Result } from '../../core/records.js';
import type { SourceItem } from '../../core/run.js';

export type RunMode = 'single' | 'enrich';

export interface RowState {
  readonly item: SourceItem;
  /** The normalised number, or null when it did not parse (then nothing is sent). */
  readonly number: string | null;
  /** Lookups of this row not answered yet; the row is done at 0. */
  unanswered: number;
  /** Per lookup of the run, in the plan's order. */
  readonly results: (Result | null)[];
  readonly errors: (LookupError | null)[];
  /** Per lookup: answered from the persistent cache. */
  readonly cached: boolean[];
  /** Per lookup: when its answer was fetched (epoch ms), null without an answer. */
  readonly fetchedAt: (number | null)[];
}

export function newRow(item: SourceItem, number: string | null, lookups: number): RowState {
  return {
    item,
    number,
    unanswered: lookups,
    results: filled<Result | null>(lookups, null),
    errors: filled<LookupError | null>(lookups, null),
    cached: filled(lookups, false),
    fetchedAt: filled<number | null>(lookups, null),
  };
}

/** `n` times `value`, in a packed array (`new Array(n).fill()` leaves a holey one, slower to read and to make). */
function filled<T>(n: number, value: T): T[] {
  const out: T[] = [];
  for (let i = 0; i < n; i++) out.push(value);
  return out;
}

// Formatting a date costs more than the rest of the record, and rows come out in input order, not
// in the order they were answered, so consecutive rows rarely share a millisecond (one text for
// the last millisecond missed about every row) but nearly always a second: the text of the
// second is kept and only the milliseconds are written per row.
let lastSecond = NaN;
let secondIso = '';
const iso = (ms: number | null | undefined): string | null => {
  // A time no Date can show (a store's damaged entry) is no time: the run must not end on it.
  if (ms == null || !Number.isFinite(ms) || Math.abs(ms) > 8.64e15) return null;
  // Times before 1970, between milliseconds or past 9999 are left to Date, which formats every time there is.
  if (!Number.isInteger(ms) || ms < 0 || ms >= LAST_FOUR_DIGIT_YEAR_MS) return new Date(ms).toISOString();
  const second = Math.floor(ms / 1000);
  if (second !== lastSecond) {
    secondIso = utcSecond(second);
    lastSecond = second;
  }
  const milli = ms - second * 1000;
  return `${secondIso}${milli < 10 ? '00' : milli < 100 ? '0' : ''}${milli}Z`;
};

/** 10000-01-01T00:00:00Z: from there on the ISO text has six-digit years. */
const LAST_FOUR_DIGIT_YEAR_MS = 253_402_300_800_000;

/**
 * `YYYY-MM-DDTHH:MM:SS.` of a second since 1970, from Date's UTC fields. Not `toISOString`: its
 * first call in a process sets up V8's time-zone cache (ICU), most of a millisecond of a
 * one-number run, which the UTC fields never need.
 */
function utcSecond(second: number): string {
  const d = new Date(second * 1000);
  return `${d.getUTCFullYear()}-${two(d.getUTCMonth() + 1)}-${two(d.getUTCDate())}T${two(d.getUTCHours())}:${two(d.getUTCMinutes())}:${two(d.getUTCSeconds())}.`;
}

const two = (n: number): string => (n < 10 ? `0${n}` : `${n}`);

export function buildRecord(row: RowState, mode: RunMode, lookups: readonly LookupDescriptor[]): OutputRecord {
  const { item, number } = row;
  if (mode === 'single') {
    // The runner takes no single-lookup run without its one lookup.
    const d = lookups[0] as LookupDescriptor;
    const error = row.errors[0] ?? null;
    const rec: LookupRecord = {
      input: item.input,
      number,
      lookup: d.kind,
      ok: error === null,
      result: row.results[0] ?? null,
      error,
      cached: row.cached[0] ?? false,
      fetched_at: iso(row.fetchedAt[0]),
    };
    if (item.row) rec.row = item.row;
    return rec;
  }
  const results: EnrichRecord['results'] = {};
  const errors: EnrichRecord['errors'] = {};
  const cached: EnrichRecord['cached'] = {};
  const fetched: EnrichRecord['fetched_at'] = {};
  let ok = true;
  lookups.forEach((d, i) => {
    results[d.kind] = row.results[i] ?? null;
    const e = row.errors[i] ?? null;
    errors[d.kind] = e;
    if (e !== null) ok = false;
    cached[d.kind] = row.cached[i] ?? false;
    fetched[d.kind] = iso(row.fetchedAt[i]);
  });
  const rec: EnrichRecord = { input: item.input, number, ok, results, errors, cached, fetched_at: fetched };
  if (item.row) rec.row = item.row;
  return rec;
}
