// `--dry-run`: reads and checks the whole input as a run would, sends nothing, and says what the
// run would do: rows, valid and invalid numbers (by reason), duplicates, answers the cache already
// holds fresh, billable lookups per kind, the time at the known limits, and the cost when prices
// are known. Memory stays flat however long the input: rows stream through, and the distinct
// numbers seen are kept in a NumberSet (a typed array, at most 16 bytes a number).
import { INVALID_REASON_LABELS, invalidReasonOf, parseNumber, type InvalidReason as ParsedReason } from '../core/numbers.js';
import type { LookupKind } from '../core/lookups.js';
import { NumberSet } from '../core/number-set.js';
import { ignoredColumnWarning, openSource } from '../pipeline/source/source.js';
import { readUnlessInterrupted } from '../core/interruptible.js';
import { pricesFrom, type Prices } from '../settings/prices.js';
import { resolveSettings, type Settings } from '../settings/resolve.js';
import { apiKeyFileReader } from '../settings/secret-input.js';
import type { AnswerSlot, AnswerStore } from '../store/answer-store.js';
import { count, figuresFormat, renderFigures, type Figures } from './figures.js';
import type { RunRequest } from './run-request.js';
import { formatElapsed } from '../output/summary.js';
import { checkOutputTarget, checkXlsxRows, outputFormatOfName } from './output-target.js';
import { fieldsFlag } from './fields-flag.js';
import { openRunStore } from './run-store.js';
import type { World } from './world.js';

/** Why a number was refused (parseNumber's reason; `other` for a message it does not write). */
export type InvalidReason = ParsedReason | 'other';

export interface KindPlan {
  /** Rows with a valid number: lookups the run is asked for. */
  readonly needed: number;
  /** Of those, repeats of a number seen earlier in the input: looked up once. */
  readonly duplicates: number;
  /** Distinct numbers the cache holds a fresh answer for: no request. */
  readonly cache_hits: number;
  /** Distinct numbers to send: what is billed. */
  readonly billable: number;
  /** Requests that carry them: one each, or a batch each with --transport bulk. */
  readonly requests: number;
  /** Numbers one request carries (batch-size with --transport bulk, else 1). */
  readonly per_request: number;
  /** Requests per second the run keeps to; null = no client-side limit. */
  readonly rate_per_second: number | null;
  /** At least this long at that rate; null without a limit. */
  readonly seconds: number | null;
  readonly price: number | null;
  readonly cost: number | null;
}

export interface DryRunReport {
  readonly dry_run: true;
  readonly rows: number;
  readonly valid: number;
  readonly invalid: number;
  readonly invalid_by_reason: Partial<Record<InvalidReason, number>>;
  readonly duplicates: number;
  /** on: fresh answers counted; refresh / off: not read; unavailable: no base URL, or the cache cannot be used. */
  readonly cache: 'on' | 'refresh' | 'off' | 'unavailable';
  readonly lookups: Partial<Record<LookupKind, KindPlan>>;
  readonly billable: number;
  /** The longest kind's time: kinds run side by side, each under its own limit. */
  readonly seconds: number | null;
  /** null when no lookup's price is known; the sum of the known ones otherwise (see unpriced). */
  readonly cost: number | null;
  /** Lookups of the run without a known price, left out of cost. */
  readonly unpriced: LookupKind[];
}

export async function runDryRun(req: RunRequest, world: World): Promise<number> {
  const settings = await resolveSettings({
    flags: { 'base-url': req.baseUrl, transport: req.transport, 'batch-size': req.batchSize, rate: req.rate, 'max-age': req.maxAge },
    env: world.env,
    home: world.home,
    profile: req.profile,
    readApiKeyFile: apiKeyFileReader(() => world.stdin, world.cwd),
    // Nothing is sent: no key is needed, and none is read.
    skipApiKey: true,
  });
  const prices = pricesFrom(settings, req.price);
  // --fields as the run takes it: a dry run that passes means the run starts.
  fieldsFlag(req, world);
  // So are an -o or --report file the run could not write, or that is the input itself.
  await checkOutputTarget(req, world);
  const source = await openSource(
    { args: [...req.numbers], input: req.input, csv: req.csv, column: req.column, delimiter: req.delimiter, header: req.header, ...(req.sheet !== undefined ? { sheet: req.sheet } : {}) },
    {
      get stdin() {
        return world.stdin;
      },
      cwd: world.cwd,
      // Ctrl-C while the input is silent (an idle pipe, a FIFO without a writer) ends the wait, as in a run.
      signal: world.interrupt,
    },
  );
  const ignored = ignoredColumnWarning(req.column, source);
  if (ignored) world.stderr.write(`numintel: warning: ${ignored}\n`);
  // As the run would open it, but read only: a dry run creates and changes nothing. (A refreshing
  // store answers nothing, so --refresh has no hits.)
  const { store, cache } = await openRunStore(req, settings, world, { readOnly: true });
  let report: DryRunReport;
  try {
    report = await readUnlessInterrupted(() => plan(req, settings, prices, source.items, store, cache), world.interrupt, () => void source.close(), 'reading the input');
  } finally {
    await source.close();
    await store.close();
  }

  // A run writing xlsx refuses an input past a sheet's rows: so does its dry run.
  if (req.format === 'xlsx' || (req.format === undefined && outputFormatOfName(req.output) === 'xlsx')) checkXlsxRows(report.rows);
  const asked = req.format === 'jsonl' ? 'json' : req.format === 'csv' ? 'text' : req.format;
  const format = figuresFormat(asked, world.stdout);
  // -f jsonl: the same object on one line, as JSON lines are.
  const json = (o: unknown) => (req.format === 'jsonl' ? JSON.stringify(o) : JSON.stringify(o, null, 2));
  world.stdout.write(format === 'json' ? `${json(report)}\n` : renderFigures(figures(report), format));
  // The files a run would write are left alone (as documented); say so, or -o looks ignored.
  const unwritten = [req.output === '-' ? undefined : req.output, req.report].filter((f) => f !== undefined);
  if (unwritten.length > 0 && !req.quiet) world.stderr.write(`numintel: dry run: nothing written to ${unwritten.join(' or ')}\n`);
  return 0;
}

