// What each chart of the HTML page must show, worked out from the JSON report alone (not from the
// code that lays the page out), so a page can be checked against `report -f json`.
import type { Report } from '../../src/report/report.js';

type Counts = Record<string, number>;

function ranked(r: { top: { name: string; count: number }[]; rest: number }): Counts {
  const out: Counts = Object.fromEntries(r.top.map((t) => [t.name, t.count]));
  if (r.rest > 0) out['(rest)'] = r.rest;
  return out;
}

export function chartsFromJson(r: Report): Record<string, Counts> {
  const charts: Record<string, Counts> = {};
  if (r.input.invalid > 0) charts.invalid = r.input.invalid_by_reason;
  const failed: Counts = {};
  for (const [kind, k] of Object.entries(r.lookups)) for (const [code, n] of Object.entries(k.failed_by_code)) failed[`${kind}:${code}`] = n;
  if (Object.keys(failed).length > 0) charts.failed = failed;
  if (r.line_type) {
    const { mobile, landline, voip, toll_free, other, not_given } = r.line_type;
    charts.line_type = { mobile, landline, voip, toll_free, other, ...(not_given > 0 ? { not_given } : {}) };
    if (other > 0) charts.line_type_other = r.line_type.other_codes;
  }
  if (r.porting) {
    charts.activated = r.porting.activated;
    if (r.porting.ported > 0) charts.activated_ported = r.porting.activated_ported;
  }
  if (r.carriers) charts.carriers = ranked(r.carriers);
  if (r.states) charts.states = r.states.all;
  if (r.time_zones) charts.time_zones = ranked(r.time_zones);
  if (r.messaging && r.messaging.providers.base > 0) charts.providers = ranked(r.messaging.providers);
  if (r.cnam?.placeholder_names && (r.cnam.placeholder ?? 0) > 0) charts.cnam_placeholders = r.cnam.placeholder_names;
  if (r.cnam?.spam_types) charts.cnam_spam = r.cnam.spam_types;
  if (r.trust) {
    if (Object.keys(r.trust.levels).length > 0) charts.trust_levels = r.trust.levels;
    if (r.trust.score) charts.reputation = Object.fromEntries(r.trust.score.histogram.map((h) => [`${h.from}-${h.to}`, h.count]));
    if (Object.keys(r.trust.spam_types).length > 0) charts.trust_spam_types = r.trust.spam_types;
  }
  return charts;
}

/** The charts of a page, from its tables' data attributes (HTML entities decoded). */
export function chartsFromHtml(html: string): Record<string, Counts> {
  const decode = (s: string) => s.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&amp;/g, '&');
  const charts: Record<string, Counts> = {};
  for (const table of html.matchAll(/<table class="chart" data-chart="([^"]+)"[\s\S]*?<\/table>/g)) {
    charts[table[1] as string] = Object.fromEntries([...table[0].matchAll(/data-key="([^"]*)" data-count="(\d+)"/g)].map((m) => [decode(m[1] as string), Number(m[2])]));
  }
  return charts;
}
