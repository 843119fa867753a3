// Caller names that say no name is known: a CNAM of one of these, or a place label ("JERSEY CITY
// NJ", which CNAM databases show for numbers with no listed name), is not a name. The report counts
// them apart from real names; diff does not take a change to or from one for a change of name.
// Keys as nameKey() makes them; docs/report.md lists them.
import { STATE_TILES } from './tile-map.js';

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
  'NOT FOUND',
  'NAME UNAVAILABLE',
  'NAME UNKNOWN',
  'NO CALLER ID',
]);

/** A name as compared: upper case, punctuation and runs of spaces made one space. */
export function nameKey(name: string): string {
  return name
    .toUpperCase()
    .replace(/[^A-Z0-9&]+/g, ' ')
    .trim();
}

export type CallerNameClass = 'real' | 'placeholder' | 'none';

/** A place label: words, then a state's two-letter code ("JERSEY CITY NJ"). */
function isPlaceLabel(key: string): boolean {
  const space = key.lastIndexOf(' ');
  return space > 0 && key.length - space === 3 && Object.hasOwn(STATE_TILES, key.slice(space + 1));
}

/** A caller name as a real name, a placeholder (the list, or a place label), or none (missing, empty, punctuation only). */
export function callerNameClass(name: string | undefined): CallerNameClass {
  if (name === undefined) return 'none';
  let cls = seen.get(name);
  if (cls === undefined) {
    const key = nameKey(name);
    cls = key === '' ? 'none' : PLACEHOLDERS.has(key) || isPlaceLabel(key) ? 'placeholder' : 'real';
    // Names repeat (placeholders, businesses, common names): each is worked out once, up to a bound.
    if (seen.size < 10_000) seen.set(name, cls);
  }
  return cls;
}
const seen = new Map<string, CallerNameClass>();

/** Whether a caller name is a real name (not empty, not a placeholder). */
export function isRealName(name: string | undefined): boolean {
  return callerNameClass(name) === 'real';
}

/** The list itself, for tests and docs. */
export const CALLER_NAME_PLACEHOLDERS: ReadonlySet<string> = PLACEHOLDERS;
