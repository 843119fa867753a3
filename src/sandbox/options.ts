// The sandbox's knobs, their defaults and their checks. The CLI and the admin endpoint share the
// checks, so a bad value is refused the same way wherever it comes from.
import { isKeyShaped } from '../core/secret.js';
import { isObject } from '../core/json.js';
import { LOOKUPS, isLookupKind, perLookup, type LookupKind } from '../core/lookups.js';
import type { RateHeaderStyle } from './rate-window.js';

/** The error bodies the sandbox sends (see error-styles.ts). */
export const ERROR_STYLES = ['numintel', 'vri'] as const;
export type ErrorStyle = (typeof ERROR_STYLES)[number];

/** Requests per second per API key and lookup; 0 = unlimited; a lookup not named: its descriptor's sandboxLimit. */
export type SandboxLimits = Partial<Record<LookupKind, number>>;

/** How bulk rows name the result's fields: the bulk endpoints' own names, or the single endpoint's. */
export const BULK_ROW_STYLES = ['bulk', 'single'] as const;
export type BulkRowStyle = (typeof BULK_ROW_STYLES)[number];

export interface SandboxOptions {
  /** Interface to listen on: loopback unless told otherwise. */
  host: string;
  /** 0 = any free port (programmatic default); the CLI defaults to 4010. */
  port: number;
  /**
   * HTTPS instead of HTTP: true makes a self-signed certificate for localhost, 127.0.0.1 and ::1 at
   * start; or the PEM texts of a certificate and its key. The certificate to trust is then on the
   * sandbox as `ca` (text) and `caFile` (a file, for NODE_EXTRA_CA_CERTS or --ca-file).
   */
  tls: boolean | { cert: string; key: string };
  /** Accepted API keys (Authorization: Bearer <key>). */
  apiKeys: string[];
  /** Picks the synthetic universe: the same seed and number always give the same answer. */
  seed: number | string;
  /**
   * The sandbox's day, YYYY-MM-DD (UTC): activation and trust-update dates are counted back from
   * it. Undefined: the UTC day of the sandbox's clock at start (or when this is set back to undefined).
   */
  today: string | undefined;
  limits: SandboxLimits;
  /** Length of every rate window, ms (whole seconds). Default 1000. */
  windowMs: number;
  /** One budget per key for all lookups, requests per window, instead of each lookup's; 0 = off. */
  sharedLimit: number;
  /** At most this × the limit's per-second average in any wall-clock second; undefined = no cap within the window. */
  burst: number | undefined;
  /** Leave the limit out of the rate headers (X-RateLimit-Limit, the policy's quota). */
  hideLimit: boolean;
  /** Which fields report the budget: X-RateLimit-* (default), the IETF RateLimit/RateLimit-Policy, or both. */
  rateHeaders: RateHeaderStyle;
  /** Serve the bulk endpoints (false: 404 there, as a server without them). */
  bulk: boolean;
  /** Most numbers one bulk request may carry; past it 400. */
  bulkMax: number;
  /** Bulk requests per window per API key and lookup; 0 = unlimited; a lookup not named: its descriptor's bulk.sandboxLimit. */
  bulkLimits: SandboxLimits;
  /** The field names of bulk rows. */
  bulkRows: BulkRowStyle;
  /** Probability (0..1) that a distinct valid number of a bulk request comes back as a `failed` row. */
  bulkFailRate: number;
  /** Billed lookups allowed per key; undefined = unlimited. Past it: 402. */
  quota: number | undefined;
  /** Added to every lookup/GraphQL response, in ms. */
  latencyMs: number;
  /** Up to this many ms more, at random. */
  jitterMs: number;
  /** Probability (0..1) of a 500/502/503 answer. */
  failRate: number;
  /** Probability of a connection reset instead of an answer. */
  resetRate: number;
  /** Probability of never answering (until close()). */
  hangRate: number;
  /** Probability of a spurious 429 with the endpoint's usual hints. */
  rate429: number;
  /** Spurious 429s carry no hint (no Retry-After, no retry_after): a gateway's bare refusal. */
  rate429Bare: boolean;
  /**
   * The error bodies: `numintel` (each endpoint its own envelope, as our description has it) or
   * `vri` (the real service's codes and three body formats, in turn). Fixed at start.
   */
  errorStyle: ErrorStyle;
  /** One log line per request through `log`. */
  verbose: boolean;
  log?: (line: string) => void;
}

/** The documented key every sandbox accepts unless told otherwise. */
export const DEFAULT_API_KEY = 'sandbox-key-0000';

/** Each lookup's sandboxLimit (a lookup registered later falls back to its own: SandboxEngine.rule). */
export const DEFAULT_LIMITS: Readonly<Record<LookupKind, number>> = perLookup((d) => d.sandboxLimit);

