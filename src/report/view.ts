// The report laid out for people: sections of figures and bar charts, worded once here for both
// the terminal and the HTML page. Chart bars carry the key of the figure they draw, so a reader of
// the page (or a test) can find each number again in the JSON report.
import { LOOKUPS, type LookupKind } from '../core/lookups.js';
import { INVALID_REASON_LABELS } from '../core/numbers.js';
import { RECENCY_BUCKETS, RECENCY_LABELS, type LineClass } from './normalise.js';
import type { Ranked, Report } from './report.js';

export interface Bar {
  readonly key: string;
  readonly label: string;
  readonly count: number;
  readonly share: number;
}

export interface Chart {
  readonly id: string;
  readonly title: string;
  /** What the shares are of. */
  readonly base: number;
  readonly bars: readonly Bar[];
  /** Histogram: bars in their own order, all drawn even when empty. */
  readonly histogram?: boolean;
}

export interface Fact {
  readonly key: string;
  readonly label: string;
  readonly value: string;
  /** A share to show beside the value. */
  readonly share?: number;
}

export interface Section {
  readonly id: string;
  readonly title: string;
  readonly note?: string;
  readonly facts: readonly Fact[];
  readonly charts: readonly Chart[];
}

const LINE_LABELS: Record<LineClass | 'not_given', string> = {
  mobile: 'mobile (wireless)',
  landline: 'landline',
  voip: 'VoIP',
  toll_free: 'toll-free',
  other: 'other',
  not_given: 'not given',
};

export const ratio = (part: number, whole: number) => (whole === 0 ? 0 : part / whole);
export const percent = (share: number) => `${(share * 100).toFixed(1)}%`;
const int = (n: number) => n.toLocaleString('en-US');
/** A count with its noun: `1 row`, `2 rows`. */
const many = (n: number, one: string, more = `${one}s`) => `${int(n)} ${n === 1 ? one : more}`;

function bars(entries: Record<string, number>, base: number, label: (key: string) => string = (k) => k): Bar[] {
  return Object.entries(entries).map(([key, count]) => ({ key, label: label(key), count, share: ratio(count, base) }));
}

/** A reason code in words; a key it does not know (a report JSON of an older numintel) as it is. */
function reasonLabel(key: string): string {
  return (INVALID_REASON_LABELS as Record<string, string>)[key] ?? key;
}

function rankedBars(r: Ranked, restLabel: string): Bar[] {
  const top = r.top.map((t) => ({ key: t.name, label: t.label ?? t.name, count: t.count, share: ratio(t.count, r.base) }));
  return r.rest > 0 ? [...top, { key: '(rest)', label: `${restLabel} (${int(r.distinct - r.top.length)})`, count: r.rest, share: ratio(r.rest, r.base) }] : top;
}

function fact(key: string, label: string, count: number, of?: number): Fact {
  return of === undefined ? { key, label, value: int(count) } : { key, label, value: int(count), share: ratio(count, of) };
}

const title = (kind: LookupKind) => LOOKUPS[kind].title;

