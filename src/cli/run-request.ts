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
  readonly validate: boolean;
  // output
  readonly format?: Format;
  readonly output?: string;
  readonly resume: boolean;
  readonly rawCsv: boolean;
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
  readonly transport?: 'rest' | 'graphql';
  /** --ca-file: a PEM of CA certificates trusted besides the default. */
  readonly caFile?: string;
  readonly sandbox: boolean;
  // messages
  readonly progress: boolean;
  readonly quiet: boolean;
  readonly verbose: boolean;
}