/** Each bulk endpoint's sandboxLimit, for the lookups that have one. */
export const DEFAULT_BULK_LIMITS: Readonly<SandboxLimits> = Object.fromEntries(
  Object.entries(perLookup((d) => d.bulk?.sandboxLimit)).filter(([, n]) => n !== undefined),
) as SandboxLimits;

/** Most numbers a bulk request may carry by default: the service's. */
export const DEFAULT_BULK_MAX = 1000;
const BULK_MAX_CAP = 100_000;

export const DEFAULT_OPTIONS: Readonly<SandboxOptions> = {
  host: '127.0.0.1',
  port: 0,
  tls: false,
  apiKeys: [DEFAULT_API_KEY],
  seed: 0,
  today: undefined,
  limits: { ...DEFAULT_LIMITS },
  windowMs: 1000,
  sharedLimit: 0,
  burst: undefined,
  hideLimit: false,
  rateHeaders: 'x',
  bulk: true,
  bulkMax: DEFAULT_BULK_MAX,
  bulkLimits: { ...DEFAULT_BULK_LIMITS },
  bulkRows: 'bulk',
  bulkFailRate: 0,
  quota: undefined,
  latencyMs: 0,
  jitterMs: 0,
  failRate: 0,
  resetRate: 0,
  hangRate: 0,
  rate429: 0,
  rate429Bare: false,
  errorStyle: 'numintel',
  verbose: false,
};

/** What may change while the sandbox runs (configure() and POST /__sandbox/config). */
const RUNTIME_KEYS = [
  'apiKeys',
  'seed',
  'today',
  'limits',
  'windowMs',
  'sharedLimit',
  'burst',
  'hideLimit',
  'rateHeaders',
  'bulk',
  'bulkMax',
  'bulkLimits',
  'bulkRows',
  'bulkFailRate',
  'quota',
  'latencyMs',
  'jitterMs',
  'failRate',
  'resetRate',
  'hangRate',
  'rate429',
  'rate429Bare',
  'verbose',
  'log',
] as const;

/** The subset the unauthenticated admin endpoint may change (not the keys, not the log sink). */
export const ADMIN_KEYS: readonly string[] = RUNTIME_KEYS.filter((k) => k !== 'apiKeys' && k !== 'log');

const PROBABILITIES = ['failRate', 'resetRate', 'hangRate', 'rate429', 'bulkFailRate'] as const;
const DURATIONS = ['latencyMs', 'jitterMs'] as const;

const isCount = (v: unknown, max: number): v is number =>
  typeof v === 'number' && Number.isInteger(v) && v >= 0 && v <= max;

