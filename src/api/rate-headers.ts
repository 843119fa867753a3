// What a response says about the rate budget and how long to wait. Every form the service (or a
// proxy in front of it) may use is read: X-RateLimit-* with Reset as a delta or a Unix timestamp,
// Retry-After as seconds or an HTTP date, and the IETF draft RateLimit fields in their three
// generations. Malformed values are ignored, never fatal.
import type { RateInfo } from '../core/transport.js';

export type HeaderBag = Readonly<Record<string, string | string[] | undefined>>;

/** One header's value; repeated headers are joined as HTTP allows for list-valued fields. */
export function header(headers: HeaderBag, name: string): string | undefined {
  const lower = name.toLowerCase();
  let value = headers[lower];
  if (value === undefined) {
    const key = Object.keys(headers).find((k) => k.toLowerCase() === lower);
    value = key === undefined ? undefined : headers[key];
  }
  return Array.isArray(value) ? value.join(', ') : value;
}

const RATE_FIELDS = new Set([
  'x-ratelimit-limit',
  'x-ratelimit-remaining',
  'x-ratelimit-reset',
  'ratelimit',
  'ratelimit-limit',
  'ratelimit-remaining',
  'ratelimit-reset',
  'ratelimit-policy',
]);

/**
 * The rate fields of a response, names lowercased, in one pass over its headers, or undefined
 * when it has none: every response is read for them, and many carry none (an unlimited key).
 * The functions below that take `fields` take this bag.
 */
export function rateFields(headers: HeaderBag): HeaderBag | undefined {
  let out: Record<string, string | string[] | undefined> | undefined;
  for (const key in headers) {
    const lower = key.toLowerCase();
    if (RATE_FIELDS.has(lower)) (out ??= {})[lower] = headers[key];
  }
  return out;
}

/** One field of the rate-field bag, whose names are already lowercase. */
function field(fields: HeaderBag, name: string): string | undefined {
  const value = fields[name];
  return Array.isArray(value) ? value.join(', ') : value;
}

/**
 * Larger than any count, limit, delay (in seconds) or timestamp (in ms) a service means: a value
 * above it is garbage, read as no value at all (so it never turns into an Infinity of milliseconds).
 */
const ABSURD = 1e15;

/** A non-negative number at the start of a field (`100` or `100, 100;w=60`), else undefined. */
function leadingNumber(value: string | undefined): number | undefined {
  const m = value === undefined ? null : /^\s*(\d+(?:\.\d+)?)(?:\s*$|\s*[,;])/.exec(value);
  return m?.[1] === undefined ? undefined : sane(Number(m[1]));
}

function sane(n: number): number | undefined {
  return Number.isFinite(n) && n >= 0 && n <= ABSURD ? n : undefined;
}

/** A plain count of seconds: `0`, `12`, `1.5`. */
function seconds(value: unknown): number | undefined {
  if (typeof value === 'number') return sane(value);
  if (typeof value === 'string' && /^\s*\d+(\.\d+)?\s*$/.test(value)) return sane(Number(value));
  return undefined;
}

/** Reset as epoch ms: above 1e12 it is already ms, above 1e9 a Unix timestamp, else a delta. */
export function resetToEpochMs(value: number, now: number): number {
  if (value > 1e12) return value;
  if (value > 1e9) return value * 1000;
  return now + value * 1000;
}

interface DraftLimits {
  limit?: number;
  remaining?: number;
  /** Seconds until the window resets. */
  reset?: number;
  /** The window's length in seconds (a policy's `w`). */
  window?: number;
}

const SF_INT = /^\d{1,15}$/;

