// The three lookups of the service, described once as data. The client (REST and GraphQL), the
// CSV writer, the table, the commands, the settings, the cache, the sandbox and the tests all read
// these descriptors or tables built from the list of them, so adding a fourth lookup is one more
// descriptor (registerLookup) plus its sandbox data (registerSandboxData): test/fourth-lookup/
// proves it.
import { isObject } from './json.js';
import type { ResultOf } from './result-types.js';

/**
 * A lookup's name. ResultOf (generated for the three built-in lookups) is the registry of their
 * result types: a lookup added with registerLookup widens it by declaration merging.
 */
export type LookupKind = keyof ResultOf & string;

/** A user-facing option that adds data to a lookup's result. */
export type OptionName = 'enhanced' | 'messaging' | 'spam';

/** Which options are switched on for one run. Absent means off. */
export type LookupOptions = Partial<Record<OptionName, boolean>>;

export type FieldType = 'string' | 'boolean' | 'integer' | 'object';

export interface FieldSpec {
  /** REST (and record) name. */
  readonly name: string;
  /** Name in the GraphQL schema (trust fields are camelCase there). */
  readonly graphqlName: string;
  readonly type: FieldType;
  /** May be null in a result. */
  readonly nullable?: boolean;
  /** Present only when this option is on. */
  readonly option?: OptionName;
  /** For type 'object': its fields. */
  readonly fields?: readonly FieldSpec[];
  /** For type 'object': prefix of its flattened CSV columns. */
  readonly csvPrefix?: string;
  /** GraphQL type name of an object field. */
  readonly graphqlType?: string;
  /** The service's echo of the number looked up: a table already shows it in its own column. */
  readonly echo?: boolean;
  /**
   * The values known for a string field (the spec's, the service's examples): its TypeScript type
   * names them and still accepts any other string the service may send.
   */
  readonly known?: readonly string[];
  /** Its heading in a table at a terminal (`caller name`); absent: its column name, `_` as spaces. */
  readonly label?: string;
  /**
   * Among the few columns a table shows of each row when all of them do not fit the terminal
   * (`lrn`, `carrier`, `caller name`, `trust`): what an analyst reads a row by at a glance.
   */
  readonly glance?: boolean;
}

export interface OptionSpec {
  readonly name: OptionName;
  /** Request-body field in REST. */
  readonly restParam: string;
  /** Argument name in GraphQL. */
  readonly graphqlArg: string;
  /** Command-line flag, without dashes. */
  readonly flag: string;
  readonly description: string;
}

/** How the REST response wraps the result: one module each in src/api/envelopes/, read by the client and written by the sandbox. */
export type Envelope =
  | 'none' // LRN: the result at top level
  | 'data-errors' // CNAM: { data, errors: string[] }
  | 'success-data'; // trust: { success, data }

/**
 * A lookup's bulk endpoint (shared/spec/bulk-endpoints.md): many numbers in one request, one row
 * per distinct number, the rows naming the result's fields their own way.
 */
export interface BulkSpec {
  /** POST path. */
  readonly path: string;
  /** The request body's list of numbers. */
  readonly numbersParam: string;
  /** The request body's field for each option (not the single endpoint's restParam). */
  readonly params: Readonly<Partial<Record<OptionName, string>>>;
  /** Most numbers one request may carry: past it the service answers 400. */
  readonly maxNumbers: number;
  /** Documented per-key limit, bulk requests per second (300 a minute): the default client rate. */
  readonly defaultRate: number;
  /** The sandbox's limit, bulk requests per second per key (its --bulk-limit default). */
  readonly sandboxLimit: number;
  /**
   * Where a row carries the result's fields. Key: a result field (`lrn`), an object field
   * (`enhanced_lrn_data`: the names of that object in a row) or an object's sub-field
   * (`enhanced_lrn_data.carrier`). Value: the names rows are known to use for it, the sandbox's
   * bulk-style name first; a dotted name is a field inside an object of the row. Reading a row:
   * a field is at the first of its names present, else under its own name; a sub-field at the
   * first of its names present, else under its own name inside the first of its object's names
   * (or the object's own name) present. Writing (the sandbox's bulk style): at the first name; a
   * field not listed under its own name (a sub-field inside its object's first name); an empty
   * list: bulk rows do not carry it.
   */
  readonly rowNames: Readonly<Record<string, readonly string[]>>;
}

