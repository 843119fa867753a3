// --rate 0 (no client limit) must not slow the pacer: joining a long window the service has not
// described (no policy, reset 40 s away), the documented pace caps the spread, not the ceiling.
import { describe, expect, it } from 'vitest';
import { Pacer } from '../../../src/pipeline/dispatch/pacer.js';

function sentIn10s(ceilings: Record<string, number> | undefined): number {
  let now = 1_700_000_000_000;
  const pacer = new Pacer({ defaults: { lrn: 100 }, ...(ceilings ? { ceilings } : {}), now, random: () => 0.5 });
  const windowEnd = now + 40_000;
  let remaining = 6000;
  let sent = 0;
  const end = now + 10_000;
  while (now < end) {
    const ticket = pacer.take('lrn', now);
    if (typeof ticket === 'number') {
      now += Math.max(1, Math.min(ticket, end - now));
      continue;
    }
    sent += 1;
    remaining -= 1;
    pacer.settle(ticket, { rate: { limit: 6000, remaining, resetAt: windowEnd }, rateLimited: false, ok: true }, now);
  }
  return sent;
}

describe('pacer ceiling', () => {
  it('--rate 0 paces a long unconfirmed window like no --rate at all, not near zero', () => {
    const free = sentIn10s({ lrn: 0 });
    const documented = sentIn10s(undefined);
    expect(documented).toBeGreaterThan(500);
    expect(free).toBeGreaterThanOrEqual(documented * 0.9);
  });
});
