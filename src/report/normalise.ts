// The service's vocabularies, and those of the carriers' data it passes on, mapped to the few
// classes a report counts. A code that is not in a table is kept as it was written, never dropped.
import { invalidReasonOf, type InvalidReason } from '../core/numbers.js';

export type LineClass = 'mobile' | 'landline' | 'voip' | 'toll_free' | 'other';
export const LINE_CLASSES: readonly LineClass[] = ['mobile', 'landline', 'voip', 'toll_free', 'other'];

// Keys are upper case with runs of spaces, dashes, underscores and slashes made one space.
const LINE_TYPES: Record<string, LineClass> = {
  WIRELESS: 'mobile',
  WRS: 'mobile',
  MOBILE: 'mobile',
  CELLULAR: 'mobile',
  CELL: 'mobile',
  PCS: 'mobile',
  'WIRELESS MOBILE': 'mobile',
  'PREPAID WIRELESS': 'mobile',
  'WIRELESS PREPAID': 'mobile',
  'CELL PHONE': 'mobile',
  'MOBILE PHONE': 'mobile',
  LANDLINE: 'landline',
  LND: 'landline',
  FIXED: 'landline',
  'FIXED LINE': 'landline',
  FIXEDLINE: 'landline',
  WIRELINE: 'landline',
  WRL: 'landline',
  POTS: 'landline',
  PSTN: 'landline',
  VOIP: 'voip',
  'NON FIXED VOIP': 'voip',
  'NONFIXED VOIP': 'voip',
  'FIXED VOIP': 'voip',
  FIXEDVOIP: 'voip',
  NONFIXEDVOIP: 'voip',
  'INTERCONNECTED VOIP': 'voip',
  'VOICE OVER IP': 'voip',
  TOLLFREE: 'toll_free',
  'TOLL FREE': 'toll_free',
  TF: 'toll_free',
  '8XX': 'toll_free',
};

export function lineKey(code: string): string {
  return code.trim().toUpperCase().replace(/[\s_\-/]+/g, ' ');
}

/** The class of a `carrier_type`; anything unknown is 'other' (its code is shown as written). */
export function lineClass(code: string): LineClass {
  let cls = seen.get(code);
  if (cls === undefined) {
    cls = LINE_TYPES[lineKey(code)] ?? 'other';
    // A file holds a handful of distinct codes: each is worked out once.
    if (seen.size < 1000) seen.set(code, cls);
  }
  return cls;
}
const seen = new Map<string, LineClass>();

/** Why a number was refused, as a code of INVALID_REASON_LABELS, from the message of its `invalid_number` error. */
export function invalidReason(message: string): InvalidReason | 'refused' | 'other' {
  const reason = invalidReasonOf(message);
  if (reason) return reason;
  return message.trim() === '' ? 'other' : 'refused';
}

/** U.S. offsets (standard time, as the service gives them) and their zone names. */
const ZONES: Record<string, string> = {
  '-0400': 'Atlantic',
  '-0500': 'Eastern',
  '-0600': 'Central',
  '-0700': 'Mountain',
  '-0800': 'Pacific',
  '-0900': 'Alaska',
  '-1000': 'Hawaii-Aleutian',
  '-1100': 'Samoa',
  '+1000': 'Chamorro',
};

export function zoneLabel(zone: string): string {
  const name = ZONES[zone.trim()];
  return name ? `${zone.trim()} ${name}` : zone.trim();
}

export type RecencyBucket = 'le_7d' | 'le_30d' | 'le_1y' | 'older' | 'unknown';
export const RECENCY_BUCKETS: readonly RecencyBucket[] = ['le_7d', 'le_30d', 'le_1y', 'older', 'unknown'];
export const RECENCY_LABELS: Readonly<Record<RecencyBucket, string>> = {
  le_7d: '≤ 7 days',
  le_30d: '≤ 30 days',
  le_1y: '≤ 1 year',
  older: 'older',
  unknown: 'unknown',
};

export const DAY = 86_400_000;

/** How long before `asOf` (epoch ms) a date was; a date after it counts as the most recent. */
export function recency(date: string, asOf: number): RecencyBucket {
  return recencyOf(dateMs(date), asOf);
}

