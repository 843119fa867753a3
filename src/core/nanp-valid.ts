// Whether 10 national digits are a valid number of some +1 country, as libphonenumber-js decides it
// for `parsePhoneNumberFromString('+1' + digits).isValid()`, over the library's own metadata and
// with its own steps (getCountryByNationalNumber, then getNumberType in that country's plan), but
// without the parsing of a typed string around them, which cost three quarters of the time per
// number, and with the plans read out of the metadata when it is generated (nanp-metadata.ts). test/core/numbers-oracle.test.ts holds the answers to the library's, number by number.
import { NANP_LEADING, NANP_PLANS } from './nanp-metadata.js';

/**
 * A country's plan as scripts/nanp-metadata.js reads it out of the library's metadata (with the
 * library's Metadata class): national number pattern, and the pattern and lengths of each type
 * with one, in getNumberType's order. Its leading digits are apart (NANP_LEADING).
 */
export interface PlanSource {
  readonly national: string;
  readonly types: readonly { readonly pattern: string; readonly lengths: readonly number[] | null }[];
}

/** A plan's patterns, compiled. */
interface Plan {
  readonly national: RegExp;
  /** The types with a pattern, each with the lengths it allows (null: any). */
  readonly types: readonly { readonly pattern: RegExp; readonly lengths: readonly number[] | null }[];
}

const whole = (pattern: string) => new RegExp(`^(?:${pattern})$`);

// Parsed and compiled on first use, each plan by itself: a number is decided by one or two of the
// +1 countries' plans, and compiling all of their few hundred patterns cost a one-number run more
// than its validation (and most of the garbage that made its only collection).
const leadings: (RegExp | null)[] = [];
const plans: Plan[] = [];

/** The country's leading digits, when it has them: the number is its if they match at the start. */
function leadingOf(i: number): RegExp | null {
  let leading = leadings[i];
  if (leading === undefined) {
    const source = NANP_LEADING[i];
    leadings[i] = leading = source ? new RegExp(source) : null;
  }
  return leading;
}

function planOf(i: number): Plan {
  let plan = plans[i];
  if (plan === undefined) {
    const p = JSON.parse(NANP_PLANS[i]!) as PlanSource;
    plans[i] = plan = { national: whole(p.national), types: p.types.map((t) => ({ pattern: whole(t.pattern), lengths: t.lengths })) };
  }
  return plan;
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
  for (let i = 0; i < NANP_PLANS.length; i++) {
    const leading = leadingOf(i);
    if (leading) {
      // The library's own test: a match at the very start.
      if (national.search(leading) === 0) return hasType(planOf(i), national);
    } else if (hasType(planOf(i), national)) {
      return true;
    }
  }
  // No country claimed it: the library checks the calling code's main country, the first.
  return NANP_PLANS.length > 0 && hasType(planOf(0), national);
}
