// What a lookup command (or enrich) was asked to do, after its flags were parsed.
import type { LookupDescriptor, LookupOptions } from '../core/lookups.js';

import type { OutputFormat } from '../output/layout.js';

export type Format = OutputFormat;

export interface RunRequest {
  readonly mode: 'single' | 'enrich';
  readonly lookups: readonly LookupDescriptor[];
  readonly options: LookupOptions;
  // input
  readonly numbers: readonly string[];
  readonly input?: string;
  readonly csv: boolean;
  readonly column?: string;
  readonly delimiter?: string;
  readonly header: boolean;
  /** --sheet: an .xlsx input's sheet, by name or 1-based position. */
  readonly sheet?: string | undefined;
  readonly validate: boolean;
  // output
  readonly format?: Format;
  readonly output?: string;
  readonly resume: boolean;
  readonly rawCsv: boolean;
  /** --cache-columns: CSV/TSV get `cached` and `fetched_at` columns. */
  readonly cacheColumns: boolean;
  /** --fields: the result fields to write, unparsed. */
  readonly fields?: string;
  /** --report: an HTML report of the run's records, written when it ends. */
  readonly report?: string;
  /** false for --no-color; undefined = decide from the terminal and environment. */
  readonly color?: boolean;
  // throughput (undefined = settings/env/config/default)
  readonly concurrency?: number;
  readonly rate?: number;
  readonly retries?: number;
  readonly timeout?: number;
  readonly maxFailures?: number;
  /** --max-wait, seconds. */
  readonly maxWait?: number;
  // service
  readonly baseUrl?: string;
  readonly apiKeyFile?: string;
  readonly profile?: string;
  readonly transport?: 'rest' | 'graphql' | 'bulk';
  readonly batchSize?: number;
  /** --ca-file: a PEM of CA certificates trusted besides the default. */
  readonly caFile?: string;
  readonly sandbox: boolean;
  /** --today with --sandbox: the sandbox's day, YYYY-MM-DD (else the clock's). */
  readonly sandboxToday?: string | undefined;
  // cost control
  /** --dry-run: read and check the input, send nothing, report what the run would do. */
  readonly dryRun: boolean;
  /** The persistent cache: on (default), refresh (--refresh: write only), off (--no-cache). */
  readonly cache: 'on' | 'refresh' | 'off';
  /** --max-age, unparsed (a setting: parsed with the config's in resolveSettings). */
  readonly maxAge?: string;
  /** --price, unparsed (`lrn=0.0005,cnam=0.006`). */
  readonly price?: string;
  /** --max-lookups: requests at most. */
  readonly maxLookups?: number;
  /** --max-spend: money at most, at the known prices. */
  readonly maxSpend?: number;
  // messages
  readonly progress: boolean;
  readonly quiet: boolean;
  readonly verbose: boolean;
}
