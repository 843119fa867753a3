// Every setting numintel knows, described once as data. Resolution (flag > env > config > default),
// `numintel config set` validation, `config list` and the help texts all read this table, so a new
// setting is one more row.
import { shownUrl } from '../api/base-url.js';
import { BadOptionError, ConfigError } from '../core/errors.js';
import { isKeyShaped, maskSecret } from '../core/secret.js';
import { withoutTrailingSlashes } from '../core/text.js';
import type { Transport } from '../core/transport.js';
import { OUTPUT_FORMATS, type OutputFormat } from '../output/layout.js';
import { LOOKUP_KINDS } from '../core/lookups.js';
import { MAX_AGE_SYNTAX, defaultMaxAgeText, tryParseMaxAge, type MaxAge } from './max-age.js';
import { parsePrice, priceProperty } from './prices.js';
import { rateDescription } from './rate-text.js';

export type TransportName = Transport['name'];

/** The resolved values. Optional ones have no default: absent means "not configured" / "automatic". */
export interface SettingValues {
  /** Secret: show it only through maskSecret. */
  apiKey?: string;
  /** Without a trailing slash. */
  baseUrl?: string;
  transport: TransportName;
  /** Numbers a bulk request carries at most (transport bulk). */
  batchSize: number;
  /** Absent: chosen by the output stage (table on a terminal, else csv/jsonl). */
  format?: OutputFormat;
  concurrency: number;
  /** Requests per second; 0 = no client-side limit; absent = the lookup's documented limit. */
  rate?: number;
  retries: number;
  /** Seconds. */
  timeout: number;
  /** Seconds: the longest server wait hint obeyed; a longer one stops the run (exit 5). */
  maxWait: number;
  /** A PEM file of certificates (a private CA) trusted for HTTPS besides the default trust. */
  caFile?: string;
  /** How old a cached answer may be, per lookup; absent = each lookup's default (its descriptor's maxAgeMs). */
  maxAge?: MaxAge;
  /** Price of one lookup (`price.<lookup>`: priceLrn, priceCnam, ...), for --dry-run's cost estimate (`--price` overrides them). */
  [price: `price${string}`]: number | undefined;
}

export type SettingProperty = keyof SettingValues;
/** Values as they arrive: strings from flags and env, strings or numbers from the config file. */
export type RawValue = string | number;

export interface SettingSpec {
  /** The name in `numintel config set <name>` and in config.json. */
  readonly name: string;
  /** The property of SettingValues (and of the commander flags object). */
  readonly property: SettingProperty;
  /** Command-line flag; none for the API key, which never comes from the command line. */
  readonly flag?: string;
  readonly env?: string;
  readonly secret?: boolean;
  readonly default?: SettingValues[SettingProperty];
  /** How a bad value is quoted in errors, when it may hold something that must not be shown. */
  readonly quote?: (raw: RawValue) => string;
  /** What a valid value looks like, for error messages: "an integer ≥ 1". */
  readonly expects: string;
  readonly description: string;
  /** The typed value, or undefined when `raw` is not valid. */
  readonly parse: (raw: RawValue) => SettingValues[SettingProperty] | undefined;
  /**
   * What `config set` writes to config.json for a valid `raw`, when not the typed value: the file
   * holds strings and numbers, which `parse` reads back (max-age parses to an object per lookup).
   */
  readonly stored?: (raw: string) => RawValue;
}

const oneOf =
  <T extends string>(values: readonly T[]) =>
  (raw: RawValue): T | undefined =>
    values.find((v) => v === String(raw).trim().toLowerCase());

function toNumber(raw: RawValue): number | undefined {
  if (typeof raw === 'number') return Number.isFinite(raw) ? raw : undefined;
  const text = raw.trim();
  if (!/^[+]?(?:\d+(?:\.\d*)?|\.\d+)(?:e[+-]?\d+)?$/i.test(text)) return undefined;
  const n = Number(text);
  return Number.isFinite(n) ? n : undefined;
}

