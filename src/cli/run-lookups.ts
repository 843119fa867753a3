// The run function of every lookup command and of enrich: settings → connection → source →
// pipeline → sink, the same for one number and for a million.
import { runAbortController } from '../core/abort.js';
import { newRunStats, type RunStats } from '../core/run.js';
import type { OutputRecord } from '../core/records.js';
import { ignoredColumnWarning, openSource, type Source } from '../pipeline/source/source.js';
import { runPipeline, type RunDeps, type RunOutcome } from '../pipeline/runner.js';
import { newRunDedup } from '../pipeline/dedup/run-dedup.js';
import { isSetupStop, stopFailure } from '../pipeline/stop-failure.js';
import { createSink } from '../output/sink.js';
import { isOutputClosed, whenGone } from '../output/stream-write.js';
import { createProgress } from '../output/progress.js';
import { formatSummary } from '../output/summary.js';
import { resolveSettings, type Settings } from '../settings/resolve.js';
import { apiKeyFileReader } from '../settings/secret-input.js';
import { checkServiceAccess, connect } from './connection.js';
import { checkRunOutputs, openOutput, type OutputTarget } from './output-target.js';
import { openRunStore } from './run-store.js';
import { projector, type FieldSelection } from '../output/fields.js';
import { fieldsFlag } from './fields-flag.js';
import { SpendCap } from '../pipeline/dispatch/spend-cap.js';
import { pricesFrom, type Prices } from '../settings/prices.js';
import { UsageError } from '../core/errors.js';
import { EXIT } from './exit.js';
import type { RunRequest } from './run-request.js';
import { wideRowWarning } from './wide-row-warning.js';
import type { World } from './world.js';

/** A retry wait at least this long shows on the progress bar and in --verbose. */
const LONG_WAIT_MS = 3000;

/** What runLookups settles before the input is read, for the rest of the run. */
interface RunSetup {
  readonly settings: Settings;
  readonly trace: ((line: string) => void) | undefined;
  readonly wideRow: ReturnType<typeof wideRowWarning>;
  readonly fields: FieldSelection | undefined;
}

export async function runLookups(req: RunRequest, world: World): Promise<number> {
  const settings = await runSettings(req, world);
  // Each trace line carries its time (UTC, ms): enough to see waits, retries and 429 pauses.
  const trace = req.verbose
    ? (line: string) => void world.stderr.write(`${new Date(world.clock.now()).toISOString().slice(11, 23)} ${line}\n`)
    : undefined;

  const wideRow = wideRowWarning(world);
  const fields = fieldsFlag(req, world);
  // An -o file that is the input, or cannot be written, is refused first, whatever the input holds.
  await checkRunOutputs(req, world);
  // Reading the input next: an unknown column or a missing file exits 2 before anything is sent.
  const source = await openSource(
    {
      args: [...req.numbers],
      input: req.input,
      csv: req.csv,
      column: req.column,
      delimiter: req.delimiter,
      header: req.header,
      ...(req.sheet !== undefined ? { sheet: req.sheet } : {}),
    },
    {
      get stdin() {
        return world.stdin;
      },
      cwd: world.cwd,
      // Ctrl-C while the input is silent (an idle pipe, a FIFO without a writer) ends the wait.
      signal: world.interrupt,
      onWideRow: (row, cells, columns) => wideRow.seen({ row, cells, columns }),
    },
  );
  // Closed however the run ends, a refusal before it starts included (an -o workbook too small for
  // the input, --resume of xlsx output, no key): an xlsx sheet's temporary copy goes with it.
  try {
    return await runFromSource(source, req, world, { settings, trace, wideRow, fields });
  } finally {
    await source.close();
  }
}

