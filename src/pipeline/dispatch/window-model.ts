// What the client knows of one rate budget the service enforces: its limit, the length and phase
// of its fixed window, and how much of the current window is left. Learned from the answers'
// Remaining/Reset (any dialect; rate-headers.ts reads them) and kept so that the client sends what
// the window allows, minus what is in flight, and no more.
//
// The accounting (why it never overruns): every request is stamped at send with its rank `seq` in
// our current window, counting the requests still in flight from before as sent in it. An answer
// that reports `remaining` R after request k says the window has room for at most R more beyond
// k, and every request sent after k may already be counted; so what may still go is
// min over answers (R_k + seq_k) − sent. Others spending the same budget (another process, another
// lookup kind sharing the budget) only ever lower R, so the minimum follows them.
//
// The phase: the window's end is kept as an UPPER bound (waiting for it is always safe): from the
// reset an answer reports (a Unix time or a delta, both whole seconds: the true end lies in the
// second before it), else from the time of the answer plus the window's length. At that end the
// next window starts with the whole limit. When an answer shows a fresh window before our end
// (R_k + seq_k rises above the minimum by more than the requests that were in flight when k went,
// which the service may have counted after k, and a little slack for overtaking), the true end was
// earlier: the window restarts there, and the phase is then known to within a few requests.
//
// Within a window the budget is spread: L requests over 90% of its length, so a service that
// also caps bursts (6,000 a minute, at most 2× the average in any second) sees an even flow, the
// requests straddling the boundary keep the phase learned, and 10% of the window is slack for a
// phase that is late.
import type { RateInfo } from '../../core/transport.js';

/** A request's place in its budget's accounting. */
export interface Ticket {
  /** Which of our windows it went out in. */
  readonly epoch: number;
  /** Its rank in that window, counting requests carried in flight from the one before. */
  readonly seq: number;
  /** When it was sent, epoch ms. */
  readonly at: number;
  /** Requests of this budget in flight when it went: the service may count them after it. */
  readonly ahead: number;
}

/** The budget's L requests go out over this share of the window. */
const SPREAD = 0.9;
/** Requests a window may send ahead of the even spread: 2% of a second's worth, at least 1. */
const LEAD = 0.02;
/** In a window longer than a second, the most the spread catches up at once: this many ms' worth. */
const CATCH_UP_MS = 50;
/** Resets come in whole seconds: the true end lies within this much before the reported one. */
const RESET_GRAIN_MS = 1000;
const DEFAULT_WINDOW_MS = 1000;
/** Epochs are unique across budgets, so a ticket from a budget merged into another never matches by chance. */
let epochs = 0;

export class WindowBudget {
  /** The limit the service advertises, if it does. */
  private advertised: number | undefined;
  /** The largest room seen at the start of a window (for a service that hides its limit). */
  private learned = 0;
  /** From the service's policy (IETF `w=`), else the longest reset distance seen, in whole seconds. */
  private policyWindowMs: number | undefined;
  private seenWindowMs = 0;
  /**
   * A reset that stands still while time passes is a Unix time: it steps by the window's length
   * (or more) from one window to the next. Its distance overstates the length by up to a second
   * when windows do not end on a whole second (they start at the first request after the last
   * one ended), so the smallest step seen bounds the length.
   */
  private lastReset: number | undefined;
  private lastResetNow = 0;
  private absoluteReset = false;
  private stepMs: number | undefined;
  /** Upper bound of the current window's end, epoch ms; undefined until an answer tells. */
  private end: number | undefined;
  /** When our current window began (its start, or when we first heard of it). */
  private start = 0;
  /** The end was carried over by one window length, not yet confirmed by an answer of this window. */
  private provisional = false;
  /** A window ended while we watched: the reset distance seen since covers a whole window. */
  private rolled = false;
  private epoch = ++epochs;
  /** Requests counted in the current window (including those carried in flight into it). */
  private sent = 0;
  /** Requests this client sent in the current window (not counting those carried). */
  sentHere = 0;
  /** Room lost in the current window to requests this budget did not send (another kind, another process). */
  foreign = 0;
  /** The same, in the window before. */
  private foreignBefore = 0;
  /** min over answers in this window of R_k + seq_k. */
  private best = Infinity;
  /** Ranks of this window's 429s: the service may not have counted them, so later ranks are one less each. */
  private refusedSeqs: number[] = [];
  inFlight = 0;
  /** Set once an answer reported the remaining budget: only then does the window rule. */
  known = false;
  /** The room reported by the answer this window of ours began at (a restart), and when it came. */
  private establishedRoom: number | undefined;
  private establishedAt = 0;

