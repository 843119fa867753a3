// The synthetic universe: every answer is a pure function of (number, seed), so the same number
// always gives the same answer and a new seed gives a new universe. One base hash per number; each
// property reads its own facet of it, so the CNAM spam class and the trust flags of a number come
// from the same facet and always agree.
import { CARRIERS_BY_TYPE, TOLL_FREE_PICK, TYPE_PICK, pick, type Carrier } from './carriers.js';
import { facet, fnv1a } from './hash.js';
import { callerName, type NameKind } from './names.js';
import { AREA_CODES, GEOGRAPHIC, type AreaCode, type Place } from './npa-table.js';

export type SpamClass = 'NONE' | 'SPAM' | 'ROBOCALL' | 'SCAM';

const F = { place: 0, type: 1, carrier: 2, ported: 3, lrn: 4, activated: 5, messaging: 6, ref: 7, nameKind: 8, name: 9, spam: 10, score: 11, updated: 12, extra: 13 } as const;

/** Timestamps are anchored to fixed dates, never to "now", so answers do not drift between runs. */
const ACTIVATION_ANCHOR = Date.UTC(2025, 0, 1) / 1000;
const UPDATE_ANCHOR = Date.UTC(2025, 5, 1) / 1000;
const TEN_YEARS = 10 * 365 * 86400;
const HALF_YEAR = 182 * 86400;

/** A number reduced to what the generators need; `number` is the 11-digit form. */
export interface Subject {
  readonly number: string;
  readonly base: number;
  readonly area: AreaCode;
}

export function subject(number11: string, seed: number): Subject {
  const npa = number11.slice(1, 4);
  // An unknown area code borrows one real entry, chosen by the area code alone, so all its
  // numbers at least agree with each other.
  const area = AREA_CODES.get(npa) ?? (GEOGRAPHIC[fnv1a(npa, seed) % GEOGRAPHIC.length] as AreaCode);
  return { number: number11, base: fnv1a(number11, seed), area };
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
    lrn_activated_at: dateless ? null : localIso(ACTIVATION_ANCHOR - (activated % TEN_YEARS), s.area.timezone),
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
    last_updated: `${new Date((UPDATE_ANCHOR - (facet(s.base, F.updated) % HALF_YEAR)) * 1000).toISOString().slice(0, 19)}Z`,
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
