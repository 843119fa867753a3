// The report laid out for people: sections of figures and bar charts, worded once here for both
// the terminal and the HTML page. Chart bars carry the key of the figure they draw, so a reader of
// the page (or a test) can find each number again in the JSON report.
import { LOOKUPS, type LookupKind } from '../core/lookups.js';
import { INVALID_REASON_LABELS } from '../core/numbers.js';
import { ACT_REASONS } from './act-on.js';
import { RECENCY_BUCKETS, RECENCY_LABELS, type LineClass } from './normalise.js';
import type { ActReason, Ranked, Report } from './report.js';

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

export interface Column {
  readonly label: string;
  /** Right-aligned (figures). */
  readonly numeric?: boolean;
  /** Cut last when the table is too wide (the number, the reasons). */
  readonly keep?: boolean;
}

/** A table of words and figures (the cost, the numbers to act on). */
export interface Table {
  readonly id: string;
  readonly columns: readonly Column[];
  readonly rows: readonly { readonly key: string; readonly cells: readonly string[] }[];
  /** A total line. */
  readonly foot?: readonly string[];
  /** A line under the table ("and 12 more"). */
  readonly after?: string;
  /** The figure the table comes to, for a reader of the page (or a test) to find again in the JSON. */
  readonly value?: string;
}

