// Distinct valid U.S. numbers for tests, in one area code's 555 exchange.

/** `count` distinct valid numbers 1<npa>555dddd, dddd counting up from `start`. */
export function numbersIn(npa: string, count: number, start = 0): string[] {
  return Array.from({ length: count }, (_, i) => `1${npa}555${String(start + i).padStart(4, '0')}`);
}

/** `n` distinct valid numbers: 1201555xxxx, from 1201555(1000 + from). */
export function numbers(n: number, from = 0): string[] {
  return numbersIn('201', n, 1000 + from);
}

/** `count` distinct valid numbers, 1201555xxxx from `from`, in mixed common forms (as users type them). */
export function mixedNumbers(count: number, from = 0): string[] {
  const forms = [
    (d: string) => `1201555${d}`,
    (d: string) => `(201) 555-${d}`,
    (d: string) => `+1 201-555-${d}`,
    (d: string) => `201.555.${d}`,
  ];
  return Array.from({ length: count }, (_, i) => {
    const d = String(from + i).padStart(4, '0');
    return (forms[i % forms.length] as (d: string) => string)(d);
  });
}

/** The 11-digit form of what `mixedNumbers` produced. */
export const normalised = (input: string) => `1${input.replace(/\D/g, '').slice(-10)}`;
