// What one lookup costs, for --dry-run's estimate, --max-spend and the report: `--price lrn=0.0005,cnam=0.006`, or the
// `price.<lookup>` settings. The currency is whatever the user's prices are in.
import { UsageError } from '../core/errors.js';
import { LOOKUP_KINDS, isLookupKind, type LookupKind } from '../core/lookups.js';

export type Prices = Partial<Record<LookupKind, number>>;

const PRICE = /^(\d+(?:\.\d*)?|\.\d+)$/;

/** A price per lookup ≥ 0, or undefined. */
export function parsePrice(text: string | number): number | undefined {
  if (typeof text === 'number') return Number.isFinite(text) && text >= 0 ? text : undefined;
  return PRICE.test(text.trim()) ? Number(text.trim()) : undefined;
}

/** Parses `--price`; a usage error quoting the part that is wrong. */
export function parsePrices(text: string, origin: string): Prices {
  const out: Prices = {};
  const bad = (part: string, why: string) =>
    new UsageError(`invalid price ${JSON.stringify(part)} in ${JSON.stringify(text)} from ${origin}: ${why}`, 'give a price per lookup: --price lrn=0.0005,cnam=0.006');
  for (const part of text.split(',').map((p) => p.trim())) {
    const eq = part.indexOf('=');
    if (eq === -1) throw bad(part, 'expected <lookup>=<price>');
    const kind = part.slice(0, eq).trim().toLowerCase();
    if (!isLookupKind(kind)) throw bad(part, `unknown lookup "${kind}" (known: ${LOOKUP_KINDS.join(', ')})`);
    const price = parsePrice(part.slice(eq + 1));
    if (price === undefined) throw bad(part, 'not a price (a number ≥ 0)');
    out[kind] = price;
  }
  return out;
}

/**
 * The property of a lookup's price setting (SettingValues): `priceLrn` for `price.lrn`,
 * `priceLineType` for a registered `line_type`. Written out: a regular expression here was
 * compiled in every run (the settings table is built at start).
 */
export function priceProperty(kind: LookupKind): `price${string}` {
  let name = '';
  for (let i = 0; i < kind.length; i++) {
    const c = kind.charAt(i);
    if (i === 0 && isLower(c)) name += c.toUpperCase();
    else if (c === '_' && isLower(kind.charAt(i + 1))) name += kind.charAt(++i).toUpperCase();
    else name += c;
  }
  return `price${name}`;
}

const isLower = (c: string): boolean => c >= 'a' && c <= 'z';

/** --price over the config's price.<lookup>. */
export function pricesFrom(settings: { readonly [price: `price${string}`]: number | undefined }, flag: string | undefined): Prices {
  const configured: Prices = {};
  for (const kind of LOOKUP_KINDS) {
    const price = settings[priceProperty(kind)];
    if (price !== undefined) configured[kind] = price;
  }
  return { ...configured, ...(flag === undefined ? {} : parsePrices(flag, '--price')) };
}
