// Caller names that say no name is known: a CNAM of one of these, or a place label ("JERSEY CITY
// NJ", which CNAM databases show for numbers with no listed name), is not a name, so a change to or
// from one is not a change of name. Keys as nameKey() makes them.
import { STATE_TILES } from '../report/tile-map.js';

const PLACEHOLDERS = new Set([
  'UNAVAILABLE',
  'UNKNOWN',
  'UNKNOWN CALLER',
  'UNKNOWN NAME',
  'NOT AVAILABLE',
  'NAME NOT AVAILABLE',
  'NO NAME',
  'PRIVATE',
  'PRIVATE CALLER',
  'PRIVATE NUMBER',
  'ANONYMOUS',
  'RESTRICTED',
  'BLOCKED',
  'OUT OF AREA',
  'WIRELESS CALLER',
  'CELL PHONE',
  'CELLULAR CALLER',
  'MOBILE CALLER',
  'TOLL FREE',
  'TOLL FREE CALLER',
  'NONE',
  'N A',
]);

/** A name as compared: upper case, punctuation and runs of spaces made one space. */
export function nameKey(name: string): string {
  return name
    .toUpperCase()
    .replace(/[^A-Z0-9&]+/g, ' ')
    .trim();
}

/** Whether a caller name is a real name (not empty, not a placeholder). */
export function isRealName(name: string | undefined): boolean {
  if (name === undefined) return false;
  const key = nameKey(name);
  if (key === '' || PLACEHOLDERS.has(key)) return false;
  const space = key.lastIndexOf(' ');
  return !(space > 0 && key.length - space === 3 && Object.hasOwn(STATE_TILES, key.slice(space + 1)));
}

/** The list itself, for tests and docs. */
export const CALLER_NAME_PLACEHOLDERS: ReadonlySet<string> = PLACEHOLDERS;
