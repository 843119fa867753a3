// Fault injection: per-request random draws from a seeded PRNG of their own, so the data of a
// number never depends on which faults happened before it.
import { prng } from '../core/prng.js';
import type { SandboxOptions } from './options.js';

export type FaultKind = 'reset' | 'hang' | 'error' | 'rate429';

export type FaultOptions = Pick<SandboxOptions, 'latencyMs' | 'jitterMs' | 'failRate' | 'resetRate' | 'hangRate' | 'rate429' | 'bulkFailRate'>;

const ERROR_STATUSES = [500, 502, 503] as const;

export class FaultInjector {
  private readonly random: () => number;

  constructor(seed: number) {
    this.random = prng(seed ^ 0x5bd1e995);
  }

  /** Milliseconds to hold this response back (0 = answer at once). */
  delay(o: FaultOptions): number {
    if (o.jitterMs === 0) return o.latencyMs;
    return o.latencyMs + Math.floor(this.random() * (o.jitterMs + 1));
  }

  /** The fault for this request, if any; at most one, tried in a fixed order. */
  draw(o: FaultOptions): FaultKind | undefined {
    if (o.resetRate > 0 && this.random() < o.resetRate) return 'reset';
    if (o.hangRate > 0 && this.random() < o.hangRate) return 'hang';
    if (o.failRate > 0 && this.random() < o.failRate) return 'error';
    if (o.rate429 > 0 && this.random() < o.rate429) return 'rate429';
    return undefined;
  }

  /** Whether one number of a bulk request comes back as a `failed` row. */
  rowFails(o: FaultOptions): boolean {
    return o.bulkFailRate > 0 && this.random() < o.bulkFailRate;
  }

  errorStatus(): number {
    return ERROR_STATUSES[Math.floor(this.random() * ERROR_STATUSES.length)] ?? 500;
  }
}

export const ROW_FAILURE_TEXT = 'upstream provider timeout (injected fault): retry the number later';

export const ERROR_TEXT: Readonly<Record<number, string>> = {
  500: 'internal server error (injected fault)',
  502: 'bad gateway (injected fault)',
  503: 'service unavailable (injected fault)',
};