async function plan(
  req: RunRequest,
  settings: Settings,
  prices: Prices,
  items: AsyncIterable<{ input: string }>,
  store: AnswerStore,
  cache: DryRunReport['cache'],
): Promise<DryRunReport> {
  const kinds = req.lookups.map((d) => d.kind);
  const slots: AnswerSlot[] = kinds.map((k) => store.slot(k, req.options));
  const hits = kinds.map(() => 0);
  const seen = new NumberSet();
  const reasons: Partial<Record<InvalidReason, number>> = {};
  let rows = 0;
  let invalid = 0;
  let duplicates = 0;
  let distinct = 0;
  const validate = req.validate;
  for await (const item of items) {
    rows += 1;
    const parsed = parseNumber(item.input, { validate });
    if (!parsed.ok) {
      invalid += 1;
      const why = invalidReasonOf(parsed.message) ?? 'other';
      reasons[why] = (reasons[why] ?? 0) + 1;
      continue;
    }
    const number = parsed.number;
    if (!seen.add(number)) {
      duplicates += 1;
      continue;
    }
    distinct += 1;
    for (let i = 0; i < slots.length; i++) if ((slots[i] as AnswerSlot).has(number)) hits[i] = (hits[i] as number) + 1;
  }

  const valid = rows - invalid;
  const lookups: Partial<Record<LookupKind, KindPlan>> = {};
  let billable = 0;
  let seconds: number | null = 0;
  let cost: number | null = null;
  const unpriced: LookupKind[] = [];
  req.lookups.forEach((d, i) => {
    const bill = distinct - (hits[i] as number);
    // A bulk endpoint's limit counts requests, each of up to batch-size numbers; --rate is not its ceiling.
    const batch = settings.transport === 'bulk' && d.bulk ? Math.min(settings.batchSize, d.bulk.maxNumbers) : 1;
    const requests = Math.ceil(bill / batch);
    const rate = batch > 1 && d.bulk ? d.bulk.defaultRate : (settings.rate ?? d.defaultRate);
    const time = rate > 0 ? requests / rate : null;
    const price = prices[d.kind] ?? null;
    const kindCost = price === null ? null : bill * price;
    lookups[d.kind] = {
      needed: valid,
      duplicates,
      cache_hits: hits[i] as number,
      billable: bill,
      requests,
      per_request: batch,
      rate_per_second: rate > 0 ? rate : null,
      seconds: time,
      price,
      cost: kindCost,
    };
    billable += bill;
    seconds = time === null || seconds === null ? null : Math.max(seconds, time);
    if (kindCost !== null) cost = (cost ?? 0) + kindCost;
    else unpriced.push(d.kind);
  });
  return { dry_run: true, rows, valid, invalid, invalid_by_reason: reasons, duplicates, cache, lookups, billable, seconds, cost, unpriced };
}

/** A duration in seconds as the run's summary writes one (`0.1s`, `3m 05s`, `1h 02m 03s`). */
function duration(seconds: number | null): string {
  return seconds === null ? 'no client limit' : formatElapsed(seconds * 1000);
}

/** Up to 6 decimals, no trailing zeros: prices are fractions of a cent. */
function money(n: number | null): string {
  return n === null ? 'unknown' : String(Number(n.toFixed(6)));
}

function figures(r: DryRunReport): Figures {
  const reasons = Object.entries(r.invalid_by_reason)
    .sort((a, b) => b[1] - a[1])
    .map(([why, n]) => `${INVALID_REASON_LABELS[why as InvalidReason]} ${count(n)}`)
    .join(', ');
  const cacheNote: Record<DryRunReport['cache'], string> = {
    on: 'fresh answers counted as hits',
    refresh: '--refresh: nothing read',
    off: 'off (--no-cache or --sandbox)',
    unavailable: 'not consulted (no base URL, or it cannot be used)',
  };
  const kinds = Object.entries(r.lookups) as [LookupKind, KindPlan][];
  return {
    title: 'Dry run: nothing was sent',
    lines: [
      ['rows', count(r.rows)],
      ['valid', count(r.valid)],
      ['invalid', r.invalid > 0 ? `${count(r.invalid)} (${reasons})` : '0'],
      ['duplicates', count(r.duplicates)],
      ['cache', cacheNote[r.cache]],
      ['billable', count(r.billable)],
      ['time at limits', r.seconds === null ? 'no client limit' : `at least ${duration(r.seconds)}`],
      ['cost', r.cost === null ? 'unknown (give --price lrn=0.0005,cnam=0.006 or set price.<lookup>)' : `${money(r.cost)}${r.unpriced.length ? ` + ${r.unpriced.join(', ')} (no price)` : ''}`],
    ],
    table: {
      head: ['lookup', 'needed', 'duplicates', 'cache hits', 'billable', 'requests', 'rate/s', 'time', 'price', 'cost'],
      rows: kinds.map(([kind, k]) => [
        kind,
        count(k.needed),
        count(k.duplicates),
        count(k.cache_hits),
        count(k.billable),
        k.per_request > 1 ? `${count(k.requests)} (bulk)` : count(k.requests),
        k.rate_per_second === null ? '-' : String(k.rate_per_second),
        duration(k.seconds),
        money(k.price),
        money(k.cost),
      ]),
    },
  };
}