export function reportView(r: Report): Section[] {
  const sections: Section[] = [];
  const input = r.input;
  const facts: Fact[] = [
    fact('rows', 'rows', input.rows),
    fact('valid', 'valid numbers', input.valid, input.rows),
    fact('invalid', 'invalid', input.invalid, input.rows),
    fact('duplicates', 'repeated numbers', input.duplicates, input.rows),
  ];
  if (input.unreadable) facts.push(fact('unreadable', 'unreadable lines (skipped)', input.unreadable));
  const failed: Record<string, number> = {};
  for (const kind of r.source.lookups) {
    const k = r.lookups[kind];
    if (!k) continue;
    facts.push(fact(`${kind}.answered`, `${title(kind)} answered`, k.answered, k.rows));
    if (k.cached !== null) facts.push(fact(`${kind}.cached`, `${title(kind)} from the cache`, k.cached, k.answered));
    facts.push(fact(`${kind}.billed`, `${title(kind)} lookups billed`, k.billed));
    if (k.failed > 0) facts.push(fact(`${kind}.failed`, `${title(kind)} failed`, k.failed, k.rows));
    if (k.cost !== undefined) facts.push({ key: `${kind}.cost`, label: `${title(kind)} cost at ${k.price}`, value: money(k.cost) });
    for (const [code, n] of Object.entries(k.failed_by_code)) failed[`${kind}:${code}`] = n;
  }
  if (r.cost) {
    facts.push({ key: 'cost', label: 'cost', value: money(r.cost.total) });
    // Read alone, the total would pass for the whole cost (the JSON says it by each lookup's missing price).
    const unpriced = r.source.lookups.filter((kind) => r.lookups[kind] !== undefined && r.lookups[kind].price === undefined);
    if (unpriced.length > 0) facts.push({ key: 'cost.unpriced', label: 'not in the cost', value: `${unpriced.map(title).join(', ')} (no price)` });
  }
  const failedTotal = Object.values(failed).reduce((a, b) => a + b, 0);
  const charts: Chart[] = [];
  if (input.invalid > 0) charts.push({ id: 'invalid', title: 'Invalid numbers by reason', base: input.invalid, bars: bars(input.invalid_by_reason, input.invalid, reasonLabel) });
  if (failedTotal > 0) {
    charts.push({
      id: 'failed',
      title: 'Failed lookups by error',
      base: failedTotal,
      bars: bars(failed, failedTotal, (k) => `${title(k.split(':')[0] as LookupKind)}: ${k.split(':').slice(1).join(':')}`),
    });
  }
  sections.push({ id: 'input', title: 'Input and cost', facts, charts });

  const lt = r.line_type;
  if (lt) {
    const classes: Record<string, number> = { mobile: lt.mobile, landline: lt.landline, voip: lt.voip, toll_free: lt.toll_free, other: lt.other };
    if (lt.not_given > 0) classes.not_given = lt.not_given;
    const ltCharts: Chart[] = [{ id: 'line_type', title: 'Numbers by line type', base: lt.base, bars: bars(classes, lt.base, (k) => LINE_LABELS[k as LineClass]) }];
    if (lt.other > 0) ltCharts.push({ id: 'line_type_other', title: 'Other line types, as the service wrote them', base: lt.base, bars: bars(lt.other_codes, lt.base) });
    sections.push({
      id: 'line_type',
      title: 'Line type',
      note: `of ${many(lt.base, 'number')} with a carrier type. Wireless and VoIP numbers need consent before autodialing.`,
      facts: [fact('wireless_or_voip', 'wireless or VoIP', lt.wireless_or_voip, lt.base)],
      charts: ltCharts,
    });
  }

  const p = r.porting;
  if (p) {
    const recency = (m: Record<string, number>, base: number) =>
      RECENCY_BUCKETS.map((b) => ({ key: b, label: RECENCY_LABELS[b], count: m[b] ?? 0, share: ratio(m[b] ?? 0, base) }));
    const pCharts: Chart[] = [];
    if (p.ported > 0) pCharts.push({ id: 'activated_ported', title: 'Ported numbers: LRN activated', base: p.ported, bars: recency(p.activated_ported, p.ported), histogram: true });
    pCharts.push({ id: 'activated', title: 'All numbers: LRN activated', base: p.base, bars: recency(p.activated, p.base), histogram: true });
    sections.push({
      id: 'porting',
      title: 'Porting',
      note: `of ${many(p.base, 'number')} with an LRN; ported = the LRN differs from the number; ages as of ${r.as_of}.`,
      facts: [fact('ported', 'ported', p.ported, p.base), fact('not_ported', 'not ported', p.base - p.ported, p.base)],
      charts: pCharts,
    });
  }

  if (r.carriers) {
    sections.push({
      id: 'carriers',
      title: 'Carriers',
      note: `${many(r.carriers.distinct, 'carrier')} among ${many(r.carriers.base, 'number')}.`,
      facts: [],
      charts: [{ id: 'carriers', title: 'Top carriers', base: r.carriers.base, bars: rankedBars(r.carriers, 'other carriers') }],
    });
  }
  if (r.states) {
    sections.push({
      id: 'states',
      title: 'States',
      note: `${many(r.states.distinct, 'state')} among ${many(r.states.base, 'number')}.`,
      facts: [],
      charts: [{ id: 'states', title: 'Top states', base: r.states.base, bars: rankedBars(r.states, 'other states') }],
    });
  }
  if (r.time_zones) {
    sections.push({
      id: 'time_zones',
      title: 'Time zones',
      facts: [],
      charts: [{ id: 'time_zones', title: 'Time zones (UTC offset)', base: r.time_zones.base, bars: rankedBars(r.time_zones, 'other zones') }],
    });
  }
  const m = r.messaging;
  if (m) {
    const mCharts: Chart[] = [];
    if (m.providers.base > 0) mCharts.push({ id: 'providers', title: 'Messaging providers', base: m.providers.base, bars: rankedBars(m.providers, 'other providers') });
    const mFacts = [fact('enabled', 'messaging enabled', m.enabled, m.base), fact('disabled', 'not enabled', m.disabled, m.base)];
    if (m.unknown > 0) mFacts.push(fact('unknown', 'not known', m.unknown, m.base));
    sections.push({ id: 'messaging', title: 'Messaging', note: `of ${many(m.base, 'number')} with messaging data.`, facts: mFacts, charts: mCharts });
  }
  const c = r.cnam;
  // A `--fields` output may hold none of a section's figures: then there is no section.
  if (c && (c.found !== undefined || c.spam_types)) {
    const cCharts: Chart[] = [];
    if (c.spam_types) cCharts.push({ id: 'cnam_spam', title: 'CNAM spam classes', base: c.base, bars: bars(c.spam_types, c.base) });
    sections.push({
      id: 'cnam',
      title: 'Caller name (CNAM)',
      note: `of ${many(c.base, 'CNAM answer')}.`,
      facts: c.found === undefined ? [] : [fact('found', 'name found', c.found, c.base), fact('empty', 'no name', c.empty ?? 0, c.base)],
      charts: cCharts,
    });
  }
  const t = r.trust;
  if (t) {
    const tCharts: Chart[] = [];
    if (Object.keys(t.levels).length > 0) tCharts.push({ id: 'trust_levels', title: 'Trust levels', base: t.base, bars: bars(t.levels, t.base) });
    if (t.score) {
      const base = t.score.base;
      tCharts.push({
        id: 'reputation',
        title: `Reputation score (mean ${t.score.mean})`,
        base,
        histogram: true,
        bars: t.score.histogram.map((h) => ({ key: `${h.from}-${h.to}`, label: `${h.from}\u2013${h.to}`, count: h.count, share: ratio(h.count, base) })),
      });
    }
    if (Object.keys(t.spam_types).length > 0) tCharts.push({ id: 'trust_spam_types', title: 'Trust spam types', base: t.base, bars: bars(t.spam_types, t.base) });
    const tFacts = [
      t.spam === undefined ? undefined : fact('spam', 'spam', t.spam, t.base),
      t.robocall === undefined ? undefined : fact('robocall', 'robocall', t.robocall, t.base),
      t.scam === undefined ? undefined : fact('scam', 'scam', t.scam, t.base),
      t.any_flag === undefined ? undefined : fact('any_flag', 'any of the three', t.any_flag, t.base),
    ].filter((f) => f !== undefined);
    if (tFacts.length > 0 || tCharts.length > 0) sections.push({ id: 'trust', title: 'Trust', note: `of ${many(t.base, 'trust answer')}.`, facts: tFacts, charts: tCharts });
  }
  return sections;
}

export function money(n: number): string {
  return n.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 4 });
}

export function subtitle(r: Report): string {
  const what = r.source.lookups.map((k) => LOOKUPS[k].title).join(', ');
  return [r.source.name, `${r.source.format}`, what, many(r.input.rows, 'row'), `as of ${r.as_of}`].filter(Boolean).join(' \u00b7 ');
}
