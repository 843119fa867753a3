// WindowBudget's reading of answers, one rule at a time (the pacer tests run it whole, on virtual time).
import { describe, expect, it } from 'vitest';
import { WindowBudget } from '../../../src/pipeline/dispatch/window-model.js';

describe('WindowBudget: an answer from a later window than the one our window began at', () => {
  /** A budget of 50 whose window began at an answer (at 10 ms) with room `first`, its end at 1,000 ms. */
  function begun(first: number): WindowBudget {
    const b = new WindowBudget(50);
    b.answered(b.send(0), { limit: 50, remaining: first, resetAt: 1000 }, 10);
    return b;
  }

  it('a request sent after that answer came back, reporting as much room: the window stays open until its reset', () => {
    const b = begun(1);
    const t = b.send(20);
    // The one request the room allowed is out: nothing more until the window ends.
    expect(b.wait(30)).toBe(970);
    b.answered(t, { limit: 50, remaining: 1, resetAt: 1500 }, 30);
    // Counted after the first answer in its window, it would report 0: it was counted in a later
    // window, so ours ends no sooner than that one's reset.
    expect(b.wait(40)).toBe(1460);
  });

  it('any request, when that answer was its window first (room limit − 1), even one sent before it came back', () => {
    const b = new WindowBudget(50);
    const first = b.send(0);
    const carried = b.send(5);
    b.answered(first, { limit: 50, remaining: 49, resetAt: 1000 }, 400);
    b.answered(carried, { limit: 50, remaining: 49, resetAt: 1600 }, 600);
    // The room of the window is spent: the wait is until its end, which is not the first answer's
    // reset but the one of the window the carried request was counted in.
    for (let i = 0; i < 48; i++) b.send(601);
    expect(b.wait(1100)).toBe(500);
  });

  it('a later answer with less room, or a refusal after a spent window, leaves the end where it was', () => {
    const b = begun(1);
    const t = b.send(20);
    b.answered(t, { limit: 50, remaining: 0, resetAt: 1500 }, 30);
    expect(b.wait(40)).toBe(960);
    const spent = begun(0);
    const refused = spent.send(20);
    spent.answered(refused, { limit: 50, remaining: 0, resetAt: 1500 }, 30, true);
    expect(spent.wait(40)).toBe(960);
  });
});
