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

describe('pacer: --rate as a hard ceiling from the first request', () => {
  // Before the first answer the service's budget is unknown and the start bucket paces; after it,
  // the ceiling's own bucket. Each once started with a token of its own: at --rate 2 the second
  // request went at once, three in the first second.
  it.each([1, 2, 5])('--rate %i: never more in any one-second interval, whatever the service says of its window', (rate) => {
    const start = 1_700_000_000_000;
    let now = start;
    const pacer = new Pacer({ defaults: { lrn: 200 }, ceilings: { lrn: rate }, now, random: () => 0.5 });
    const sent: number[] = [];
    while (sent.length < rate * 4 + 2) {
      const ticket = pacer.take('lrn', now);
      if (typeof ticket === 'number') {
        now += ticket;
        continue;
      }
      sent.push(now);
      // A generous window that the ceiling, not the service, must keep the pace under.
      pacer.settle(ticket, { rate: { limit: 200, remaining: 200 - sent.length, resetAt: start + 60_000 }, rateLimited: false, ok: true }, now);
    }
    for (const t of sent) expect(sent.filter((u) => u >= t && u < t + 1000).length, `from ${t - start} ms`).toBeLessThanOrEqual(rate);
  });
});

describe('pacer: kinds found to share one long window', () => {
  // enrich joined 35 s into a 60 s window of 6,000 shared by all single lookups: until the window
  // rolls, the merged budget goes at the documented pace of its fastest kind (LRN's 200/s, under
  // the service's 2× cap of 200/s), whichever kind's budget the others were merged onto.
  it.each([
    ['cnam', 'trust', 'lrn'],
    ['lrn', 'cnam', 'trust'],
  ] as const)('sends at LRN 200/s, not CNAM 50/s (kinds asked in the order %s, %s, %s)', (...order) => {
    let now = 1_700_000_000_000;
    const pacer = new Pacer({ defaults: { lrn: 200, cnam: 50, trust: 50 }, now, random: () => 0.5 });
    const windowEnd = now + 25_000;
    let remaining = 6000;
    let sent = 0;
    const end = now + 10_000;
    while (now < end) {
      let waits = Infinity;
      for (const kind of order) {
        const ticket = pacer.take(kind, now);
        if (typeof ticket === 'number') {
          waits = Math.min(waits, ticket);
          continue;
        }
        sent += 1;
        remaining -= 1;
        pacer.settle(ticket, { rate: { limit: 6000, remaining, resetAt: windowEnd }, rateLimited: false, ok: true }, now);
        waits = 0;
      }
      now += Math.max(1, Math.min(waits, end - now));
    }
    expect(sent / 10).toBeGreaterThan(150);
    expect(sent / 10).toBeLessThanOrEqual(200);
  });
});