/** Items of a structured-field list: `"name";r=5;t=2` → { name, params }. Malformed items are dropped. */
function sfItems(value: string): { name: string; params: Map<string, number> }[] {
  const items: { name: string; params: Map<string, number> }[] = [];
  for (const member of value.split(',')) {
    const [head, ...rest] = member.split(';').map((p) => p.trim());
    if (!head || !/^("[^"]*"|[a-z*][a-z0-9_\-.*]*)$/i.test(head)) continue;
    const params = new Map<string, number>();
    let ok = true;
    for (const p of rest) {
      const m = /^([a-z*][a-z0-9_\-.*]*)=(.*)$/.exec(p);
      if (!m?.[1]) {
        ok = false;
        break;
      }
      if (m[2] !== undefined && SF_INT.test(m[2])) params.set(m[1], Number(m[2]));
    }
    if (ok) items.push({ name: head.replace(/^"|"$/g, ''), params });
  }
  return items;
}

const maxOf = (values: number[]) => (values.length ? Math.max(...values) : undefined);

/** The IETF draft fields: RateLimit-Limit/-Remaining/-Reset, `RateLimit: limit=…`, `RateLimit: "p";r=…;t=…`. */
export function draftLimits(fields: HeaderBag): DraftLimits {
  const out: DraftLimits = {};
  const num = (name: string) => {
    const v = field(fields, name)?.trim();
    return v !== undefined && SF_INT.test(v) ? Number(v) : undefined;
  };
  out.limit = num('ratelimit-limit');
  out.remaining = num('ratelimit-remaining');
  out.reset = num('ratelimit-reset');
  let bound: string | undefined;

  const combined = field(fields, 'ratelimit');
  if (combined !== undefined) {
    const dict = new Map<string, number>();
    for (const member of combined.split(',')) {
      const m = /^\s*(limit|remaining|reset)\s*=\s*(\d{1,15})\s*$/i.exec(member);
      if (m?.[1] && m[2]) dict.set(m[1].toLowerCase(), Number(m[2]));
    }
    if (dict.size > 0) {
      out.limit ??= dict.get('limit');
      out.remaining ??= dict.get('remaining');
      out.reset ??= dict.get('reset');
    } else {
      // Several policies may apply at once: the one with the least room binds, until its own reset.
      const items = sfItems(combined).filter((i) => i.params.has('r'));
      items.sort((a, b) => (a.params.get('r') as number) - (b.params.get('r') as number) || (b.params.get('t') ?? 0) - (a.params.get('t') ?? 0));
      const binding = items[0];
      if (binding) {
        bound = binding.name;
        out.remaining ??= binding.params.get('r');
        out.reset ??= binding.params.get('t');
      }
    }
  }
  const policy = field(fields, 'ratelimit-policy');
  if (policy !== undefined) {
    const items = sfItems(policy).filter((i) => i.params.has('q'));
    // The binding policy's quota and window when it is named here; else the smallest quota's.
    items.sort((a, b) => (a.params.get('q') as number) - (b.params.get('q') as number));
    const named = items.find((i) => i.name === bound) ?? items[0];
    // The older form is a bare `100;w=60`: its item is the quota.
    out.limit ??= named?.params.get('q') ?? leadingNumber(policy);
    const w = named ? named.params.get('w') : /;\s*w=(\d{1,15})/.exec(policy)?.[1];
    if (w !== undefined && Number(w) > 0) out.window = Number(w);
  }
  return out;
}

/** Every reset time the fields give, epoch ms, X-RateLimit-Reset first. */
function resetTimes(fields: HeaderBag, now: number, draft = draftLimits(fields)): number[] {
  const times: number[] = [];
  const xReset = leadingNumber(field(fields, 'x-ratelimit-reset'));
  if (xReset !== undefined) times.push(resetToEpochMs(xReset, now));
  if (draft.reset !== undefined) times.push(now + draft.reset * 1000);
  return times;
}

/** The rate budget a response reports, or undefined when it reports none. */
export function parseRateInfo(fields: HeaderBag | undefined, now: number): RateInfo | undefined {
  if (fields === undefined) return undefined;
  const draft = draftLimits(fields);
  const limit = leadingNumber(field(fields, 'x-ratelimit-limit')) ?? draft.limit;
  const remaining = leadingNumber(field(fields, 'x-ratelimit-remaining')) ?? draft.remaining;
  const resetAt = resetTimes(fields, now, draft)[0];
  if (limit === undefined && remaining === undefined && resetAt === undefined) return undefined;
  const info: { limit?: number; remaining?: number; resetAt?: number; windowMs?: number } = {};
  if (draft.window !== undefined) info.windowMs = draft.window * 1000;
  if (limit !== undefined) info.limit = limit;
  if (remaining !== undefined) info.remaining = remaining;
  if (resetAt !== undefined) info.resetAt = resetAt;
  return info;
}

/** Retry-After as ms from now: seconds or an HTTP date (a date in the past means "now"). */
export function retryAfterMs(value: string | undefined, now: number): number | undefined {
  if (value === undefined) return undefined;
  const s = seconds(value);
  if (s !== undefined) return s * 1000;
  // Date.parse reads "-5" as a year: an HTTP date always names its month and weekday.
  if (!/[a-z]{3}/i.test(value)) return undefined;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

export interface WaitHintInput {
  /** All the response's headers, for Retry-After. */
  readonly headers: HeaderBag;
  /** Its rate fields, as rateFields() extracted them. */
  readonly fields: HeaderBag | undefined;
  readonly now: number;
  /** Hints in seconds found in the body (LRN `retry_after`, GraphQL `extensions.retryAfter`). */
  readonly bodySeconds?: readonly unknown[];
  /** A 429: the window's reset time is a hint too. After a 5xx it says nothing about recovery. */
  readonly rateLimited: boolean;
}

/** The Remaining the fields report (X-RateLimit-Remaining, else the IETF fields'), NaN when none. */
function roomLeft(fields: HeaderBag): number {
  return leadingNumber(field(fields, 'x-ratelimit-remaining')) ?? draftLimits(fields).remaining ?? Number.NaN;
}

/** The LONGEST wait any hint asks for, in ms; undefined when there is no hint at all. */
export function waitHintMs({ headers, fields, now, bodySeconds = [], rateLimited }: WaitHintInput): number | undefined {
  const hints: number[] = [];
  const ra = retryAfterMs(header(headers, 'retry-after'), now);
  if (ra !== undefined) hints.push(ra);
  for (const b of bodySeconds) {
    const s = seconds(b);
    if (s !== undefined) hints.push(s * 1000);
  }
  // The reset says when a spent window refills: a 429 that shows room left in it (a burst cap's, a
  // gateway's) is not waiting for that, and its own hints say how long to wait.
  if (rateLimited && fields !== undefined && !(roomLeft(fields) > 0)) {
    for (const at of resetTimes(fields, now)) hints.push(Math.max(0, at - now));
  }
  return maxOf(hints);
}
