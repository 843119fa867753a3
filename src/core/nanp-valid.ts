// Whether 10 national digits are a valid number of some +1 country, as libphonenumber-js decides it
// for `parsePhoneNumberFromString('+1' + digits).isValid()`, over the library's own metadata and
// with its own steps (getCountryByNationalNumber, then getNumberType in that country's plan), but
// without the parsing of a typed string around them, which cost three quarters of the time per
// number. test/core/numbers-oracle.test.ts holds the answers to the library's, number by number.
import { Metadata } from 'libphonenumber-js/core';
import { NANP_METADATA } from './nanp-metadata.js';

/** The parts of the library's Metadata (and its types) read here; its typings declare fewer. */
interface PlanReader {
  selectNumberingPlan(country: string): void;
  leadingDigits(): string | undefined;
  nationalNumberPattern(): string;
  type(type: string): { pattern(): string; possibleLengths(): number[] | undefined } | undefined;
}

/** getNumberType's order: FIXED_LINE (defined whatever MOBILE says), then these. */
const TYPES = ['FIXED_LINE', 'MOBILE', 'PREMIUM_RATE', 'TOLL_FREE', 'SHARED_COST', 'VOIP', 'PERSONAL_NUMBER', 'PAGER', 'UAN', 'VOICEMAIL'];

interface Plan {
  /** The country's leading digits, when it has them: the number is its if they match at the start. */
  readonly leading: RegExp | undefined;
  readonly national: RegExp;
  /** The types with a pattern, each with the lengths it allows (undefined: any). */
  readonly types: readonly { readonly pattern: RegExp; readonly lengths: readonly number[] | undefined }[];
}

const whole = (pattern: string) => new RegExp(`^(?:${pattern})$`);

let plans: Plan[] | undefined;

function loadPlans(): Plan[] {
  const metadata = new Metadata(NANP_METADATA) as unknown as PlanReader;
  return (NANP_METADATA.country_calling_codes['1'] ?? []).map((country) => {
    metadata.selectNumberingPlan(country);
    const leading = metadata.leadingDigits();
    const types = [];
    for (const name of TYPES) {
      const t = metadata.type(name);
      if (t && t.pattern()) types.push({ pattern: whole(t.pattern()), lengths: t.possibleLengths() });
    }
    return { leading: leading ? new RegExp(leading) : undefined, national: whole(metadata.nationalNumberPattern()), types };
  });
}

/** getNumberType(…) !== undefined in this plan. */
function hasType(plan: Plan, digits: string): boolean {
  if (!plan.national.test(digits)) return false;
  for (const t of plan.types) {
    if (t.lengths && !t.lengths.includes(digits.length)) continue;
    if (t.pattern.test(digits)) return true;
  }
  return false;
}

/** `national`: 10 digits, the first 2-9 (no national prefix for the library to strip). */
export function isValidNanp(national: string): boolean {
  plans ??= loadPlans();
  for (const plan of plans) {
    if (plan.leading) {
      // The library's own test: a match at the very start.
      if (national.search(plan.leading) === 0) return hasType(plan, national);
    } else if (hasType(plan, national)) {
      return true;
    }
  }
  // No country claimed it: the library checks the calling code's main country, the first.
  return plans[0] !== undefined && hasType(plans[0], national);
}
