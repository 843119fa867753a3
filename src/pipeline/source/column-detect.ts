// Which CSV column holds the phone numbers: the one the user named, else one whose header says
// so, else the first whose values look like phone numbers.
import { UnknownColumnError } from '../../core/errors.js';
import { parseNumber } from '../../core/numbers.js';

/** Header names that mean "the phone number", in order of preference (cli.md). */
const PHONE_HEADERS = ['phone', 'phone_number', 'number', 'mobile', 'cell', 'tel', 'telephone', 'msisdn', 'ani', 'dn', 'tn'] as const;
/** Failing an exact name, a header containing one of these ("Mobile Phone", "work_phone"). */
const PHONE_WORDS = ['phone', 'mobile', 'cell', 'msisdn'] as const;
/** How many rows the value-based guess looks at. */
export const SAMPLE_ROWS = 50;

/** "Phone Number", "phone-number" and "phone_number" are one name. */
const normalise = (name: string) => name.trim().toLowerCase().replace(/[\s_\-.]+/g, '');

/** True for a name from the preferred list, e.g. the lone header of a one-column file. */
export function isPhoneHeader(name: string): boolean {
  const wanted = normalise(name);
  return PHONE_HEADERS.some((h) => normalise(h) === wanted);
}

export function columnByHeader(columns: readonly string[]): number | undefined {
  const names = columns.map(normalise);
  for (const wanted of PHONE_HEADERS) {
    const i = names.indexOf(normalise(wanted));
    if (i !== -1) return i;
  }
  for (const word of PHONE_WORDS) {
    const i = names.findIndex((name) => name.includes(word));
    if (i !== -1) return i;
  }
  return undefined;
}

/** The first column where most non-empty cells of `rows` parse as a U.S. phone number. */
export function columnByValues(rows: readonly (readonly string[])[], width: number): number | undefined {
  for (let i = 0; i < width; i++) {
    let filled = 0;
    let phones = 0;
    for (const row of rows) {
      const cell = row[i]?.trim() ?? '';
      if (cell === '') continue;
      filled++;
      if (parseNumber(cell).ok) phones++;
    }
    if (phones > 0 && phones * 2 > filled) return i;
  }
  return undefined;
}

/** True when a first row is data rather than a header: a header never holds a phone number. */
export function looksLikeData(cells: readonly string[]): boolean {
  return cells.some((cell) => parseNumber(cell).ok);
}

/**
 * The 0-based index `--column` names: an exact header name, then a 1-based index, then a name
 * that differs only in case or surrounding spaces. Anything else is a usage error listing what
 * there is.
 */
export function resolveColumnOption(columns: readonly string[], option: string, label: string): number {
  const exact = columns.indexOf(option);
  if (exact !== -1) return exact;
  const wanted = option.trim();
  if (/^\d+$/.test(wanted)) {
    const n = Number(wanted);
    if (n >= 1 && n <= columns.length) return n - 1;
    throw new UnknownColumnError(
      `--column ${wanted} is out of range: ${label} has ${columns.length} column${columns.length === 1 ? '' : 's'}`,
      `columns: ${describeColumns(columns)}`,
    );
  }
  const loose = columns.findIndex((c) => c.trim().toLowerCase() === wanted.toLowerCase());
  if (loose !== -1) return loose;
  throw new UnknownColumnError(`no column "${option}" in ${label}`, `columns: ${describeColumns(columns)}`);
}

/** `1 "id", 2 "Phone"`: the names and the numbers --column accepts. */
export function describeColumns(columns: readonly string[]): string {
  return columns.length === 0 ? '(none)' : columns.map((c, i) => `${i + 1} ${JSON.stringify(c)}`).join(', ');
}

export function noNumberColumn(columns: readonly string[], label: string) {
  return new UnknownColumnError(
    `cannot tell which column of ${label} holds the phone numbers`,
    `columns: ${describeColumns(columns)}; pick one with --column <name|number>`,
  );
}
