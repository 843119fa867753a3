// Types shared by the stages of one run: what sources yield, what the runner counts, what sinks take.
import type { OutputRecord } from './records.js';

/** One input number (one list line, one argument, or one CSV row), in input order. */
export interface SourceItem {
  /** 0-based position among the input's data rows. */
  readonly index: number;
  /** The number cell as the user gave it ('' when a CSV row has no such cell). */
  readonly input: string;
  /** CSV input only: every input column, unchanged, keyed by header name. */
  readonly row?: Record<string, string>;
}

/**
 * Items that can also be read a batch at a time (a CSV source: the rows of one chunk of input), so
 * that a reader pays one asynchronous step per batch, not one per row. `batches()` and iterating
 * the items are two ways to read the same rows: a reader uses one of them, once.
 */
export interface BatchedItems extends AsyncIterable<SourceItem> {
  batches(): AsyncGenerator<readonly SourceItem[]>;
}

export function hasBatches(items: AsyncIterable<SourceItem>): items is BatchedItems {
  return typeof (items as Partial<BatchedItems>).batches === 'function';
}

/** Counters of one run, for the progress bar and the closing summary. */
export interface RunStats {
  /** Input rows read so far. */
  rows: number;
  /** Rows written (finished, in order). */
  written: number;
  /** Requests sent to the service: `lookups` + `retries`. */
  requests: number;
  /** Lookups sent: first tries of requests that went out (a duplicate or an invalid number sends none). */
  lookups: number;
  /** Lookups answered from this run's earlier result for the same number. */
  duplicates: number;
  /** Lookups answered from the persistent cache: no request, no charge. */
  cacheHits: number;
  /** Answers the service gave (results, not errors): what a run is charged for. */
  billed: number;
  /** Rows whose number was refused before sending, or by the service as invalid. */
  invalid: number;
  /** Rows with at least one failed lookup (other than invalid). */
  failed: number;
  /** Requests sent that were retries. */
  retries: number;
  /** Responses with status 429. */
  rateLimited: number;
  /** When the run started, epoch ms. */
  startedAt: number;
  /** Rows known to be in the input, when it could be counted up front. */
  total?: number;
  /** A long wait under way (a server's hint), for the progress bar: until when (epoch ms), and why. */
  waiting?: { readonly until: number; readonly reason: string };
}

export function newRunStats(now: number): RunStats {
  return { rows: 0, written: 0, requests: 0, lookups: 0, duplicates: 0, cacheHits: 0, billed: 0, invalid: 0, failed: 0, retries: 0, rateLimited: 0, startedAt: now };
}

/**
 * Where finished records go, in order. `write` returns a promise only when the record may not be
 * followed at once (the stream is full, or gone): awaited, it resolves once the stream took more.
 * Nothing to await, the common case, costs a bulk run no promise and no turn of the event loop a row.
 */
export interface RecordSink {
  write(record: OutputRecord): Promise<void> | undefined;
  /** Finishes the output (closing `]` of json, flush) without closing the underlying stream. */
  end(): Promise<void>;
}

/** A sink whose format starts before its first record: the CSV header, JSON's `[`. */
export interface OpeningSink extends RecordSink {
  /** Writes that start; resolves once the stream took it. */
  begin(): Promise<void>;
}

/**
 * The keys of a CSV row object, one per cell: the header names, a repeated name made unique
 * (`phone`, `phone_2`) so no cell hides another, then `column<N>` for cells past the header.
 * The CSV sink maps input columns back to cells with the same keys.
 */
export function rowKeys(columns: readonly string[], width = columns.length): string[] {
  const taken = new Set(columns);
  const seen = new Set<string>();
  const keys: string[] = [];
  for (let i = 0; i < Math.max(width, columns.length); i++) {
    const name = columns[i] ?? `column${i + 1}`;
    let key = name;
    for (let n = 2; seen.has(key) || (key !== name && taken.has(key)); n++) key = `${name}_${n}`;
    seen.add(key);
    taken.add(key);
    keys.push(key);
  }
  return keys;
}
