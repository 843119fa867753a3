import { describe, expect, it } from 'vitest';
import { cnamResult, lrnResult, sandboxDay, spamClass, subject as subjectOn, trustResult } from '../../src/sandbox/data.js';
import { seedValue } from '../../src/sandbox/hash.js';
import { optionProblems } from '../../src/sandbox/options.js';
import { AREA_CODES } from '../../src/sandbox/npa-table.js';
import { cnam, lrn, trust } from './helpers.js';
import { numbersIn } from '../support/numbers.js';
import { sandbox } from '../support/sandbox.js';

const SEED = seedValue(0);
const TODAY = '2026-03-15';
const DAY = sandboxDay(TODAY, 0);
const subject = (n: string, seed: number) => subjectOn(n, seed, DAY);
const sample = (npa: string, count: number) => numbersIn(npa, count).map((n, i) => `${n.slice(0, 5)}${String((i * 7919) % 100000).padStart(5, '0')}`.slice(0, 11));

describe('synthetic data', () => {
  it('is the same across restarts and changes with the seed', async () => {
    const ask = async (seed: number | string) => {
      const sb = await sandbox({ seed });
      const out = [];
      for (const n of ['12125550123', '14155550199', '19495550100', '19995550100']) {
        out.push((await lrn(sb, { phone_number: n, include_enhanced_lrn: true, messaging_lookup: true })).json);
        out.push((await cnam(sb, { phone_number: n, include_spam: true })).json);
        out.push((await trust(sb, { phone_number: n })).json);
      }
      await sb.close();
      return out;
    };
    const a = await ask(42);
    expect(await ask(42)).toEqual(a);
    expect(await ask('another universe')).not.toEqual(a);
  });

  it('follows the real area code: 212 is New York, -0500, LATA 132', () => {
    for (const n of sample('212', 50)) {
      const e = lrnResult(subject(n, SEED), true, false).enhanced_lrn_data as Record<string, string>;
      expect(e.state).toBe('NY');
      expect(e.timezone).toBe('-0500');
      expect(e.lata).toBe('132');
      expect(e.city).toBe('New York');
      expect(e.zip_code).toMatch(/^100\d\d$/);
    }
    const la = lrnResult(subject('12135550123', SEED), true, false).enhanced_lrn_data as Record<string, string>;
    expect([la.state, la.timezone]).toEqual(['CA', '-0800']);
    const chi = lrnResult(subject('13125550123', SEED), true, false);
    expect((chi.enhanced_lrn_data as Record<string, string>).state).toBe('IL');
    // Seeded: this number has an activation date, stamped in Chicago's offset.
    expect(chi.lrn_activated_at).toMatch(/-06:00$/);
  });

  it('has a table of real area codes covering many states', () => {
    const states = new Set([...AREA_CODES.values()].map((a) => a.state).filter(Boolean));
    expect(AREA_CODES.size).toBeGreaterThanOrEqual(80);
    expect(states.size).toBeGreaterThanOrEqual(45);
    for (const npa of ['201', '212', '213', '312', '415', '512', '617', '702', '305', '949']) expect(AREA_CODES.has(npa)).toBe(true);
    for (const a of AREA_CODES.values()) {
      expect(a.timezone).toMatch(/^[+-]\d{4}$/);
      for (const p of a.places) if (!a.tollFree) expect(p.zip).toMatch(/^\d{5}$/);
    }
  });

  it('gives unknown and toll-free area codes data too', () => {
    const u = lrnResult(subject('19995550123', SEED), true, true);
    expect(u.lrn).toMatch(/^1999\d{7}$/);
    expect((u.enhanced_lrn_data as Record<string, string>).state).toMatch(/^[A-Z]{2}$/);
    const tf = lrnResult(subject('18005550123', SEED), true, false).enhanced_lrn_data as Record<string, string>;
    expect(tf.carrier_type).toBe('TOLLFREE');
  });

  it('ports about a fifth of numbers, to an LRN in the same area code', () => {
    const all = sample('617', 2000);
    let ported = 0;
    let dateless = 0;
    for (const n of all) {
      const r = lrnResult(subject(n, SEED), false, false);
      if (r.lrn !== n) {
        ported++;
        expect(r.lrn).toMatch(/^1617\d{7}$/);
      }
      if (r.lrn_activated_at === null) dateless++;
    }
    expect(ported / all.length).toBeGreaterThan(0.15);
    expect(ported / all.length).toBeLessThan(0.25);
    expect(dateless).toBeGreaterThan(0);
  });

  it('mixes carrier types, mostly wireless', () => {
    const types = new Map<string, number>();
    for (const n of sample('305', 1000)) {
      const e = lrnResult(subject(n, SEED), true, false).enhanced_lrn_data as Record<string, string>;
      types.set(e.carrier_type!, (types.get(e.carrier_type!) ?? 0) + 1);
      expect(e.ocn).toMatch(/^[0-9A-Z]{4}$/);
    }
    expect([...types.keys()].sort()).toEqual(['LANDLINE', 'VOIP', 'WIRELESS']);
    expect(types.get('WIRELESS')!).toBeGreaterThan(500);
  });

  it('keeps CNAM spam_type, trust flags and trust level consistent, mostly NONE', () => {
    const counts = { NONE: 0, SPAM: 0, ROBOCALL: 0, SCAM: 0 };
    for (const n of sample('702', 3000)) {
      const s = subject(n, SEED);
      const c = cnamResult(s, true);
      const t = trustResult(s);
      const cls = c.spam_type as keyof typeof counts;
      counts[cls]++;
      expect(cls).toBe(spamClass(s));
      expect(t.spam_type).toBe(cls === 'NONE' ? null : cls);
      expect(t.is_robocall).toBe(cls === 'ROBOCALL');
      expect(t.is_scam).toBe(cls === 'SCAM');
      if (cls === 'SPAM') expect(t.is_spam).toBe(true);
      if (cls === 'NONE') expect(t.is_spam).toBe(false);
      const score = t.reputation_score as number;
      expect(score).toBeGreaterThanOrEqual(0);
      expect(score).toBeLessThanOrEqual(100);
      expect(t.trust_level).toBe(score >= 70 ? 'high' : score >= 40 ? 'medium' : 'low');
      if (cls !== 'NONE') expect(t.trust_level).not.toBe('high');
      expect((c.cnam as string).length).toBeLessThanOrEqual(15);
      expect(c.cnam).toBe((c.cnam as string).toUpperCase());
    }
    expect(counts.NONE / 3000).toBeGreaterThan(0.8);
    expect(counts.SPAM).toBeGreaterThan(0);
    expect(counts.ROBOCALL).toBeGreaterThan(0);
    expect(counts.SCAM).toBeGreaterThan(0);
  });

  it('dates activations and trust updates back from the sandbox day: a day to ten years ago, some within 7 and 30 days', () => {
    const all = sample('415', 4000);
    const dayMs = Date.parse(`${TODAY}T00:00:00Z`);
    const ages = { le7: 0, le30: 0, dated: 0 };
    for (const n of all) {
      const s = subject(n, SEED);
      const at = lrnResult(s, false, false).lrn_activated_at as string | null;
      const updated = trustResult(s).last_updated as string;
      const up = Date.parse(updated);
      expect(up).toBeLessThanOrEqual(dayMs - 86_400_000);
      expect(up).toBeGreaterThan(dayMs - 2 * 366 * 86_400_000);
      if (at === null) continue;
      const age = dayMs - Date.parse(at);
      expect(age).toBeGreaterThanOrEqual(86_400_000);
      expect(age).toBeLessThanOrEqual(10 * 366 * 86_400_000);
      ages.dated++;
      if (age <= 7 * 86_400_000) ages.le7++;
      else if (age <= 30 * 86_400_000) ages.le30++;
    }
    // 1.5% and 3.5% by construction.
    expect(ages.le7 / ages.dated).toBeGreaterThan(0.008);
    expect(ages.le7 / ages.dated).toBeLessThan(0.025);
    expect(ages.le30 / ages.dated).toBeGreaterThan(0.025);
    expect(ages.le30 / ages.dated).toBeLessThan(0.05);
  });

  it('is the same on the same day and moves with the day: every date the days between later', () => {
    const n = '12125550123';
    const later = subjectOn(n, SEED, sandboxDay('2026-03-25', 0));
    const a = lrnResult(subject(n, SEED), false, false).lrn_activated_at as string;
    const b = lrnResult(later, false, false).lrn_activated_at as string;
    expect(lrnResult(subject(n, SEED), false, false).lrn_activated_at).toBe(a);
    expect(Date.parse(b) - Date.parse(a)).toBe(10 * 86_400_000);
    expect(Date.parse(trustResult(later).last_updated as string) - Date.parse(trustResult(subject(n, SEED)).last_updated as string)).toBe(10 * 86_400_000);
  });

  it("takes the day from --today's option, else from its clock (UTC)", async () => {
    const n = '12125550123';
    const expected = trustResult(subject(n, SEED)).last_updated;
    const fixed = await sandbox({ today: TODAY });
    expect((await trust(fixed, { phone_number: n })).json).toMatchObject({ data: { last_updated: expected } });
    const clocked = await sandbox({}, { now: () => Date.parse(`${TODAY}T23:59:00Z`) });
    expect((await trust(clocked, { phone_number: n })).json).toMatchObject({ data: { last_updated: expected } });
    expect(optionProblems({ today: '2026-02-30' })).toEqual(['today must be a date YYYY-MM-DD, or null for the clock\'s day (got "2026-02-30")']);
    expect(optionProblems({ today: TODAY })).toEqual([]);
  });
});