export interface LookupDescriptor {
  readonly kind: LookupKind;
  readonly title: string;
  /** What the lookup tells about a number: the first line of its command's help. */
  readonly description: string;
  readonly restPath: string;
  readonly envelope: Envelope;
  /**
   * The result the envelope carries with a refused number, when it carries one (CNAM keeps its
   * envelope with spam_type INVALID_NUMBER, spec 7.3); absent: the refusal is an error body.
   */
  readonly invalidResult?: Readonly<Record<string, unknown>>;
  /** The numbers the service accepts (digits only) and how its refusal explains them. */
  readonly numbers: { readonly pattern: RegExp; readonly rule: string };
  /** How X-RateLimit-Reset counts: seconds to wait, or the Unix time of the reset. */
  readonly rateReset: 'seconds' | 'timestamp';
  readonly graphqlField: string;
  /** GraphQL type name of the result. */
  readonly graphqlType: string;
  /** Documented per-key limit, requests per second: the default client rate. */
  readonly defaultRate: number;
  /** The sandbox's limit, requests per second per key (its --limit default). */
  readonly sandboxLimit: number;
  /** How old a cached answer may be by default, ms (the max-age setting overrides it). */
  readonly maxAgeMs: number;
  readonly options: readonly OptionSpec[];
  readonly fields: readonly FieldSpec[];
  /** Its bulk endpoint, when the service has one. */
  readonly bulk?: BulkSpec;
}

const DAY = 86_400_000;
/** Bulk endpoints: 1,000 numbers a request, 300 requests a minute per key (the docs' tiered page). */
const BULK_MAX_NUMBERS = 1000;
const BULK_RATE = 5;
const ELEVEN_DIGITS = { pattern: /^1\d{10}$/, rule: 'must be 11 digits starting with 1' };
const TEN_OR_ELEVEN_DIGITS = { pattern: /^1?\d{10}$/, rule: 'must be 10 digits, or 11 digits starting with 1' };

const s = (name: string, extra: Partial<FieldSpec> = {}): FieldSpec => ({
  name,
  graphqlName: name,
  type: 'string',
  ...extra,
});

export const LRN: LookupDescriptor = {
  kind: 'lrn',
  title: 'LRN',
  description: 'Looks up the Local Routing Number of each number (and, on request, carrier, location and messaging data).',
  restPath: '/api/v1/lrn',
  envelope: 'none',
  numbers: ELEVEN_DIGITS,
  rateReset: 'seconds',
  graphqlField: 'lookupLrn',
  graphqlType: 'LrnResult',
  defaultRate: 200,
  sandboxLimit: 200,
  // Ported numbers change carrier: LRN answers age fastest.
  maxAgeMs: DAY,
  options: [
    {
      name: 'enhanced',
      restParam: 'include_enhanced_lrn',
      graphqlArg: 'includeEnhancedLrn',
      flag: 'enhanced',
      description: 'add carrier and location data (enhanced_lrn_data)',
    },
    {
      name: 'messaging',
      restParam: 'messaging_lookup',
      graphqlArg: 'includeMessaging',
      flag: 'messaging',
      description: 'add messaging provider data (messaging)',
    },
  ],
  fields: [
    s('lrn', { label: 'lrn', glance: true }),
    s('lrn_activated_at', { nullable: true, label: 'activated' }),
    {
      name: 'enhanced_lrn_data',
      graphqlName: 'enhanced_lrn_data',
      type: 'object',
      graphqlType: 'EnhancedLrnData',
      option: 'enhanced',
      csvPrefix: '',
      fields: [
        s('carrier', { glance: true }),
        s('carrier_type', { label: 'line type', known: ['WIRELESS', 'LANDLINE', 'VOIP', 'TOLLFREE', 'WRS'] }),
        s('city'),
        s('zip_code', { label: 'zip' }),
        s('county'),
        s('timezone'),
        s('state'),
        s('rate_center'),
        s('lata'),
        s('ocn'),
      ],
    },
    {
      name: 'messaging',
      graphqlName: 'messaging',
      type: 'object',
      graphqlType: 'MessagingData',
      option: 'messaging',
      csvPrefix: 'messaging_',
      fields: [
        s('provider', { label: 'messaging' }),
        s('enabled', { type: 'boolean', label: 'messaging on' }),
        s('country', { label: 'messaging country' }),
        s('country_code', { label: 'messaging country code' }),
        s('reference_id', { label: 'messaging reference' }),
      ],
    },
  ],
  bulk: {
    path: '/api/v1/lrn/bulk',
    numbersParam: 'phone_numbers',
    params: { enhanced: 'include_enhanced', messaging: 'include_messaging' },
    maxNumbers: BULK_MAX_NUMBERS,
    defaultRate: BULK_RATE,
    sandboxLimit: BULK_RATE,
    rowNames: {
      lrn: ['lrn_value', 'lrn'],
      enhanced_lrn_data: ['enhanced_lrn', 'enhanced_lrn_data', 'enhanced'],
      'enhanced_lrn_data.carrier': ['voice_provider', 'carrier'],
      messaging: ['messaging'],
      'messaging.provider': ['messaging_provider', 'messaging.messaging_provider'],
      'messaging.enabled': ['messaging_enabled', 'messaging.messaging_enabled'],
      'messaging.country': ['messaging_country', 'messaging.messaging_country'],
      'messaging.country_code': ['messaging_country_code', 'messaging.messaging_country_code'],
      'messaging.reference_id': [],
    },
  },
};