const integerAtLeast = (min: number) => (raw: RawValue) => {
  const n = toNumber(raw);
  return n !== undefined && Number.isSafeInteger(n) && n >= min ? n : undefined;
};

/** A Node timer holds at most 2^31-1 ms (about 24.9 days). */
const MAX_TIMER_SECONDS = (2 ** 31 - 1) / 1000;

const numberBetween = (min: number, max: number) => (raw: RawValue) => {
  const n = toNumber(raw);
  return n !== undefined && n >= min && n <= max ? n : undefined;
};

/** 0 (no client limit), or at least one request a day: 1e-9 is a typo, not a pace. */
const rateValue = (raw: RawValue) => {
  const n = toNumber(raw);
  return n !== undefined && (n === 0 || n >= 1 / 86_400) ? n : undefined;
};

function httpUrl(raw: RawValue): string | undefined {
  if (typeof raw !== 'string') return undefined;
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    return undefined;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
  // Credentials in a URL would leak wherever the URL is shown (errors, --verbose).
  if (url.username || url.password || url.search || url.hash) return undefined;
  return withoutTrailingSlashes(url.href);
}

function apiKey(raw: RawValue): string | undefined {
  return typeof raw === 'string' && isKeyShaped(raw) ? raw : undefined;
}

export const SETTINGS: readonly SettingSpec[] = [
  {
    name: 'api-key',
    property: 'apiKey',
    env: 'NUMINTEL_API_KEY',
    secret: true,
    expects: 'printable characters without spaces',
    description: 'API key (secret: from NUMINTEL_API_KEY, --api-key-file or `numintel config set api-key`)',
    parse: apiKey,
  },
  {
    name: 'base-url',
    property: 'baseUrl',
    flag: '--base-url',
    env: 'NUMINTEL_BASE_URL',
    expects: 'an http:// or https:// URL without user, query or fragment',
    // user:password@ or a query (?key=…) may be the very secret; never echo them.
    quote: (raw) => JSON.stringify(shownUrl(String(raw))),
    description: 'base address of the service, e.g. https://api.example.com',
    parse: httpUrl,
  },
  {
    name: 'ca-file',
    property: 'caFile',
    flag: '--ca-file',
    env: 'NUMINTEL_CA_FILE',
    expects: 'the path of a PEM file of CA certificates',
    description: 'PEM file of CA certificates to trust for HTTPS, besides the system ones and NODE_EXTRA_CA_CERTS',
    parse: (raw) => (typeof raw === 'string' && raw.trim() !== '' && !/[\r\n]/.test(raw) ? raw.trim() : undefined),
  },
  {
    name: 'transport',
    property: 'transport',
    flag: '--transport',
    env: 'NUMINTEL_TRANSPORT',
    default: 'rest',
    expects: 'rest, graphql or bulk',
    description: 'how to talk to the service (bulk: LRN and CNAM up to batch-size numbers a request)',
    parse: oneOf<TransportName>(['rest', 'graphql', 'bulk']),
  },
  {
    name: 'batch-size',
    property: 'batchSize',
    flag: '--batch-size',
    env: 'NUMINTEL_BATCH_SIZE',
    default: 1000,
    expects: 'an integer from 1 to 1000',
    description: 'numbers a bulk request carries at most (transport bulk)',
    parse: (raw) => {
      const n = integerAtLeast(1)(raw);
      return n !== undefined && n <= 1000 ? n : undefined;
    },
  },
  {
    // No NUMINTEL_FORMAT: an inherited variable silently changing what a script parses is a trap;
    // a profile default is explicit and local.
    name: 'format',
    property: 'format',
    flag: '--format',
    expects: OUTPUT_FORMATS.join(', '),
    description: 'output format (default: table on a terminal, else csv for CSV input, jsonl otherwise)',
    parse: oneOf(OUTPUT_FORMATS),
  },
  {
    name: 'concurrency',
    property: 'concurrency',
    flag: '--concurrency',
    default: 16,
    expects: 'an integer ≥ 1',
    description: 'requests in flight at once',
    parse: integerAtLeast(1),
  },
  {
    name: 'rate',
    property: 'rate',
    flag: '--rate',
    expects: 'a number of requests per second: 0 (no client-side limit) or at least 1/86400 (one a day)',
    description: rateDescription(),
    parse: rateValue,
  },
  {
    name: 'retries',
    property: 'retries',
    flag: '--retries',
    default: 5,
    expects: 'an integer ≥ 0',
    description: 'retries of a transient failure',
    parse: integerAtLeast(0),
  },
  {
    name: 'timeout',
    property: 'timeout',
    flag: '--timeout',
    default: 15,
    expects: 'a number of seconds from 0.001 to 2147483 (about 24.8 days)',
    description: 'seconds one request may take, whole (connect, headers and body)',
    parse: numberBetween(0.001, Math.floor(MAX_TIMER_SECONDS)),
  },
  {
    name: 'max-wait',
    property: 'maxWait',
    flag: '--max-wait',
    default: 300,
    expects: 'a number of seconds from 0 to 2147483',
    description: 'the longest wait a server may ask for (Retry-After); a longer one stops the run, resumably (exit 5)',
    parse: numberBetween(0, Math.floor(MAX_TIMER_SECONDS)),
  },
  {
    name: 'max-age',
    property: 'maxAge',
    flag: '--max-age',
    expects: MAX_AGE_SYNTAX,
    description: `how old a cached answer may be (default ${defaultMaxAgeText()})`,
    parse: (raw) => tryParseMaxAge(String(raw)),
    stored: (raw) => raw.trim(),
  },
  // One per lookup registered when this table is made.
  ...LOOKUP_KINDS.map(
    (kind): SettingSpec => ({
      name: `price.${kind}`,
      property: priceProperty(kind),
      expects: 'a price per lookup ≥ 0, e.g. 0.0005',
      description: `price of one ${kind} lookup, for --dry-run, --max-spend and reports`,
      parse: parsePrice,
    }),
  ),
];

