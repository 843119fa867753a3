// Counts what a report shows, one row at a time, in memory that does not grow with the rows (only
// with the distinct numbers, carriers and codes seen). `finish` turns the counts into the report.
import { LOOKUP_KINDS, type LookupKind } from '../core/lookups.js';
import type { RowFacts } from './facts.js';
import { ActOnList, ACT_ON_LIMIT, REASON_BIT } from './act-on.js';
import { CALLER_NAME_PLACEHOLDERS as PLACEHOLDER_KEYS, callerNameClass, nameKey } from './caller-names.js';
import { dateMs, DAY, invalidReason, isFalse, isLowTrust, isTrue, lineClass, LINE_CLASSES, recencyOf, RECENCY_BUCKETS, sameNumber, spamClassFlag, zoneLabel, type LineClass, type RecencyBucket } from './normalise.js';
import type { ActReason } from './report.js';
import { stateCode } from './tile-map.js';
import { NumberSet } from '../core/number-set.js';
import type { Report, Ranked } from './report.js';
import type { Prices } from '../settings/prices.js';

export interface ReportContext {
  /** "Now" for the porting recency, epoch ms. */
  readonly asOf: number;
  readonly prices?: Prices;
  /** ISO 4217 code the prices are in; USD when not given. */
  readonly currency?: string;
  /** How many numbers to act on are listed (all are counted); ACT_ON_LIMIT when not given. */
  readonly actOnLimit?: number;
  /** What the rows were read from: a file's form, or `records` for a run's own records. */
  readonly source: string;
  readonly name?: string;
}

/** Counts by name; a box per name, so counting a name seen before is one map lookup. */
class Counts {
  private readonly boxes = new Map<string, { n: number }>();
  get size(): number {
    return this.boxes.size;
  }
  bump(key: string): void {
    const box = this.boxes.get(key);
    if (box) box.n++;
    else this.boxes.set(key, { n: 1 });
  }
  entries(): [string, number][] {
    return [...this.boxes].map(([k, b]) => [k, b.n]);
  }
  /** The counts with names merged by `key` (done once at the end rather than once per row). */
  merged(key: (name: string) => string): Counts {
    const out = new Counts();
    for (const [name, b] of this.boxes) {
      const k = key(name);
      const box = out.boxes.get(k);
      if (box) box.n += b.n;
      else out.boxes.set(k, { n: b.n });
    }
    return out;
  }
}

const TOP = 10;
const SCORE_BINS = 10;

interface KindCounts {
  rows: number;
  answered: number;
  cached: number;
  billed: number;
  failedByCode: Counts;
}

export class ReportAccumulator {
  private rows = 0;
  private valid = 0;
  private invalidByReason = new Counts();
  private duplicates = 0;
  private readonly numbers = new NumberSet();
  private sawCacheField = false;
  private readonly kinds = new Map<LookupKind, KindCounts>();

  private lineBase = 0;
  private readonly lineClasses = new Map<LineClass, number>();
  private readonly otherCodes = new Counts();
  private lineNotGiven = 0;

  private portBase = 0;
  private ported = 0;
  private readonly activated = new Map<RecencyBucket, number>();
  private readonly activatedPorted = new Map<RecencyBucket, number>();

  private readonly carriers = new Counts();
  private readonly states = new Counts();
  private readonly zones = new Counts();

  private msgBase = 0;
  private msgEnabled = 0;
  private msgDisabled = 0;
  private readonly providers = new Counts();

  private cnamBase = 0;
  /** Whether any answer had the caller name (a `--fields` output may leave it out). */
  private cnamSeen = false;
  private cnamReal = 0;
  private cnamPlaceholder = 0;
  private readonly placeholders = new Counts();
  private cnamSpamBase = 0;
  private readonly cnamSpam = new Counts();

  private trustBase = 0;
  private trustSpam = 0;
  private trustRobocall = 0;
  private trustScam = 0;
  private trustAny = 0;
  /** Which of is_spam, is_robocall, is_scam any answer had (a `--fields` output may leave some out). */
  private readonly flagsSeen = { spam: false, robocall: false, scam: false };
  private readonly levels = new Counts();
  private readonly trustTypes = new Counts();
  private readonly scores = new Array<number>(SCORE_BINS).fill(0);
  private scoreBase = 0;
  private scoreSum = 0;

  private readonly actOn: ActOnList;
  private levelSeen = false;
  // The row being added: what makes it a number to act on.
  /** REASON_BITs. */
  private rowReasons = 0;
  private rowLevel: string | undefined;
  private rowScore: number | undefined;
  private rowPortedDays: number | undefined;

  constructor(private readonly context: ReportContext) {
    this.actOn = new ActOnList(context.actOnLimit ?? ACT_ON_LIMIT);
  }