/** The run once its input is open: output, connection and cache, the pipeline, the summary. */
async function runFromSource(source: Source, req: RunRequest, world: World, { settings, trace, wideRow, fields }: RunSetup): Promise<number> {
  const ignored = ignoredColumnWarning(req.column, source);
  if (ignored) world.stderr.write(`numintel: warning: ${ignored}\n`);
  // Setup errors known before anything is sent (no key, no base URL, an unreadable CA file, a
  // price missing for --max-spend) come before -o is opened: an earlier output stays as it was.
  const prices = pricesFrom(settings, req.price);
  const cap = spendCap(req, prices);
  const access = req.sandbox ? undefined : await checkServiceAccess(settings, world);
  const target = await openOutput(req, settings, world, { mode: req.mode, lookups: req.lookups, options: req.options, inputColumns: source.columns, ...(source.numberColumn ? { numberColumn: source.numberColumn.index } : {}), cacheColumns: req.cacheColumns, ...(fields ? { fields } : {}) }, source);
  const { layout } = target;
  wideRow.format(target.format, source.label, source.hasHeader);

  const connection = await connect(req, settings, world, trace, access);
  // The persistent cache (none for --no-cache or --sandbox); a damaged one is a warning, never a failure.
  const { store } = await openRunStore(req, settings, world);
  const stats = newRunStats(world.clock.now());
  // Records that stream to the terminal are progress enough; a bar on the same screen would tear them.
  // A dumb terminal (TERM=dumb: an editor's shell buffer) cannot redraw a line: no bar, as cargo does.
  // Only a bar needs the total, and counting reads a file a second time: it starts with the bar.
  const progress = createProgress(
    () => {
      const shown = req.progress && world.stderr.isTTY === true && world.env.TERM !== 'dumb' && !(target.stream === world.stdout && world.stdout.isTTY === true);
      if (!shown) return undefined;
      void source.countTotal().then((total) => {
        if (total !== undefined) stats.total = Math.max(0, total - target.skipRows);
      });
      return world.stderr;
    },
    stats,
    world.clock,
  );
  const sink = await createSink(target.format, target.stream, layout, target.style);
  const selected = fields ? projector(fields, req.lookups, req.options) : undefined;
  const report = req.report === undefined ? undefined : (await import('./report-hook.js')).reportHook(req.report, req.input, world, req.lookups.map((d) => d.kind), prices);

  let stopped: RunOutcome['stopped'] = null;
  // The reader went away (`numintel … | head -1`): it has what it wanted. Heard from the stream
  // itself, at once, not at the next record's write: no request leaves after it, the ones in
  // flight finish into the cache (they are paid for), and nothing more is written.
  const closed = runAbortController();
  const unwatch = whenGone(target.stream, (err) => {
    if (err === undefined || isOutputClosed(err)) closed.abort();
  });
  // Standard output may be a pipe whose reader stopped reading (`| less` on its first page): a
  // write waiting for its drain would wait for ever. After the second Ctrl-C it is not waited for.
  const stalled = target.stream === world.stdout ? quitting(world.quitNow) : undefined;
  /** `written`, or, while the stream is full, the second Ctrl-C if that comes first. */
  const unlessQuit = (written: Promise<void>): Promise<void> =>
    // Raced only while the writer waits for a drain: a row the stream takes costs nothing more.
    stalled && target.stream.writableNeedDrain ? Promise.race([written, stalled]) : written;
  let abandoned = false;
  try {
    const run = runPipeline(target.items, { mode: req.mode, lookups: [...req.lookups], options: req.options, validate: req.validate }, {
      transport: connection.transport,
      answers: store,
      // Every answer of the run, in a temp file: a duplicate anywhere in a million rows pays nothing.
      dedup: newRunDedup,
      // --resume of a JSON lines file: a number that recurs after the resume point is a duplicate.
      ...(target.answered ? { earlier: target.answered } : {}),
      cap,
      clock: world.clock,
      stats,
      concurrency: settings.concurrency,
      // --rate applies to every kind; without it the runner uses each lookup's documented limit.
      rates: settings.rate === undefined ? undefined : Object.fromEntries(req.lookups.map((d) => [d.kind, settings.rate])),
      retries: settings.retries,
      breakerThreshold: req.maxFailures,
      maxWaitMs: settings.maxWait * 1000,
      signal: world.interrupt,
      quit: world.quitNow,
      closed: closed.signal,
      ...runMessages(world, stats, progress, trace),
    });
    progress.start();
    // The rows finished in one turn come together: a promise and an await only for a batch, and
    // for a write that must wait for the stream.
    rows: for await (const batch of run.batches) {
      for (let i = 0; i < batch.length; i++) {
        const record = batch[i] as OutputRecord;
        // Rows of the requests that were in flight when the reader left: their answers are cached.
        if (closed.signal.aborted) continue;
        // A write waiting for a drain hears of the close first: the same end, not an abandoned run.
        // (Awaited in a try, not through .then: two handlers and a promise less a row.)
        try {
          target.keep();
          const full = sink.write(record);
          if (full) await unlessQuit(full);
        } catch (err) {
          if (err === QUIT) {
            abandoned = true;
            // The rest of the batch was counted as written when the run handed it over.
            stats.written -= batch.length - i - 1;
            break rows;
          }
          if (!isOutputClosed(err)) throw err;
          closed.abort();
          continue;
        }
        // --report counts the records as written: with --fields, only the fields the output holds, whatever its format.
        report?.observe(selected ? selected(record) : record);
        progress.update();
      }
    }
    // Before the sink's last words: a table is drawn at the end, and the bar must be gone by then.
    progress.stop();
    stopped = closed.signal.aborted ? { reason: 'closed' } : run.outcome().stopped;
    if (!closed.signal.aborted && !abandoned) {
      // A run refused before its first record (a wrong key, an empty wallet, TLS) leaves an earlier -o file as it was.
      if (stopped?.reason !== 'refused') target.keep();
      await unlessQuit(sink.end());
    }
  } catch (err) {
    // Quit while the format's last words waited for a reader: interrupted all the same.
    if (err === QUIT) stopped = { reason: 'interrupted' };
    // The format's last words could not be written: the run is over all the same.
    else if (!isOutputClosed(err)) throw err;
    else stopped = { reason: 'closed' };
  } finally {
    unwatch();
    progress.stop();
    // The file's close reports a write error (a full disk); the connection closes all the same.
    await target.close().finally(() => Promise.all([connection.close(), store.close()]));
  }
  await report?.write();

  return conclude(req, world, { stats, stopped, target, source, cap });
}

