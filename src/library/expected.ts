// The library's refusal of an option, in the caller's own names.
import { BadOptionError } from '../core/errors.js';

/** `Expected \`concurrency\` to be an integer ≥ 1, got 0`: the caller's own option name, the value quoted. */
export function expected(name: string, what: string, value: unknown): BadOptionError {
  const shown = typeof value === 'string' ? JSON.stringify(value) : typeof value === 'number' || typeof value === 'boolean' || value == null ? String(value) : typeof value;
  return new BadOptionError(`Expected \`${name}\` to be ${what}, got ${shown}`);
}