  get rowCount(): number {
    return this.rows;
  }

  /** Lookups the output has columns for: counted (with zeros) even when no row holds them. */
  addLookups(kinds: readonly LookupKind[]): void {
    for (const kind of kinds) this.kindCounts(kind);
  }

  private kindCounts(kind: LookupKind): KindCounts {
    let k = this.kinds.get(kind);
    if (!k) this.kinds.set(kind, (k = { rows: 0, answered: 0, cached: 0, billed: 0, failedByCode: new Counts() }));
    return k;
  }

  add(row: RowFacts): void {
    this.rows++;
    let invalid: string | undefined;
    for (const l of row.lookups) if (l.errorCode === 'invalid_number') invalid ??= l.errorMessage;
    if (invalid !== undefined || row.number === null) {
      this.invalidByReason.bump(invalidReason(invalid ?? ''));
    } else {
      this.valid++;
    }
    const duplicate = row.number !== null && !this.numbers.add(row.number);
    if (duplicate) this.duplicates++;
    this.rowReasons = 0;
    this.rowLevel = undefined;
    this.rowScore = undefined;
    this.rowPortedDays = undefined;

    for (const l of row.lookups) {
      const k = this.kindCounts(l.kind);
      k.rows++;
      if (l.cached !== undefined) this.sawCacheField = true;
      if (!l.answer) {
        if (l.errorCode !== 'invalid_number') k.failedByCode.bump(l.errorCode ?? 'error');
        continue;
      }
      k.answered++;
      if (l.cached === true) k.cached++;
      // A repeated number was answered from the run's first answer for it: billed once.
      else if (!duplicate) k.billed++;
      const a = l.answer;
      if (l.kind === 'lrn') this.addLrn(row.number, a);
      else if (l.kind === 'cnam') this.addCnam(a);
      else this.addTrust(a);
    }
    // A repeated number is listed once, at its first row.
    const mask = this.rowReasons;
    if (mask !== 0 && row.number !== null && !duplicate && this.actOn.note({ mask, score: this.rowScore, row: this.rows })) {
      this.actOn.keep({
        row: this.rows,
        number: row.number,
        mask,
        ...(this.rowLevel === undefined ? {} : { level: this.rowLevel }),
        ...(this.rowScore === undefined ? {} : { score: this.rowScore }),
        ...(this.rowPortedDays === undefined ? {} : { portedDaysAgo: this.rowPortedDays }),
        ...(row.inputs === undefined ? {} : { inputs: row.inputs }),
      });
    }
  }

  private addLrn(number: string | null, a: NonNullable<RowFacts['lookups'][number]['answer']>): void {
    if (a.lrn !== undefined && a.lrn !== '' && number !== null) {
      this.portBase++;
      const isPorted = !sameNumber(a.lrn, number);
      const activated = dateMs(a.activatedAt ?? '');
      const bucket = recencyOf(activated, this.context.asOf);
      this.activated.set(bucket, (this.activated.get(bucket) ?? 0) + 1);
      if (isPorted) {
        this.ported++;
        if (bucket === 'le_7d' || bucket === 'le_30d') {
          this.rowReasons |= REASON_BIT.ported_30d;
          this.rowPortedDays = Math.max(0, Math.floor((this.context.asOf - activated) / DAY));
        }
        this.activatedPorted.set(bucket, (this.activatedPorted.get(bucket) ?? 0) + 1);
      }
    }
    if (a.carrierType !== undefined) {
      this.lineBase++;
      if (a.carrierType.trim() === '') this.lineNotGiven++;
      else {
        const cls = lineClass(a.carrierType);
        this.lineClasses.set(cls, (this.lineClasses.get(cls) ?? 0) + 1);
        if (cls === 'other') this.otherCodes.bump(a.carrierType.trim());
      }
    }
    if (a.carrier) this.carriers.bump(a.carrier);
    if (a.state) this.states.bump(a.state);
    if (a.timezone) this.zones.bump(a.timezone);
    if (a.msgEnabled !== undefined || a.msgProvider !== undefined) {
      this.msgBase++;
      if (isTrue(a.msgEnabled)) this.msgEnabled++;
      else if (isFalse(a.msgEnabled)) this.msgDisabled++;
      if (a.msgProvider) this.providers.bump(a.msgProvider);
    }
  }

  private addCnam(a: NonNullable<RowFacts['lookups'][number]['answer']>): void {
    this.cnamBase++;
    if (a.cnam !== undefined) this.cnamSeen = true;
    const cls = callerNameClass(a.cnam);
    if (cls === 'real') this.cnamReal++;
    else if (cls === 'placeholder') {
      this.cnamPlaceholder++;
      this.placeholders.bump(a.cnam as string);
    }
    if (a.spamType !== undefined) {
      this.cnamSpamBase++;
      this.cnamSpam.bump(a.spamType === '' ? 'none given' : a.spamType);
      const flag = spamClassFlag(a.spamType);
      if (flag) this.rowReasons |= REASON_BIT[flag];
    }
  }