  constructor(private fallbackLimit: number) {}

  /** Requests per window the budget works with. */
  limit(): number {
    if (this.advertised !== undefined) return this.advertised;
    if (this.learned > 0) return this.learned;
    return Math.max(1, (this.fallbackLimit * this.windowMs()) / 1000);
  }

  windowMs(): number {
    return this.policyWindowMs ?? Math.min(this.seenWindowMs || DEFAULT_WINDOW_MS, this.stepMs ?? Infinity);
  }

  /**
   * The pace while the window's length is a guess longer than a second (joined late in a long
   * window, the reset distance seen so far is shorter than the window): spreading the whole limit
   * over the part seen would burst, so the documented pace caps it until a window has rolled over.
   */
  private unconfirmedCap(): number {
    // A Unix-time reset's step spans a whole window, as a roll does.
    const confirmed = this.policyWindowMs !== undefined || this.rolled || this.stepMs !== undefined;
    if (confirmed || this.seenWindowMs <= 1000 || this.fallbackLimit <= 0) return Infinity;
    return (this.fallbackLimit * 0.97) / 1000;
  }

  /**
   * Room left unused when someone else spends this budget too (another process on the key): their
   * requests in flight are invisible until answered, and a 429 costs its whole Retry-After.
   */
  private reserve(): number {
    const noise = this.slack();
    return this.foreign > noise || this.foreignBefore > noise ? Math.max(1, Math.ceil(0.03 * this.limit())) : 0;
  }

  /** Ms to wait before the next request may go; 0 = it may go now (nothing is counted). */
  wait(now: number): number {
    this.roll(now);
    const limit = this.limit();
    const room = Math.min(this.best, limit) - (this.sent - this.refusedSeqs.length) - this.reserve();
    if (room < 1) return this.end === undefined ? this.windowMs() : Math.max(1, this.end - now);
    const w = this.windowMs();
    const perMs = Math.min(limit / (SPREAD * w), this.unconfirmedCap());
    const lead = Math.max(1, Math.floor((LEAD * limit * 1000) / w));
    const sent = this.sent - this.refusedSeqs.length;
    // Behind the spread after a stall (a blocked event loop, slow answers holding every slot):
    // catching up at once is a burst, which a service capping bursts inside a long window refuses
    // (at a 1.5 s stall, 29% 429s). In a window longer than a second the spread resumes from now
    // instead, and the window's 10% slack absorbs the delay; a 1 s window has no room to defer.
    if (w > DEFAULT_WINDOW_MS) {
      const behind = (now - this.start) * perMs - sent - CATCH_UP_MS * perMs;
      if (behind > 0) this.start += behind / perMs;
    }
    const due = lead + (now - this.start) * perMs;
    if (sent < due) return 0;
    const ms = Math.max(1, Math.ceil((sent + 1 - due) / perMs));
    return this.end === undefined ? ms : Math.max(1, Math.min(ms, this.end - now));
  }

  /** Counts a request going out now; its ticket comes back with the answer. */
  send(now: number): Ticket {
    this.roll(now);
    const ahead = this.inFlight;
    this.sent += 1;
    this.sentHere += 1;
    this.inFlight += 1;
    return { epoch: this.epoch, seq: this.sent, at: now, ahead };
  }