/** Epoch ms of a date as services write them (ISO 8601, epoch seconds or ms); NaN for none. */
export function dateMs(date: string): number {
  if (date === '') return Number.NaN;
  // Epoch seconds (or milliseconds) as some services give them.
  return /^\d{9,13}$/.test(date) ? Number(date) * (date.length <= 10 ? 1000 : 1) : parseIso(date);
}

/** The bucket of a date's epoch ms (NaN: unknown) as of `asOf`. */
export function recencyOf(t: number, asOf: number): RecencyBucket {
  if (Number.isNaN(t)) return 'unknown';
  const age = asOf - t;
  if (age <= 7 * DAY) return 'le_7d';
  if (age <= 30 * DAY) return 'le_30d';
  if (age <= 365 * DAY) return 'le_1y';
  return 'older';
}

const digit = (s: string, i: number) => s.charCodeAt(i) - 48;
const two = (s: string, i: number) => digit(s, i) * 10 + digit(s, i + 1);

/**
 * Epoch ms of an ISO 8601 date-time as the service writes them (`2018-06-26T22:40:24-05:00`,
 * `…Z`), read digit by digit at a quarter of Date.parse's cost; any other form goes to Date.parse.
 */
export function parseIso(s: string): number {
  if (s.length < 20 || s[4] !== '-' || s[7] !== '-' || (s[10] !== 'T' && s[10] !== ' ') || s[13] !== ':' || s[16] !== ':') return Date.parse(s);
  let z = 19;
  if (s[z] === '.') for (z++; z < s.length && digit(s, z) >= 0 && digit(s, z) <= 9; z++);
  const zone = s.slice(z);
  let offset: number;
  if (zone === 'Z') offset = 0;
  else if (/^[+-]\d\d:?\d\d$/.test(zone)) offset = (zone[0] === '-' ? -1 : 1) * (two(zone, 1) * 60 + two(zone, zone.length - 2)) * 60_000;
  else return Date.parse(s);
  const [month, day, hour, minute, second] = [two(s, 5), two(s, 8), two(s, 11), two(s, 14), two(s, 17)];
  // Out of range (or not digits): Date.parse says what it is.
  if (!(month >= 1 && month <= 12 && day >= 1 && day <= 31 && hour <= 23 && minute <= 59 && second <= 59)) return Date.parse(s);
  const t = Date.UTC(two(s, 0) * 100 + two(s, 2), month - 1, day, hour, minute, second) - offset;
  return Number.isNaN(t) ? Date.parse(s) : t;
}

/** Whether an LRN is the number itself (not ported): 10 or 11 digits, punctuation aside. */
export function sameNumber(lrn: string, number: string): boolean {
  if (lrn === number) return true;
  const a = lrn.replace(/\D/g, '');
  const b = number.replace(/\D/g, '');
  return (a.length === 11 && a[0] === '1' ? a.slice(1) : a) === (b.length === 11 && b[0] === '1' ? b.slice(1) : b);
}

/** A flag as services write it: true, TRUE, 1, yes. */
export function isTrue(value: string | undefined): boolean {
  if (value === 'true') return true;
  if (value === undefined || value === 'false' || value === '') return false;
  return /^(true|1|yes|y)$/i.test(value.trim());
}

/** A flag that says no (so "not known" is neither). */
export function isFalse(value: string | undefined): boolean {
  if (value === 'false') return true;
  if (value === undefined || value === 'true' || value === '') return false;
  return /^(false|0|no|n)$/i.test(value.trim());
}

/** A trust level that says low trust: `low`, `very low` (any case, spaces, dashes or underscores). */
export function isLowTrust(level: string): boolean {
  return /^(very[\s_-]*)?low$/i.test(level.trim());
}

/**
 * What a CNAM spam class flags: scam, robocall, or spam for any other class; null for none
 * (empty, `NONE`, `NOT SPAM`, `CLEAN`).
 */
export function spamClassFlag(type: string): 'scam' | 'robocall' | 'spam' | null {
  const key = lineKey(type);
  if (key === '' || key === 'NONE' || key === 'NOT SPAM' || key === 'CLEAN' || key === 'NULL') return null;
  if (key.includes('SCAM') || key.includes('FRAUD')) return 'scam';
  if (key.includes('ROBO')) return 'robocall';
  return 'spam';
}
