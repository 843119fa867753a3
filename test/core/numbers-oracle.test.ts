// parseNumber was made faster (a digits-only fast path, no parse whose answer is unused, no
// separate length check); its answers must not change. The oracle below is the previous version,
// kept verbatim, and both are asked the same questions: a spread over the whole 10-digit space,
// every area code, the literal prefixes the NANP metadata singles out, and the odd formats.
import { parsePhoneNumberFromString, validatePhoneNumberLength } from 'libphonenumber-js/max';
import metadata from 'libphonenumber-js/metadata.max.json' with { type: 'json' };
import { describe, expect, it } from 'vitest';
import { parseNumber, type ParsedNumber, type ParseOptions } from '../../src/core/numbers.js';
import { prng } from '../../src/core/prng.js';

const EXTENSION = /\s*(?:(?:ext\.?|extension|x|#)\s*\d+)\s*$/i;

function oracle(input: string, opts: ParseOptions = {}): ParsedNumber {
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
  const national = international ? (digits.startsWith('1') ? digits.slice(1) : digits) : digits.length === 11 && digits.startsWith('1') ? digits.slice(1) : digits;
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


const random = prng(20240601);
const digitsOf = (n: number) => Array.from({ length: n }, () => Math.floor(random() * 10)).join('');

/** Every literal digit run of 4+ in the patterns of the +1 countries: the places where validity turns on more than the area code. */
function metadataPrefixes(): string[] {
  const meta = metadata as unknown as { country_calling_codes: Record<string, string[]>; countries: Record<string, unknown> };
  const out = new Set<string>();
  for (const country of meta.country_calling_codes['1'] ?? []) {
    for (const run of JSON.stringify(meta.countries[country]).match(/\d{4,}/g) ?? []) if (run.length <= 9) out.add(run);
  }
  return [...out];
}

function mismatches(inputs: readonly string[], opts?: ParseOptions): string[] {
  const bad: string[] = [];
  for (const input of inputs) {
    const want = oracle(input, opts);
    const got = parseNumber(input, opts);
    if (JSON.stringify(got) !== JSON.stringify(want)) bad.push(`${JSON.stringify(input)}: got ${JSON.stringify(got)}, want ${JSON.stringify(want)}`);
  }
  return bad;
}

describe('parseNumber answers exactly as before', () => {
  it('over the whole 10- and 11-digit space, leading 0/1 included', () => {
    const inputs: string[] = [];
    for (let i = 0; i < 12_000; i++) inputs.push(i % 2 ? digitsOf(10) : `1${digitsOf(10)}`);
    const answers = inputs.map((x) => parseNumber(x).ok);
    // The sample must hold both verdicts in quantity, or it proves nothing.
    expect(answers.filter(Boolean).length).toBeGreaterThan(1000);
    expect(answers.filter((ok) => !ok).length).toBeGreaterThan(1000);
    expect(mismatches(inputs)).toEqual([]);
  });

  it('for every area code, with edge exchanges and random ones', () => {
    const inputs: string[] = [];
    for (let npa = 200; npa <= 999; npa++) {
      for (const nxx of ['200', '211', '555', '911', '958', '959', '976', '999', digitsOf(3), digitsOf(3)]) inputs.push(`${npa}${nxx}${digitsOf(4)}`);
    }
    expect(mismatches(inputs)).toEqual([]);
  });

  it('around every literal prefix in the NANP metadata', () => {
    const prefixes = metadataPrefixes();
    expect(prefixes.length).toBeGreaterThan(50);
    const inputs: string[] = [];
    for (const p of prefixes) {
      if (p.length >= 10) continue;
      for (let d = 0; d < 10; d++) {
        const stem = `${p}${d}`.slice(0, 10);
        inputs.push(`${stem}${digitsOf(10 - stem.length)}`, `1${stem}${digitsOf(10 - stem.length)}`);
      }
    }
    expect(mismatches(inputs)).toEqual([]);
  });

  it('for every other form a user types', () => {
    const inputs: string[] = ['', ' ', '+', '1', '+1', 'tel:', '12015550123 ', ' 2015550123', '+12015550123', '+1 201 555 0123', '(201) 555-0123 ext 5', '2015550123x9', '201555012#3'];
    const forms = [
      (n: string) => `+1${n}`,
      (n: string) => `+${n}`,
      (n: string) => `(${n.slice(0, 3)}) ${n.slice(3, 6)}-${n.slice(6)}`,
      (n: string) => `1-${n.slice(0, 3)}-${n.slice(3, 6)}-${n.slice(6)} x${n.slice(7)}`,
      (n: string) => `tel:+1-${n}`,
      (n: string) => `+44${n}`,
      (n: string) => `+52 ${n}`,
      (n: string) => `${n}0`,
      (n: string) => n.slice(1),
      (n: string) => `${n.slice(0, 5)}a${n.slice(5)}`,
      (n: string) => `  ${n}\t`,
    ];
    for (let i = 0; i < 400; i++) {
      const n = `${2 + Math.floor(random() * 8)}${digitsOf(9)}`;
      for (const form of forms) inputs.push(form(n));
    }
    expect(mismatches(inputs)).toEqual([]);
    expect(mismatches(inputs.slice(0, 2000), { validate: false })).toEqual([]);
  });
});