  /**
   * The answer to `t` arrived: what it says of the budget, if anything. `refused`: a 429, which the
   * service may not have counted (its R then leaves room for one more than it says; a spent
   * window says R = 0 either way).
   */
  answered(t: Ticket, info: RateInfo | undefined, now: number, refused = false): void {
    this.inFlight -= 1;
    if (!info) return;
    if (info.limit !== undefined && info.limit > 0) this.advertised = info.limit;
    if (info.windowMs !== undefined && info.windowMs > 0) this.policyWindowMs = info.windowMs;
    if (info.resetAt !== undefined) this.noteReset(info.resetAt, now);
    if (info.resetAt !== undefined && info.resetAt > now) {
      const distance = Math.ceil((info.resetAt - now) / RESET_GRAIN_MS) * RESET_GRAIN_MS;
      if (distance > this.seenWindowMs) this.seenWindowMs = distance;
    }
    if (info.remaining === undefined) return;
    this.roll(now);
    const r = info.remaining;
    if (!this.known) {
      this.known = true;
      this.restart(t, r, info, now);
      return;
    }
    // Sent in an earlier window of ours: it was counted as carried; it says nothing sure of this
    // one's room, but it may show that this one's end is later than we thought.
    if (t.epoch !== this.epoch) {
      if (this.laterWindow(t, r)) this.endNoSoonerThan(info);
      return;
    }
    let before = 0;
    for (const q of this.refusedSeqs) if (q < t.seq) before += 1;
    const room = r + t.seq - before - (refused ? 1 : 0);
    if (refused) this.refusedSeqs.push(t.seq);
    if (room > this.best + t.ahead + this.slack()) {
      // A fresh window began before the end we expected.
      this.restart(t, r, info, now);
      return;
    }
    if (room < this.best) {
      if (this.best !== Infinity) this.foreign += this.best - room;
      this.best = room;
    }
    this.placeEnd(t, info, now);
    if (this.laterWindow(t, r)) this.endNoSoonerThan(info);
  }

  /**
   * Whether the answer (room `r`) was counted in a later window of the service than the answer this
   * window of ours began at: within one window the room only falls, so an answer counted after that
   * one in its window reports less (or 0 again, refused). Counted after it for certain: a request
   * sent once that answer was back, or any other when that answer was its window's first (room
   * limit − 1; with a hidden limit, the limit learned is that room plus one, so this is a guess, and
   * a wrong one only keeps the window open longer). The requests sent since may then be counted in
   * that later window, which ends after the end taken from the first answer: a start on a loaded
   * machine whose first request was counted alone near its window's end and the next ones in the
   * window after (room 49 again: no rise to see) rolled over a window early and sent a 51st request
   * into the window they were counted in.
   */
  private laterWindow(t: Ticket, r: number): boolean {
    const first = this.establishedRoom;
    return first !== undefined && r >= Math.max(first, 1) && (t.at > this.establishedAt || first >= this.limit() - 1);
  }

  /** Keeps the window open until the answer's reset at least (always safe: waiting longer). */
  private endNoSoonerThan(info: RateInfo): void {
    if (info.resetAt !== undefined && this.end !== undefined && info.resetAt > this.end) {
      this.end = info.resetAt;
      this.provisional = false;
    }
  }

  /**
   * How far room may rise within one window beyond what was in flight: a request overtaken by a
   * later one (another connection) lowers the minimum by one each time. A smaller true jump goes
   * unseen; the phase is then late by that many requests, which the 10% slack absorbs.
   */
  private slack(): number {
    return 1 + Math.floor(this.limit() / 50);
  }

