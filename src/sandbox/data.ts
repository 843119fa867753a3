// The synthetic universe: every answer is a pure function of (number, seed, day), so the same
// number always gives the same answer on the same sandbox day and a new seed gives a new universe;
// dates count back from the day, so they read as recent on any day. One base hash per number; each
// property reads its own facet of it, so the CNAM spam class and the trust flags of a number come
// from the same facet and always agree.
import { CARRIERS_BY_TYPE, TOLL_FREE_PICK, TYPE_PICK, pick, type Carrier } from './carriers.js';
import { facet, fnv1a } from './hash.js';
import { callerName, type NameKind } from './names.js';
import { AREA_CODES, GEOGRAPHIC, type AreaCode, type Place } from './npa-table.js';

export type SpamClass = 'NONE' | 'SPAM' | 'ROBOCALL' | 'SCAM';

const F = { place: 0, type: 1, carrier: 2, ported: 3, lrn: 4, activated: 5, messaging: 6, ref: 7, nameKind: 8, name: 9, spam: 10, score: 11, updated: 12, extra: 13, recent: 14 } as const;

const DAY = 86400;
const TEN_YEARS = 10 * 365 * DAY;
const TWO_YEARS = 2 * 365 * DAY;

/**
 * How long before the sandbox's day a number's LRN was activated (ported), seconds: 1.5% within
 * the last week (1–6 days, so still within 7 days at any hour of that day), 3.5% more within the
 * last month (8–29 days), the rest over the ten years before; never less than a day.
 */
function activationAge(s: Subject): number {
  const roll = facet(s.base, F.recent) % 1000;
  const u = facet(s.base, F.activated);
  if (roll < 15) return DAY + (u % (5 * DAY));
  if (roll < 50) return 8 * DAY + (u % (21 * DAY));
  return 30 * DAY + (u % (TEN_YEARS - 30 * DAY));
}

/**
 * A number reduced to what the generators need; `number` is the 11-digit form; `day`: the start
 * (00:00 UTC, epoch seconds) of the sandbox's day, which every date of an answer is counted back from.
 */
export interface Subject {
  readonly number: string;
  readonly base: number;
  readonly area: AreaCode;
  readonly day: number;
}

/** `day`: the sandbox's day as epoch seconds at 00:00 UTC (sandboxDay). */
export function subject(number11: string, seed: number, day: number): Subject {
  const npa = number11.slice(1, 4);
  // An unknown area code borrows one real entry, chosen by the area code alone, so all its
  // numbers at least agree with each other.
  const area = AREA_CODES.get(npa) ?? (GEOGRAPHIC[fnv1a(npa, seed) % GEOGRAPHIC.length] as AreaCode);
  return { number: number11, base: fnv1a(number11, seed), area, day };
}

/** The sandbox's day, epoch seconds at 00:00 UTC: `today` (YYYY-MM-DD) when given, else the UTC day of `nowMs`. */
export function sandboxDay(today: string | undefined, nowMs: number): number {
  const ms = today === undefined ? nowMs : Date.parse(`${today}T00:00:00Z`);
  return Math.floor(ms / 1000 / DAY) * DAY;
}

function carrierOf(s: Subject): Carrier {
  if (s.area.tollFree) return pick(TOLL_FREE_PICK, facet(s.base, F.carrier));
  const [type] = pick(TYPE_PICK, facet(s.base, F.type));
  return pick(CARRIERS_BY_TYPE[type as 'WIRELESS' | 'LANDLINE' | 'VOIP'], facet(s.base, F.carrier));
}

function placeOf(s: Subject): Place {
  return s.area.places[facet(s.base, F.place) % s.area.places.length] as Place;
}

/** `2021-09-01T10:22:31-05:00`: local wall time of the number's zone with its offset. */
function localIso(epochSeconds: number, tz: string): string {
  const sign = tz.charCodeAt(0) === 45 ? -1 : 1;
  const offsetMin = sign * (Number(tz.slice(1, 3)) * 60 + Number(tz.slice(3, 5)));
  const local = new Date((epochSeconds + offsetMin * 60) * 1000).toISOString();
  return `${local.slice(0, 19)}${tz.slice(0, 3)}:${tz.slice(3, 5)}`;
}

export function lrnResult(s: Subject, enhanced: boolean, messaging: boolean): Record<string, unknown> {
  const portedRoll = facet(s.base, F.ported) % 100;
  const ported = portedRoll < 20;
  const activated = facet(s.base, F.activated);
  // About one ported number in five, and a few others, have no known activation date.
  const dateless = ported ? activated % 5 === 0 : activated % 50 === 0;
  const result: Record<string, unknown> = {
    lrn: ported ? portedLrn(s) : s.number,
    lrn_activated_at: dateless ? null : localIso(s.day - activationAge(s), s.area.timezone),
  };
  if (enhanced || messaging) {
    const carrier = carrierOf(s);
    if (enhanced) result.enhanced_lrn_data = enhancedData(s, carrier);
    if (messaging) result.messaging = messagingData(s, carrier);
  }
  return result;
}