  private addTrust(a: NonNullable<RowFacts['lookups'][number]['answer']>): void {
    this.trustBase++;
    if (a.isSpam !== undefined) this.flagsSeen.spam = true;
    if (a.isRobocall !== undefined) this.flagsSeen.robocall = true;
    if (a.isScam !== undefined) this.flagsSeen.scam = true;
    const spam = isTrue(a.isSpam);
    const robo = isTrue(a.isRobocall);
    const scam = isTrue(a.isScam);
    if (spam) this.trustSpam++;
    if (robo) this.trustRobocall++;
    if (scam) this.trustScam++;
    if (spam) this.rowReasons |= REASON_BIT.spam;
    if (robo) this.rowReasons |= REASON_BIT.robocall;
    if (scam) this.rowReasons |= REASON_BIT.scam;
    if (a.level !== undefined) this.levelSeen = true;
    if (a.level) {
      this.rowLevel = a.level;
      if (isLowTrust(a.level)) this.rowReasons |= REASON_BIT.low_trust;
    }
    if (spam || robo || scam) this.trustAny++;
    if (a.level) this.levels.bump(a.level);
    if (a.spamType) this.trustTypes.bump(a.spamType);
    if (a.score !== undefined && a.score !== '') {
      const score = Number(a.score);
      if (Number.isFinite(score)) {
        this.rowScore = score;
        this.scoreBase++;
        this.scoreSum += score;
        const bin = Math.min(SCORE_BINS - 1, Math.max(0, Math.floor(score / (100 / SCORE_BINS))));
        this.scores[bin] = (this.scores[bin] ?? 0) + 1;
      }
    }
  }