export interface Section {
  readonly id: string;
  readonly title: string;
  readonly note?: string;
  readonly facts: readonly Fact[];
  readonly charts: readonly Chart[];
  readonly tables?: readonly Table[];
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
    for (const [code, n] of Object.entries(k.failed_by_code)) failed[`${kind}:${code}`] = n;
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
  sections.push({ id: 'input', title: 'Input', facts, charts });
  if (r.cost) sections.push(costSection(r.cost));
  if (r.act_on) sections.push(actOnSection(r.act_on, r.as_of));

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
  if (c && (c.real !== undefined || c.spam_types)) {
    const cCharts: Chart[] = [];
    if (c.placeholder_names && c.placeholder !== undefined && c.placeholder > 0) {
      cCharts.push({ id: 'cnam_placeholders', title: 'Placeholders instead of a name', base: c.base, bars: bars(c.placeholder_names, c.base) });
    }
    if (c.spam_types) cCharts.push({ id: 'cnam_spam', title: 'CNAM spam classes', base: c.base, bars: bars(c.spam_types, c.base) });
    sections.push({
      id: 'cnam',
      title: 'Caller name (CNAM)',
      note: `of ${many(c.base, 'CNAM answer')}. A placeholder (UNAVAILABLE, WIRELESS CALLER, a city and state…) says no name is known.`,
      facts:
        c.real === undefined
          ? []
          : [fact('real_name', 'real name', c.real, c.base), fact('placeholder', 'placeholder', c.placeholder ?? 0, c.base), fact('no_name', 'no name', c.none ?? 0, c.base)],
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

/**
 * Money in `currency`, every price and amount with the same decimals: the currency's own two more
 * (4 for USD, 2 for JPY), or as many as the finest price needs (up to 6). A price has them all, so
 * each amount is exact and the amounts shown add up to the total shown.
 */
export function moneyFormat(currency: string, prices: readonly number[]): (n: number) => string {
  const own = new Intl.NumberFormat('en-US', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 2;
  let digits = own + 2;
  while (digits < 6 && prices.some((p) => Math.abs(Math.round(p * 10 ** digits) - p * 10 ** digits) > 1e-6)) digits++;
  const format = new Intl.NumberFormat('en-US', { style: 'currency', currency, minimumFractionDigits: digits, maximumFractionDigits: digits });
  return (n) => format.format(n);
}

function costSection(cost: NonNullable<Report['cost']>): Section {
  const prices = cost.lines.map((l) => l.price).filter((p) => p !== null);
  const money = moneyFormat(cost.currency, prices);
  const unpriced = cost.lines.filter((l) => l.price === null).map((l) => title(l.lookup));
  return {
    id: 'cost',
    title: 'Cost',
    // Read alone, the total would pass for the whole cost.
    note: `billed lookups (not from the cache, not a repeated number) at their prices, in ${cost.currency}${unpriced.length > 0 ? `; ${unpriced.join(', ')} not in the total (no price)` : ''}.`,
    facts: [],
    charts: [],
    tables: [
      {
        id: 'cost',
        columns: [{ label: 'lookup' }, { label: 'billed', numeric: true }, { label: 'unit price', numeric: true }, { label: 'amount', numeric: true }],
        rows: cost.lines.map((l) => ({
          key: l.lookup,
          cells: [title(l.lookup), int(l.billed), l.price === null ? 'no price' : money(l.price), l.amount === null ? '\u2013' : money(l.amount)],
        })),
        value: String(cost.total),
        foot: ['total', int(cost.lines.reduce((n, l) => n + (l.price === null ? 0 : l.billed), 0)), '', money(cost.total)],
      },
    ],
  };
}

const REASON_LABELS: Record<ActReason, string> = { scam: 'scam', robocall: 'robocall', spam: 'spam', low_trust: 'low trust', ported_30d: 'ported' };

/** What the list is of, in words: only the reasons the output can tell. */
function why(known: Partial<Record<ActReason, number>>, asOf: string, or: string): string {
  const flags = (['scam', 'robocall', 'spam'] as const).filter((r) => known[r] !== undefined);
  const parts = [
    flags.length > 0 ? `flagged ${flags.length > 1 ? `${flags.slice(0, -1).join(', ')} ${or} ${flags[flags.length - 1]}` : flags[0]}` : undefined,
    known.low_trust === undefined ? undefined : 'with low trust',
    known.ported_30d === undefined ? undefined : `ported in the 30 days before ${asOf}`,
  ].filter((p) => p !== undefined);
  return parts.length > 1 ? `${parts.slice(0, -1).join(', ')}, ${or} ${parts[parts.length - 1]}` : (parts[0] ?? '');
}

function actOnSection(a: NonNullable<Report['act_on']>, asOf: string): Section {
  const reasons = (row: (typeof a.rows)[number]) =>
    row.reasons.map((r) => (r === 'ported_30d' && row.ported_days_ago !== undefined ? `ported ${many(row.ported_days_ago, 'day')} ago` : REASON_LABELS[r])).join(', ');
  const trust = (row: (typeof a.rows)[number]) => [row.trust_level, row.score === undefined ? undefined : String(row.score)].filter((v) => v !== undefined).join(' ');
  return {
    id: 'act_on',
    title: 'Numbers to act on',
    note:
      a.total === 0
        ? `no number is ${why(a.by_reason, asOf, 'or')}.`
        : `${many(a.total, 'number')} ${why(a.by_reason, asOf, 'or')}; ${a.rows.length === a.total ? 'all' : `the ${int(a.rows.length)} most severe`} below, the most severe first.`,
    facts: ACT_REASONS.filter((r) => a.by_reason[r] !== undefined).map((r) => fact(`act_on.${r}`, r === 'ported_30d' ? 'ported \u2264 30 days' : REASON_LABELS[r], a.by_reason[r] ?? 0)),
    charts: [],
    tables:
      a.rows.length === 0
        ? []
        : [
            {
              id: 'act_on',
              columns: [{ label: 'row', numeric: true }, { label: 'number', keep: true }, ...a.columns.map((label) => ({ label })), { label: 'why', keep: true }, { label: 'trust', keep: true }],
              rows: a.rows.map((row) => ({ key: row.number, cells: [int(row.row), row.number, ...row.inputs, reasons(row), trust(row)] })),
              ...(a.more > 0 ? { after: `and ${int(a.more)} more (-f json counts them; --act-on-limit lists more)` } : {}),
            },
          ],
  };
}

export function subtitle(r: Report): string {
  const what = r.source.lookups.map((k) => LOOKUPS[k].title).join(', ');
  return [r.source.name, `${r.source.format}`, what, many(r.input.rows, 'row'), `as of ${r.as_of}`].filter(Boolean).join(' \u00b7 ');
}
