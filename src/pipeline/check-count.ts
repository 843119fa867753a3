// The one check on the runner's counts (concurrency, retries, window, breaker threshold).

/** Throws a RangeError unless `value` is an integer ≥ `min`. */
export function checkCount(name: string, value: number, min: number): void {
  if (!Number.isInteger(value) || value < min) throw new RangeError(`${name} must be an integer ≥ ${min}, got ${String(value)}`);
}
