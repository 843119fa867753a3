// Turning what a user typed into the 11-digit form the service wants, and refusing what is not a
// U.S. (NANP) number before it costs a lookup. libphonenumber-js does the real validation (area
// codes, exchanges, lengths); the messages on top say *why* a number was refused.
import { parsePhoneNumberFromString, validatePhoneNumberLength } from 'libphonenumber-js/max';

export type ParsedNumber = { ok: true; number: string } | { ok: false; message: string };

export interface ParseOptions {
  /** false = `--no-validate`: send the digits as given (a 10-digit number still gets its 1). */
  readonly validate?: boolean;
}

const EXTENSION = /\s*(?:(?:ext\.?|extension|x|#)\s*\d+)\s*$/i;

export function parseNumber(input: string, opts: ParseOptions = {}): ParsedNumber {
  const raw = input.trim();
  if (raw === '') return { ok: false, message: 'empty: no phone number given' };
  const withoutExt = raw.replace(EXTENSION, '');
  const digits = withoutExt.replace(/\D/g, '');

  if (opts.validate === false) {
    if (digits === '') return { ok: false, message: `no digits in "${raw}"` };
    return { ok: true, number: digits.length === 10 ? `1${digits}` : digits };
  }

  if (/[a-z]/i.test(withoutExt.replace(/^\s*tel:/i, ''))) {
    return { ok: false, message: `"${raw}" contains letters: give the number in digits` };
  }
  if (digits === '') return { ok: false, message: `no digits in "${raw}"` };

  const international = withoutExt.trim().startsWith('+');
  const parsed = parsePhoneNumberFromString(withoutExt, 'US');
  if (international && parsed && parsed.countryCallingCode !== '1') {
    return { ok: false, message: `not a U.S. number (country code +${parsed.countryCallingCode})` };
  }

  const national = nationalDigits(digits, international);
  if (national.length < 10) {
    return { ok: false, message: `too short (${national.length} digits): a U.S. number has 10 digits, or 11 starting with 1` };
  }
  if (national.length > 10) {
    return { ok: false, message: `too long (${digits.length} digits): a U.S. number has 10 digits, or 11 starting with 1` };
  }
  if (/^[01]/.test(national)) {
    return { ok: false, message: `area code ${national.slice(0, 3)} is not valid: it cannot start with 0 or 1` };
  }
  if (/^...[01]/.test(national)) {
    return { ok: false, message: `exchange ${national.slice(3, 6)} is not valid: it cannot start with 0 or 1` };
  }
  const check = parsePhoneNumberFromString(`+1${national}`);
  if (!check || validatePhoneNumberLength(`+1${national}`) !== undefined || !check.isValid()) {
    return { ok: false, message: `${national.slice(0, 3)}-${national.slice(3, 6)}-${national.slice(6)} is not a valid U.S. number (unassigned area code or range)` };
  }
  return { ok: true, number: `1${national}` };
}

/** The 10 national digits when the input is 10 digits or 11 starting with 1; otherwise as-is. */
function nationalDigits(digits: string, international: boolean): string {
  if (international) return digits.startsWith('1') ? digits.slice(1) : digits;
  if (digits.length === 11 && digits.startsWith('1')) return digits.slice(1);
  return digits;
}