/** The settings of a lookup run: its flags over the environment, the config file and the defaults. */
function runSettings(req: RunRequest, world: World): Promise<Settings> {
  return resolveSettings({
    flags: {
      'base-url': req.baseUrl,
      transport: req.transport,
      'batch-size': req.batchSize,
      format: req.format,
      concurrency: req.concurrency,
      rate: req.rate,
      retries: req.retries,
      timeout: req.timeout,
      'max-wait': req.maxWait,
      'ca-file': req.caFile,
      'max-age': req.maxAge,
    },
    env: world.env,
    home: world.home,
    profile: req.profile,
    apiKeyFile: req.apiKeyFile,
    // Opening stdin or stderr costs a run that never uses it a millisecond or two: only on demand.
    // At a terminal, `--api-key-file -` asks without echo, as `config set api-key` does.
    readApiKeyFile: apiKeyFileReader(() => world.stdin, world.cwd, {
      get output() {
        return world.stderr;
      },
      signal: world.interrupt,
    }),
    skipApiKey: req.sandbox,
    warn: (line) => void world.stderr.write(`numintel: warning: ${line}\n`),
  });
}

/** What the user hears while a run goes: long waits (bar and trace), a bulk endpoint missing, a stop heard. */
function runMessages(world: World, stats: RunStats, progress: { update(): void; stop(): void }, trace: ((line: string) => void) | undefined): Pick<RunDeps, 'onRetry' | 'onEvent'> {
  return {
    onRetry: (info) => {
      // A wait of a few seconds is a stall to the user unless something says why.
      if (info.waitMs < LONG_WAIT_MS) return;
      const reason = info.error.code === 'rate_limited' ? 'the rate limit' : `a retry (${info.error.code.replace('_', ' ')})`;
      stats.waiting = { until: world.clock.now() + info.waitMs, reason };
      progress.update();
      trace?.(`waiting ${Math.ceil(info.waitMs / 1000)} s for ${reason}: retry ${info.retry} of ${info.lookup} ${info.number}`);
    },
    onEvent: (event) => {
      if (event.type === 'unbatched') {
        world.stderr.write(`numintel: warning: ${event.message}; ${event.lookup} numbers go one a request for the rest of the run\n`);
        return;
      }
      if (event.reason !== 'interrupted') return;
      // Said at once, not when the requests in flight are back: the user must know the key was heard.
      progress.stop();
      world.stderr.write(`numintel: ${stoppingLine(event.inFlight, world.quitNow !== undefined, signalName(world.interrupt))}\n`);
    },
  };
}

