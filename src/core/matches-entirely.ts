// libphonenumber-js's helpers/matchesEntirely.js, with each pattern compiled once. The library
// builds `new RegExp('^(?:' + pattern + ')$')` on every call, for patterns of up to a few kilobytes
// (the U.S. area codes), several times per number: in a bulk run that was a tenth of the CPU. The
// answers are the library's own. scripts/libphonenumber-resolve.js puts this module in the
// library's place, in the bundle and in the tests alike.
const compiled = new Map<string, RegExp>();

/** How many patterns are compiled: for the test that proves the substitution is in place. */
export const compiledPatterns = (): number => compiled.size;

export default function matchesEntirely(text: string | undefined, regularExpressionText: string): boolean {
  let re = compiled.get(regularExpressionText);
  if (re === undefined) {
    re = new RegExp(`^(?:${regularExpressionText})$`);
    compiled.set(regularExpressionText, re);
  }
  return re.test(text || '');
}