export const SETTING_NAMES: readonly string[] = SETTINGS.map((s) => s.name);

export function findSetting(name: string): SettingSpec | undefined {
  return SETTINGS.find((s) => s.name === name);
}

/** The error for a value that does not fit; a secret is described, never quoted. */
function invalidValue(spec: SettingSpec, raw: RawValue, origin: string) {
  const shown = spec.secret ? '' : ` ${(spec.quote ?? JSON.stringify)(raw)}`;
  return new BadOptionError(`invalid ${spec.name}${shown} from ${origin}${spec.secret ? ' (not shown: it is a secret)' : ''}`, `${spec.name} must be ${spec.expects}`);
}

/** Parses `raw` or throws a usage error saying where it came from (`--rate`, `NUMINTEL_BASE_URL`, ...). */
export function parseSetting(spec: SettingSpec, raw: RawValue, origin: string): SettingValues[SettingProperty] {
  const value = spec.parse(raw);
  if (value === undefined) throw invalidValue(spec, raw, origin);
  return value;
}

/** Parses `raw` (from `config set`) and gives the value to write to config.json. */
export function settingToStore(spec: SettingSpec, raw: string, origin: string): RawValue {
  const value = parseSetting(spec, raw, origin);
  return spec.stored ? spec.stored(raw) : (value as RawValue);
}

/** How a stored value is shown by `config get` / `config list`. */
export function showSetting(spec: SettingSpec, value: unknown): string {
  return spec.secret ? maskSecret(String(value)) : String(value);
}

/** The spec of `name`, or a usage error listing the known settings. */
export function requireKnownSetting(name: string): SettingSpec {
  const spec = findSetting(name);
  if (spec) return spec;
  throw new ConfigError(`unknown setting ${JSON.stringify(name)}`, `known settings: ${SETTING_NAMES.join(', ')}`);
}
