// Stops a run whose service is down instead of grinding through a million rows of timeouts.
// Counts rows in the order they finish: a row that still failed after its retries with a transient
// error counts; a row with every lookup answered resets; invalid numbers and permanent refusals
// say nothing about the service's health and leave the count alone.
import { checkCount } from '../check-count.js';
import { isTransient, type LookupError } from '../../core/records.js';

export class CircuitBreaker {
  private consecutive = 0;

  /** `threshold` 0 switches the breaker off. */
  constructor(private readonly threshold: number) {
    checkCount('breaker threshold', threshold, 0);
  }

  /** Records one finished row's errors; true when this row trips the breaker. */
  record(errors: readonly (LookupError | null)[]): boolean {
    let failed = false;
    let allOk = true;
    for (const e of errors) {
      if (e === null) continue;
      allOk = false;
      if (isTransient(e.code)) failed = true;
    }
    if (failed) this.consecutive += 1;
    else if (allOk) this.consecutive = 0;
    return this.threshold > 0 && this.consecutive >= this.threshold;
  }
}