  finish(): Report {
    const { context } = this;
    const kinds = LOOKUP_KINDS.filter((k) => this.kinds.has(k));
    const report: Report = {
      as_of: new Date(context.asOf).toISOString().slice(0, 10),
      source: { ...(context.name === undefined ? {} : { name: context.name }), format: context.source, lookups: kinds },
      input: {
        rows: this.rows,
        valid: this.valid,
        invalid: this.rows - this.valid,
        invalid_by_reason: sorted(this.invalidByReason),
        duplicates: this.duplicates,
        distinct_numbers: this.numbers.size,
      },
      lookups: Object.fromEntries(
        kinds.map((kind) => {
          const k = this.kinds.get(kind) as KindCounts;
          const failed = k.failedByCode.entries().reduce((a, [, b]) => a + b, 0);
          const price = context.prices?.[kind];
          return [
            kind,
            {
              rows: k.rows,
              answered: k.answered,
              cached: this.sawCacheField ? k.cached : null,
              billed: k.billed,
              failed,
              failed_by_code: sorted(k.failedByCode),
              ...(price === undefined ? {} : { price, cost: round(k.billed * price, 6) }),
            },
          ];
        }),
      ),
    };
    if (context.prices && kinds.some((k) => context.prices?.[k] !== undefined)) {
      report.cost = {
        currency: context.currency ?? 'USD',
        lines: kinds.map((lookup) => {
          const k = report.lookups[lookup];
          return { lookup, billed: k?.billed ?? 0, price: k?.price ?? null, amount: k?.cost ?? null };
        }),
        total: round(kinds.reduce((sum, k) => sum + (report.lookups[k]?.cost ?? 0), 0), 6),
      };
    }
    if (this.lineBase > 0) {
      const counts = Object.fromEntries(LINE_CLASSES.map((c) => [c, this.lineClasses.get(c) ?? 0])) as Record<LineClass, number>;
      report.line_type = {
        base: this.lineBase,
        ...counts,
        not_given: this.lineNotGiven,
        other_codes: sorted(this.otherCodes),
        wireless_or_voip: counts.mobile + counts.voip,
        wireless_or_voip_share: share(counts.mobile + counts.voip, this.lineBase),
      };
    }
    if (this.portBase > 0) {
      report.porting = {
        base: this.portBase,
        ported: this.ported,
        ported_share: share(this.ported, this.portBase),
        activated: buckets(this.activated),
        activated_ported: buckets(this.activatedPorted),
      };
    }
    if (this.carriers.size > 0) report.carriers = ranked(this.carriers, TOP);
    const states = this.states.merged(stateCode);
    if (states.size > 0) report.states = { ...ranked(states, TOP), all: sorted(states) };
    if (this.zones.size > 0) {
      const zones = ranked(this.zones.merged((z) => z.trim()), Number.POSITIVE_INFINITY);
      report.time_zones = { ...zones, top: zones.top.map((z) => ({ ...z, label: zoneLabel(z.name) })) };
    }
    if (this.msgBase > 0) {
      report.messaging = {
        base: this.msgBase,
        enabled: this.msgEnabled,
        disabled: this.msgDisabled,
        unknown: this.msgBase - this.msgEnabled - this.msgDisabled,
        enabled_share: share(this.msgEnabled, this.msgBase),
        providers: ranked(this.providers, TOP),
      };
    }
    if (this.cnamBase > 0) {
      report.cnam = {
        base: this.cnamBase,
        ...(this.cnamSeen ? this.callerNames() : {}),
        ...(this.cnamSpamBase > 0 ? { spam_types: sorted(this.cnamSpam) } : {}),
      };
    }
    if (this.trustBase > 0) {
      const seen = this.flagsSeen;
      const allFlags = seen.spam && seen.robocall && seen.scam;
      const width = 100 / SCORE_BINS;
      report.trust = {
        base: this.trustBase,
        // Only the flags the output has: a flag it left out is not known to be false.
        ...(seen.spam ? { spam: this.trustSpam } : {}),
        ...(seen.robocall ? { robocall: this.trustRobocall } : {}),
        ...(seen.scam ? { scam: this.trustScam } : {}),
        ...(allFlags ? { any_flag: this.trustAny } : {}),
        ...(seen.spam ? { spam_share: share(this.trustSpam, this.trustBase) } : {}),
        ...(seen.robocall ? { robocall_share: share(this.trustRobocall, this.trustBase) } : {}),
        ...(seen.scam ? { scam_share: share(this.trustScam, this.trustBase) } : {}),
        ...(allFlags ? { any_flag_share: share(this.trustAny, this.trustBase) } : {}),
        levels: sorted(this.levels),
        spam_types: sorted(this.trustTypes),
        ...(this.scoreBase > 0
          ? {
              score: {
                base: this.scoreBase,
                mean: round(this.scoreSum / this.scoreBase, 1),
                histogram: this.scores.map((count, i) => ({ from: i * width, to: i === SCORE_BINS - 1 ? 100 : (i + 1) * width - 1, count })),
              },
            }
          : {}),
      };
    }
    const known = new Set<ActReason>();
    const seen = this.flagsSeen;
    if (seen.scam || this.cnamSpamBase > 0) known.add('scam');
    if (seen.robocall || this.cnamSpamBase > 0) known.add('robocall');
    if (seen.spam || this.cnamSpamBase > 0) known.add('spam');
    if (this.levelSeen) known.add('low_trust');
    if (this.portBase > 0) known.add('ported_30d');
    // Only when the output has a figure that can flag a number.
    if (known.size > 0) report.act_on = this.actOn.finish(known);
    return report;
  }

  private callerNames(): NonNullable<Report['cnam']> {
    const base = this.cnamBase;
    const none = base - this.cnamReal - this.cnamPlaceholder;
    return {
      base,
      real: this.cnamReal,
      placeholder: this.cnamPlaceholder,
      none,
      real_share: share(this.cnamReal, base),
      placeholder_share: share(this.cnamPlaceholder, base),
      none_share: share(none, base),
      // Place labels ("JERSEY CITY NJ") are many: counted as one.
      placeholder_names: sorted(this.placeholders.merged((n) => (PLACEHOLDER_KEYS.has(nameKey(n)) ? nameKey(n) : PLACE_LABEL))),
    };
  }
}

const PLACE_LABEL = '(place label)';

function round(n: number, digits: number): number {
  const f = 10 ** digits;
  return Math.round(n * f) / f;
}

export function share(part: number, whole: number): number {
  return whole === 0 ? 0 : round(part / whole, 4);
}

/** Counts as an object, largest first (then by name), for JSON. */
function sorted(m: Counts): Record<string, number> {
  return Object.fromEntries(order(m));
}

function order(m: Counts): [string, number][] {
  return m.entries().sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
}

function ranked(m: Counts, top: number): Ranked {
  const all = order(m);
  const shown = all.slice(0, top);
  const total = all.reduce((s, [, n]) => s + n, 0);
  const rest = all.slice(top).reduce((s, [, n]) => s + n, 0);
  return { base: total, distinct: all.length, top: shown.map(([name, count]) => ({ name, count })), rest };
}

function buckets(m: Map<RecencyBucket, number>): Record<RecencyBucket, number> {
  return Object.fromEntries(RECENCY_BUCKETS.map((b) => [b, m.get(b) ?? 0])) as Record<RecencyBucket, number>;
}