function portedLrn(s: Subject): string {
  const u = facet(s.base, F.lrn);
  let nxx = 200 + (u % 800);
  if (String(nxx) === s.number.slice(4, 7)) nxx = nxx === 999 ? 200 : nxx + 1;
  // Switch LRNs conventionally end in 9999 or 0000-ish line numbers.
  const line = (u >>> 16) % 2 === 0 ? '9999' : String(((u >>> 17) % 10) * 1000).padStart(4, '0');
  return `1${s.number.slice(1, 4)}${nxx}${line}`;
}

function enhancedData(s: Subject, carrier: Carrier): Record<string, string> {
  const place = placeOf(s);
  return {
    carrier: carrier.name,
    carrier_type: carrier.type,
    city: place.city,
    zip_code: place.zip,
    county: place.county,
    timezone: s.area.timezone,
    state: s.area.state,
    rate_center: place.city.toUpperCase().replace(/[^A-Z]/g, '').slice(0, 10),
    lata: s.area.lata,
    ocn: carrier.ocn,
  };
}

const MESSAGING_ENABLED_PERCENT = { WIRELESS: 97, VOIP: 85, LANDLINE: 25, TOLLFREE: 40 } as const;

function messagingData(s: Subject, carrier: Carrier): Record<string, unknown> {
  const u = facet(s.base, F.messaging);
  const ref = facet(s.base, F.ref);
  return {
    provider: carrier.messaging,
    enabled: u % 100 < MESSAGING_ENABLED_PERCENT[carrier.type],
    country: 'US',
    country_code: '1',
    reference_id: `MR${ref.toString(16).toUpperCase().padStart(8, '0')}${(u >>> 8).toString(16).toUpperCase().padStart(6, '0')}`,
  };
}

/** NONE 85%, SPAM 7%, ROBOCALL 5%, SCAM 3%. */
export function spamClass(s: Subject): SpamClass {
  const u = facet(s.base, F.spam) % 1000;
  if (u < 850) return 'NONE';
  if (u < 920) return 'SPAM';
  if (u < 970) return 'ROBOCALL';
  return 'SCAM';
}

const NAME_MIX: Record<Carrier['type'], ReadonlyArray<readonly [NameKind, number]>> = {
  WIRELESS: [['person', 55], ['generic', 30], ['place', 15]],
  LANDLINE: [['person', 60], ['business', 35], ['place', 5]],
  VOIP: [['business', 50], ['person', 35], ['place', 15]],
  TOLLFREE: [['business', 100]],
};

function nameKind(s: Subject, carrier: Carrier, spam: SpamClass): NameKind {
  const u = facet(s.base, F.nameKind);
  if (spam !== 'NONE' && u % 2 === 0) return 'suspicious';
  let roll = (u >>> 1) % 100;
  for (const [kind, share] of NAME_MIX[carrier.type]) {
    if (roll < share) return kind;
    roll -= share;
  }
  return 'person';
}

export function cnamResult(s: Subject, includeSpam: boolean): Record<string, unknown> {
  const spam = spamClass(s);
  const place = placeOf(s);
  const name = callerName(nameKind(s, carrierOf(s), spam), facet(s.base, F.name), place.city, s.area.state);
  return includeSpam ? { number: s.number, cnam: name, spam_type: spam } : { number: s.number, cnam: name };
}

export function trustResult(s: Subject): Record<string, unknown> {
  const spam = spamClass(s);
  const u = facet(s.base, F.score);
  const score = reputation(spam, u);
  const both = facet(s.base, F.extra) % 2 === 0;
  return {
    phone_number: s.number,
    is_spam: spam === 'SPAM' || (spam !== 'NONE' && both),
    is_robocall: spam === 'ROBOCALL',
    is_scam: spam === 'SCAM',
    spam_type: spam === 'NONE' ? null : spam,
    reputation_score: score,
    trust_level: score >= 70 ? 'high' : score >= 40 ? 'medium' : 'low',
    // One day to two years before the sandbox's day.
    last_updated: `${new Date((s.day - DAY - (facet(s.base, F.updated) % (TWO_YEARS - DAY))) * 1000).toISOString().slice(0, 19)}Z`,
  };
}

/** 0–100; flagged numbers never reach "high" (70+). */
function reputation(spam: SpamClass, u: number): number {
  switch (spam) {
    case 'NONE':
      return u % 100 < 88 ? 70 + (u >>> 8) % 31 : 45 + (u >>> 8) % 25;
    case 'SPAM':
      return 20 + (u % 30);
    case 'ROBOCALL':
      return 10 + (u % 30);
    case 'SCAM':
      return u % 15;
  }
}