/** Problems with a (partial) options object, as messages that quote the bad value; [] = fine. */
export function optionProblems(patch: Readonly<Record<string, unknown>>): string[] {
  const problems: string[] = [];
  const bad = (name: string, want: string) =>
    problems.push(`${name} must be ${want} (got ${JSON.stringify(patch[name]) ?? String(patch[name])})`);
  for (const [name, value] of Object.entries(patch)) {
    if (value === undefined && name !== 'quota') continue;
    switch (name) {
      case 'host':
        if (typeof value !== 'string' || value === '') bad(name, 'a host name or address');
        break;
      case 'port':
        if (!isCount(value, 65535)) bad(name, 'an integer from 0 to 65535');
        break;
      case 'tls':
        if (!(typeof value === 'boolean' || (isObject(value) && isPem(value.cert, 'CERTIFICATE') && isPem(value.key, 'PRIVATE KEY')))) {
          problems.push('tls must be true, false, or {cert, key} with the PEM texts of a certificate and its private key');
        }
        break;
      case 'apiKeys':
        if (!Array.isArray(value) || value.length === 0 || !value.every(validKey)) {
          problems.push('apiKeys must be a non-empty list of keys, each 12–200 printable characters without spaces');
        }
        break;
      case 'seed':
        if (!(typeof value === 'string' || (typeof value === 'number' && Number.isFinite(value)))) bad(name, 'a number or a string');
        break;
      case 'today':
        if (value !== null && !isDay(value)) bad(name, 'a date YYYY-MM-DD, or null for the clock\'s day');
        break;
      case 'limits':
        limitProblems(name, value, problems, () => true);
        break;
      case 'bulkLimits':
        limitProblems(name, value, problems, (kind) => LOOKUPS[kind].bulk !== undefined);
        break;
      case 'bulkMax':
        if (!isCount(value, BULK_MAX_CAP) || value < 1) bad(name, `a whole number from 1 to ${BULK_MAX_CAP}`);
        break;
      case 'bulkRows':
        if (!(BULK_ROW_STYLES as readonly unknown[]).includes(value)) bad(name, BULK_ROW_STYLES.map((x) => JSON.stringify(x)).join(' or '));
        break;
      case 'quota':
        if (value !== undefined && value !== null && !isCount(value, Number.MAX_SAFE_INTEGER)) bad(name, 'a whole number ≥ 0, or null for unlimited');
        break;
      case 'verbose':
      case 'hideLimit':
      case 'rate429Bare':
      case 'bulk':
        if (typeof value !== 'boolean') bad(name, 'true or false');
        break;
      case 'errorStyle':
        if (!(ERROR_STYLES as readonly unknown[]).includes(value)) bad(name, ERROR_STYLES.map((x) => JSON.stringify(x)).join(' or '));
        break;
      case 'windowMs':
        if (!isCount(value, 86_400_000) || value < 1000 || value % 1000 !== 0) bad(name, 'whole seconds in ms, from 1000 to 86400000');
        break;
      case 'sharedLimit':
        if (!isCount(value, 1_000_000_000)) bad(name, 'a whole number ≥ 0 (0 = each lookup its own limit)');
        break;
      case 'burst':
        if (value !== null && !(typeof value === 'number' && value >= 1 && value <= 1000)) bad(name, 'a factor from 1 to 1000, or null for no cap');
        break;
      case 'rateHeaders':
        if (value !== 'x' && value !== 'ietf' && value !== 'both') bad(name, '"x", "ietf" or "both"');
        break;
      case 'log':
        if (typeof value !== 'function') bad(name, 'a function');
        break;
      default:
        if ((PROBABILITIES as readonly string[]).includes(name)) {
          if (typeof value !== 'number' || !(value >= 0 && value <= 1)) bad(name, 'a probability from 0 to 1');
        } else if ((DURATIONS as readonly string[]).includes(name)) {
          if (!isCount(value, 600_000)) bad(name, 'whole milliseconds from 0 to 600000');
        } else {
          problems.push(`unknown option ${JSON.stringify(name)}`);
        }
    }
  }
  return problems;
}

/** `known`: the lookups this table may name (bulkLimits: those with a bulk endpoint). */
function limitProblems(name: string, value: unknown, problems: string[], known: (kind: LookupKind) => boolean): void {
  if (!isObject(value)) {
    problems.push(`${name} must be an object like ${JSON.stringify(name === 'limits' ? perLookup((d) => d.sandboxLimit) : DEFAULT_BULK_LIMITS)}`);
    return;
  }
  for (const [kind, n] of Object.entries(value)) {
    if (!isLookupKind(kind)) problems.push(`${name}.${kind}: unknown lookup`);
    else if (!known(kind)) problems.push(`${name}.${kind}: this lookup has no bulk endpoint`);
    else if (!isCount(n, 1_000_000_000)) problems.push(`${name}.${kind} must be a whole number ≥ 0 (0 = unlimited), got ${JSON.stringify(n)}`);
  }
}

/** A real calendar day written YYYY-MM-DD (not 2026-02-30). */
export function isDay(v: unknown): boolean {
  if (typeof v !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(v)) return false;
  const t = Date.parse(`${v}T00:00:00Z`);
  return Number.isFinite(t) && new Date(t).toISOString().slice(0, 10) === v;
}

/** PEM text holding a block whose label ends with `label` (PRIVATE KEY covers EC and RSA keys). */
function isPem(text: unknown, label: string): boolean {
  return typeof text === 'string' && new RegExp(`-----BEGIN [A-Z ]*${label}-----`).test(text);
}

function validKey(k: unknown): boolean {
  return typeof k === 'string' && k.length >= 12 && k.length <= 200 && isKeyShaped(k);
}

/** Applies a checked patch; `limits` and `bulkLimits` merge per lookup so `{limits:{lrn:5}}` keeps the others. */
export function applyPatch(base: SandboxOptions, patch: Partial<SandboxOptions>): SandboxOptions {
  const next: SandboxOptions = { ...base, ...stripUndefined(patch) };
  if (patch.limits) next.limits = { ...base.limits, ...patch.limits };
  if (patch.bulkLimits) next.bulkLimits = { ...base.bulkLimits, ...patch.bulkLimits };
  if ('quota' in patch) next.quota = patch.quota ?? undefined;
  if ('today' in patch) next.today = patch.today ?? undefined;
  if ('burst' in patch) next.burst = patch.burst ?? undefined;
  return next;
}

function stripUndefined<T extends object>(o: T): Partial<T> {
  const out: Partial<T> = {};
  for (const [k, v] of Object.entries(o)) if (v !== undefined) (out as Record<string, unknown>)[k] = v;
  return out;
}