export const CNAM: LookupDescriptor = {
  kind: 'cnam',
  title: 'CNAM',
  description: 'Looks up the caller ID name of each number (and, on request, its spam classification).',
  restPath: '/api/v1/cnam',
  envelope: 'data-errors',
  invalidResult: { number: '', cnam: null, spam_type: 'INVALID_NUMBER' },
  numbers: TEN_OR_ELEVEN_DIGITS,
  rateReset: 'timestamp',
  graphqlField: 'lookupCnam',
  graphqlType: 'CnamResult',
  defaultRate: 50,
  sandboxLimit: 50,
  maxAgeMs: 7 * DAY,
  options: [
    {
      name: 'spam',
      restParam: 'include_spam',
      graphqlArg: 'includeSpam',
      flag: 'spam',
      description: 'add the spam classification (spam_type)',
    },
  ],
  fields: [s('number', { echo: true }), s('cnam', { nullable: true, label: 'caller name', glance: true }), s('spam_type', { option: 'spam', label: 'spam type', glance: true, known: ['NONE', 'SPAM', 'ROBOCALL', 'SCAM', 'INVALID_NUMBER'] })],
  bulk: {
    path: '/api/v1/cnam/bulk',
    numbersParam: 'phone_numbers',
    params: { spam: 'include_spam' },
    maxNumbers: BULK_MAX_NUMBERS,
    defaultRate: BULK_RATE,
    sandboxLimit: BULK_RATE,
    rowNames: {
      number: ['phone_number', 'number'],
      cnam: ['cnam_record', 'cnam'],
    },
  },
};

export const TRUST: LookupDescriptor = {
  kind: 'trust',
  title: 'Trust',
  description: 'Looks up spam, robocall and scam flags, a reputation score and a trust level for each number.',
  restPath: '/api/v1/trust',
  envelope: 'success-data',
  numbers: TEN_OR_ELEVEN_DIGITS,
  rateReset: 'timestamp',
  graphqlField: 'trustLookup',
  graphqlType: 'TrustResult',
  // Not documented; the service's own limit is unknown, so start at CNAM's and adapt from headers.
  defaultRate: 50,
  sandboxLimit: 100,
  maxAgeMs: DAY,
  options: [],
  fields: [
    s('phone_number', { graphqlName: 'phoneNumber', echo: true }),
    s('is_spam', { graphqlName: 'isSpam', type: 'boolean', label: 'spam' }),
    s('is_robocall', { graphqlName: 'isRobocall', type: 'boolean', label: 'robocall' }),
    s('is_scam', { graphqlName: 'isScam', type: 'boolean', label: 'scam' }),
    s('spam_type', { graphqlName: 'spamType', nullable: true, label: 'spam type', known: ['SPAM', 'SCAM', 'ROBOCALL', 'TELEMARKETER', 'NONE'] }),
    s('reputation_score', { graphqlName: 'reputationScore', type: 'integer', label: 'score' }),
    s('trust_level', { graphqlName: 'trustLevel', label: 'trust', glance: true, known: ['high', 'medium', 'low'] }),
    s('last_updated', { graphqlName: 'lastUpdated', label: 'updated' }),
  ],
};

