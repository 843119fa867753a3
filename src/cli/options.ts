// Flag parsers shared by the commands: each refuses a bad value with a message quoting it.
import { InvalidArgumentError } from 'commander';

export function intOption(min: number) {
  return (value: string): number => {
    const n = Number(value);
    if (!/^\s*\d+\s*$/.test(value) || !Number.isSafeInteger(n) || n < min) {
      throw new InvalidArgumentError(`Expected a whole number of at least ${min}, got "${value}"`);
    }
    return n;
  };
}

export function numberOption(min: number, { exclusive = false } = {}) {
  return (value: string): number => {
    const n = Number(value);
    if (value.trim() === '' || !Number.isFinite(n) || n < min || (exclusive && n === min)) {
      throw new InvalidArgumentError(`Expected a number ${exclusive ? 'above' : 'of at least'} ${min}, got "${value}"`);
    }
    return n;
  };
}