  /** A window starts at this answer: room R_k, everything in flight counted in it. */
  private restart(t: Ticket, r: number, info: RateInfo, now: number): void {
    this.newEpoch();
    this.establishedRoom = r;
    this.establishedAt = now;
    // Those still in flight may be counted after k: they come out of R_k.
    this.sent = this.inFlight;
    this.best = r;
    if (r + 1 > this.learned) this.learned = r + 1;
    this.end = undefined;
    this.placeEnd(t, info, now);
    if (this.end === undefined) this.end = now + this.windowMs();
    // The spread starts now, not at the window's start: catching up on the part of the window
    // already gone would be a burst, which a service capping bursts refuses.
    this.start = t.at;
    this.provisional = false;
  }

  private noteReset(at: number, now: number): void {
    const last = this.lastReset;
    if (last !== undefined && at === last && now !== this.lastResetNow && now - this.lastResetNow < RESET_GRAIN_MS) this.absoluteReset = true;
    if (last !== undefined && this.absoluteReset && at - last >= RESET_GRAIN_MS) this.stepMs = Math.min(this.stepMs ?? Infinity, at - last);
    if (last === undefined || at >= last) {
      this.lastReset = at;
      this.lastResetNow = now;
    }
  }

  /** Narrows the end of the current window with an answer's reset. */
  private placeEnd(t: Ticket, info: RateInfo, now: number): void {
    const hi = info.resetAt;
    if (hi === undefined || hi <= now) return;
    const lo = hi - RESET_GRAIN_MS - (now - t.at);
    if (this.end === undefined || this.end < lo || this.provisional) {
      // Ours was carried over a window length (a guess) or was too short: the answer's wins. Even
      // when the carried end is earlier: a window that starts at the first request after the last
      // one ended (not on the clock) ends later than that, by the time our first request took to
      // arrive, and a request sent in between would meet the old window spent.
      this.end = hi;
      this.provisional = false;
      this.boundByStep(now);
      return;
    }
    if (hi < this.end) this.end = hi;
    this.boundByStep(now);
  }

  /**
   * The request answered now was counted in a window that began before it arrived: it ends at
   * most a window's length after now. With Unix-time resets on windows that start at the first
   * request, this is much nearer than the reset, which is rounded up to the next whole second.
   */
  private boundByStep(now: number): void {
    if (this.stepMs !== undefined && this.end !== undefined) this.end = Math.min(this.end, now + this.stepMs);
  }

  /** Past the end of the window: the next one starts with the whole limit, less what is in flight. */
  private roll(now: number): void {
    if (this.end === undefined || now < this.end) return;
    const w = this.windowMs();
    const skipped = Math.floor((now - this.end) / w);
    this.start = this.end + skipped * w;
    this.end = this.start + w;
    this.provisional = true;
    this.rolled = true;
    this.newEpoch();
    this.sent = this.inFlight;
    this.best = Infinity;
  }

  private newEpoch(): void {
    this.epoch = ++epochs;
    this.establishedRoom = undefined;
    this.sentHere = 0;
    this.foreignBefore = this.foreign;
    this.foreign = 0;
    this.refusedSeqs = [];
  }

  /**
   * Takes over `other`'s requests in flight: the two were found to spend one budget. Its tickets
   * come here when answered; their epochs are not ours, so they only leave the in-flight count.
   */
  absorb(other: WindowBudget): void {
    // The documented pace of the fastest kind now spending it: merged onto CNAM's budget, a window
    // not yet confirmed would otherwise hold LRN, CNAM and trust together to CNAM's 50/s.
    this.fallbackLimit = Math.max(this.fallbackLimit, other.fallbackLimit);
    this.inFlight += other.inFlight;
    this.sent += other.inFlight;
    other.inFlight = 0;
    other.mergedInto = this;
  }

  /** Set when this budget was found to be another's. */
  mergedInto: WindowBudget | undefined;

  /** Where this budget's answers go now. */
  target(): WindowBudget {
    return this.mergedInto ? this.mergedInto.target() : this;
  }
}