/**
 * The registry: every lookup by name, and their names in order. Both grow only, through
 * registerLookup; whatever is built per lookup (commands, settings, tables) reads them when it is
 * built, so a lookup registered before that has its place everywhere.
 */
export const LOOKUPS: Readonly<Record<LookupKind, LookupDescriptor>> = { lrn: LRN, cnam: CNAM, trust: TRUST } as Record<LookupKind, LookupDescriptor>;
export const LOOKUP_KINDS: readonly LookupKind[] = ['lrn', 'cnam', 'trust'] as LookupKind[];

/** Adds a lookup to the registry (after the built-in ones); its name must be new. */
export function registerLookup(d: LookupDescriptor): void {
  if (Object.hasOwn(LOOKUPS, d.kind)) throw new TypeError(`a lookup named ${JSON.stringify(d.kind)} is already registered`);
  (LOOKUPS as Record<string, LookupDescriptor>)[d.kind] = d;
  (LOOKUP_KINDS as string[]).push(d.kind);
}

export function isLookupKind(value: string): value is LookupKind {
  return Object.hasOwn(LOOKUPS, value);
}

/** One value per registered lookup, computed from its descriptor: a table built from the list of kinds. */
export function perLookup<T>(value: (d: LookupDescriptor) => T): Record<LookupKind, T> {
  return Object.fromEntries(LOOKUP_KINDS.map((k) => [k, value(LOOKUPS[k])])) as Record<LookupKind, T>;
}

/** The fields a result carries for these options (sub-objects only when their option is on). */
export function activeFields(d: LookupDescriptor, opts: LookupOptions): FieldSpec[] {
  return d.fields.filter((f) => !f.option || opts[f.option] === true);
}

/** Only the options this lookup knows, so one options object can serve `enrich`'s several kinds. */
export function optionsFor(d: LookupDescriptor, opts: LookupOptions): LookupOptions {
  const out: LookupOptions = {};
  for (const o of d.options) if (opts[o.name]) out[o.name] = true;
  return out;
}

/** The REST request body: the number plus each requested option as `true`. */
export function restBody(d: LookupDescriptor, number: string, opts: LookupOptions): Record<string, unknown> {
  const body: Record<string, unknown> = { phone_number: number };
  for (const o of d.options) if (opts[o.name]) body[o.restParam] = true;
  return body;
}

/** The field behind each flattened column of these (active) fields, in fieldColumns order. */
export function columnSpecs(active: readonly FieldSpec[]): FieldSpec[] {
  return active.flatMap((f) => (f.type === 'object' ? [...(f.fields ?? [])] : [f]));
}

/** The flattened CSV columns of these (active) fields: an object field gives one per sub-field. */
export function fieldColumns(active: readonly FieldSpec[]): string[] {
  const cols: string[] = [];
  for (const f of active) {
    if (f.type === 'object') for (const sub of f.fields ?? []) cols.push(`${f.csvPrefix ?? ''}${sub.name}`);
    else cols.push(f.name);
  }
  return cols;
}

/** The flattened CSV columns of a result: depend only on the lookup and its options. */
export function csvColumns(d: LookupDescriptor, opts: LookupOptions): string[] {
  return fieldColumns(activeFields(d, opts));
}

/**
 * Flattens a result to CSV cells (in fieldColumns(active) order), values as strings; missing → ''.
 * `active` is computed once per run (activeFields), not per record.
 */
export function flattenFields(active: readonly FieldSpec[], result: Record<string, unknown> | null): string[] {
  const cells: string[] = [];
  for (const f of active) {
    const value = result?.[f.name];
    if (f.type === 'object') {
      const obj = isObject(value) ? value : undefined;
      for (const sub of f.fields ?? []) cells.push(cell(obj?.[sub.name]));
    } else {
      cells.push(cell(value));
    }
  }
  return cells;
}

/** flattenFields for a lookup and its options (csvColumns order). */
export function flattenResult(
  d: LookupDescriptor,
  opts: LookupOptions,
  result: Record<string, unknown> | null,
): string[] {
  return flattenFields(activeFields(d, opts), result);
}

function cell(value: unknown): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}
