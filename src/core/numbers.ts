// Turning what a user typed into the 11-digit form the service wants, and refusing what is not a
// U.S. (NANP) number before it costs a lookup. libphonenumber-js does the real validation (area
// codes, exchanges, lengths), with its metadata cut down to the +1 countries (nanp-metadata.ts);
// the messages on top say *why* a number was refused.
import { OTHER_CALLING_CODES } from './nanp-metadata.js';
import { isValidNanp } from './nanp-valid.js';

export type ParsedNumber = { ok: true; number: string } | { ok: false; message: string };

/** Why parseNumber refused a number, as a short code. */
export type InvalidReason = 'empty' | 'letters' | 'no_digits' | 'not_us' | 'too_short' | 'too_long' | 'bad_area_code' | 'bad_exchange' | 'unassigned';

/** Each reason by the words parseNumber's message for it has (test/core/numbers.test.ts checks every message against it). */
const REASONS: readonly [RegExp, InvalidReason][] = [
  [/^empty\b/, 'empty'],
  [/^no digits\b/, 'no_digits'],
  [/contains letters/, 'letters'],
  [/^not a U\.S\. number/, 'not_us'],
  [/^too short\b/, 'too_short'],
  [/^too long\b/, 'too_long'],
  [/^area code \S+ is not valid/, 'bad_area_code'],
  [/^exchange \S+ is not valid/, 'bad_exchange'],
  [/is not a valid U\.S\. number/, 'unassigned'],
];

/**
 * Each reason in words, for every text, table and chart that names one (dry run and report alike;
 * JSON keeps the codes). `refused`: the service refused a number parseNumber let through;
 * `other`: any other message.
 */
export const INVALID_REASON_LABELS: Readonly<Record<InvalidReason | 'refused' | 'other', string>> = {
  empty: 'empty',
  no_digits: 'no digits',
  letters: 'letters',
  not_us: 'not a U.S. number',
  too_short: 'too short',
  too_long: 'too long',
  bad_area_code: 'invalid area code',
  bad_exchange: 'invalid exchange',
  unassigned: 'unassigned range',
  refused: 'refused by the service',
  other: 'other',
};

/**
 * The reason of a message parseNumber wrote (as a run wrote it into an output file, or as --dry-run
 * has it); undefined for any other message, such as the service's own refusal of a number.
 */
export function invalidReasonOf(message: string): InvalidReason | undefined {
  for (const [re, reason] of REASONS) if (re.test(message)) return reason;
  return undefined;
}

export interface ParseOptions {
  /** false = `--no-validate`: send the digits as given (a 10-digit number still gets its 1). */
  readonly validate?: boolean;
}

/** Matched against trimmed input; what stood before it is trimmed again. No leading \s*: quadratic. */
export const EXTENSION = /(?:ext\.?|extension|x|#)\s*\d+$/i;
/**
 * Longer than any way of writing a U.S. number (`+1 (201) 555-0123 extension 12345` is 33):
 * refused before any pattern or the phone library sees it, so a huge cell costs nothing.
 */
const MAX_INPUT = 64;
/** Digits only, 10 or 11 with the 1, area code and exchange starting 2-9: what bulk lists hold. */
const PLAIN = /^1?[2-9]\d\d[2-9]\d{6}$/;

/** Anything but printable ASCII: the cue to read other forms of the digits (asciiForms). */
const NON_ASCII = /[^ -~]/;

/**
 * The number as ASCII where it was typed in other forms of the same characters: full-width digits,
 * `＋`, `－` and parentheses (as East Asian input methods and spreadsheets give them, mapped by
 * NFKC), and the Arabic-Indic digits, the forms libphonenumber itself reads as digits.
 */
function asciiForms(text: string): string {
  return text.normalize('NFKC').replace(/[\u0660-\u0669\u06f0-\u06f9]/g, (d) => String(d.charCodeAt(0) & 0xf));
}

export function parseNumber(input: string, opts: ParseOptions = {}): ParsedNumber {
  const raw = input.trim();
  if (raw === '') return { ok: false, message: 'empty: no phone number given' };
  if (raw.length > MAX_INPUT) return { ok: false, message: `too long (${raw.length} characters) to be a phone number` };
  // The general path below would find no extension, no letters, no `+` and every digit rule met.
  if (opts.validate !== false && PLAIN.test(raw)) return checkNational(raw.length === 11 ? raw.slice(1) : raw);
  // Messages quote the input as given; the rules read its ASCII forms.
  const text = NON_ASCII.test(raw) ? asciiForms(raw).trim() : raw;
  const withoutExt = text.replace(EXTENSION, '').trimEnd();
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
  const foreign = international && !digits.startsWith('1') ? OTHER_CALLING_CODES.find((c) => digits.startsWith(c)) : undefined;
  if (foreign !== undefined) return { ok: false, message: `not a U.S. number (country code +${foreign})` };

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
  return checkNational(national);
}

/**
 * The library's verdict on 10 national digits (nanp-valid.ts). No separate length check: isValid()
 * accepts only a number type whose possible lengths include this one (test/core/numbers-oracle.test.ts
 * cross-checks the whole function against the version that also called validatePhoneNumberLength).
 */
function checkNational(national: string): ParsedNumber {
  if (!isValidNanp(national)) {
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