interface RunEnd {
  readonly stats: RunStats;
  readonly stopped: RunOutcome['stopped'];
  readonly target: OutputTarget;
  readonly source: { readonly label: string };
  readonly cap: SpendCap | undefined;
}

/** What a finished run says on stderr, and its exit code; a stop is thrown as its failure. */
function conclude(req: RunRequest, world: World, { stats, stopped, target, source, cap }: RunEnd): number {
  // The summary and the advice to resume are for bulk runs; one number needs neither.
  const bulk = stats.rows > 1;
  // A setup failure (TLS, proxy) is one line: no counts of a run that could not begin.
  if (!req.quiet && bulk && stopped?.reason !== 'closed' && !isSetupStop(stopped)) world.stderr.write(`${formatSummary(stats, world.clock.now())}\n`);
  // An input without a row (an empty file, a header alone), or a resumed file already complete,
  // would otherwise end in silence, as if something had been done.
  if (stats.rows === 0 && stopped === null) {
    if (target.skipRows === 0) world.stderr.write(`numintel: warning: no numbers in ${source.label}: nothing was looked up\n`);
    else if (!req.quiet) world.stderr.write(`numintel: ${req.output ?? ''} already holds all ${target.skipRows} rows of ${source.label}: nothing left to look up\n`);
  }
  if (stopped?.reason === 'closed') return EXIT.ok;
  if (stopped) {
    // Refused before its first record, the run left an earlier -o file as it was: --resume would continue that one.
    const hint = target.untouched ? `run the same command again (${req.output ?? ''} is as it was)` : target.resumeHint;
    throw stopFailure(stopped, bulk || req.output ? hint : undefined, cap?.describe());
  }
  // A resumed file is one output: rows the earlier run wrote as invalid or failed count too.
  const incomplete = stats.invalid + stats.failed + target.earlier.invalid + target.earlier.failed;
  return incomplete > 0 ? EXIT.incomplete : EXIT.ok;
}

/** What a wait for a stalled standard output rejects with once the second Ctrl-C comes. */
const QUIT = Symbol('quit');

/** A promise that rejects with QUIT when `quit` aborts (handled: no one need be waiting on it). */
function quitting(quit: AbortSignal | undefined): Promise<never> | undefined {
  if (!quit) return undefined;
  const rejected = new Promise<never>((_, reject) => {
    if (quit.aborted) reject(QUIT);
    else quit.addEventListener('abort', () => reject(QUIT), { once: true });
  });
  rejected.catch(() => {});
  return rejected;
}

/** The signal that stopped the run, as main.ts aborts `interrupt` with it (SIGINT when unknown). */
function signalName(interrupt: AbortSignal): string {
  const reason: unknown = interrupt.reason;
  return reason instanceof Error && /^SIG[A-Z]+$/.test(reason.message) ? reason.message : 'SIGINT';
}

/** What the first Ctrl-C (or SIGTERM, SIGHUP) prints. */
function stoppingLine(inFlight: number, canQuit: boolean, signal: string): string {
  const again = canQuit ? (signal === 'SIGINT' ? ' (Ctrl-C again to quit now)' : ` (${signal} again to quit now)`) : '';
  return `stopping: finishing ${inFlight} ${inFlight === 1 ? 'request' : 'requests'} in flight${again}`;
}

/** --max-lookups / --max-spend; --max-spend needs the price of every lookup the run sends. */
function spendCap(req: RunRequest, prices: Prices): SpendCap | undefined {
  if (req.maxLookups === undefined && req.maxSpend === undefined) return undefined;
  if (req.maxSpend !== undefined) {
    const unpriced = req.lookups.filter((d) => prices[d.kind] === undefined).map((d) => d.kind);
    if (unpriced.length > 0) {
      throw new UsageError(`--max-spend needs the price of every lookup of the run; none for ${unpriced.join(', ')}`, `give it with --price ${unpriced.map((k) => `${k}=<price>`).join(',')} or \`numintel config set price.${unpriced[0]} <price>\``);
    }
  }
  return new SpendCap({ maxLookups: req.maxLookups, maxSpend: req.maxSpend, prices });
}
