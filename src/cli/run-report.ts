// `numintel report`: reads a finished output once, as a stream, and prints what it holds.
// fs.promises, not node:fs/promises: the module loads on first use, not with every run's start-up.
import { promises as fs } from 'node:fs';
import { basename, resolve } from 'node:path';
import { InputError, UsageError } from '../core/errors.js';
import { writeError } from '../output/write-errors.js';
import { ReportAccumulator } from '../report/accumulator.js';
import type { Prices } from '../settings/prices.js';
import { renderHtml } from '../report/render-html.js';
import { renderText } from '../report/render-text.js';
import { EXIT } from './exit.js';
import { useColor } from './color.js';
import { readOutputFile } from './read-output-file.js';
import { widthOf, type World } from './world.js';

export interface ReportRequest {
  readonly file: string;
  readonly format: 'text' | 'json';
  readonly html?: string;
  /** Epoch ms; undefined = the world's clock. */
  readonly asOf?: number;
  readonly prices?: Prices;
  /** ISO 4217 code; undefined = USD. */
  readonly currency?: string;
  readonly actOnLimit?: number;
  /** false for --no-color. */
  readonly color?: boolean;
}

export async function runReport(req: ReportRequest, world: World): Promise<number> {
  // An empty name (an unset shell variable) would resolve to the current directory.
  if (req.file === '') throw new InputError('report needs the name of an output file (or - for standard input), and was given an empty one');
  const stdin = req.file === '-';
  const label = stdin ? 'standard input' : req.file;
  if (stdin && world.stdin.isTTY === true) throw new UsageError('report - reads an output from standard input, which is a terminal here', 'pipe an output in, or give its file');
  if (req.html !== undefined) {
    // Checked before the input is read: the page must not replace the file it reports on.
    const { checkReportFile } = await import('./output-file.js');
    const fd = stdin ? (world.stdin as { fd?: unknown }).fd : undefined;
    const input = stdin ? (typeof fd === 'number' ? { fd } : {}) : { path: resolve(world.cwd, req.file) };
    await checkReportFile(resolve(world.cwd, req.html), req.html, input, { flag: '--html', input: 'the input' });
  }
  const acc = new ReportAccumulator({
    asOf: req.asOf ?? world.clock.now(),
    prices: req.prices,
    ...(req.currency === undefined ? {} : { currency: req.currency }),
    ...(req.actOnLimit === undefined ? {} : { actOnLimit: req.actOnLimit }),
    source: 'file',
    name: stdin ? undefined : basename(req.file),
  });
  // The input columns too: the numbers to act on are listed with those that say who a row is.
  const read = await readOutputFile(req.file, world, (row) => acc.add(row), { inputs: true });
  // A CSV or TSV header of numintel's columns is an output with no rows (a run over an empty
  // list): its report says 0 rows, as that run's --report page does. JSON with no record is not ours.
  if (acc.rowCount === 0 && read.format !== 'csv' && read.format !== 'tsv' && read.format !== 'xlsx') throw new InputError(`${label} holds no numintel records: there is nothing to report`, 'report reads what lrn, cnam, trust or enrich wrote (csv, tsv, jsonl, json or xlsx)');
  // The header says which lookups ran, also when no row follows it.
  acc.addLookups(read.lookups);
  const report = acc.finish();
  report.source.format = read.format;
  if (read.unreadable > 0) report.input.unreadable = read.unreadable;

  if (req.html !== undefined) {
    const html = req.html;
    await fs.writeFile(resolve(world.cwd, html), renderHtml(report)).catch((err: unknown) => {
      throw writeError(err, html);
    });
  }
  if (req.format === 'json') {
    world.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
    return EXIT.ok;
  }
  const terminal = world.stdout.isTTY === true;
  world.stdout.write(
    renderText(report, {
      // A terminal that does not know its size says 0 columns.
      width: widthOf(world.stdout, world.env) ?? 80,
      color: useColor(req, world, terminal),
      unicode: terminal && world.env.TERM !== 'dumb',
    }),
  );
  return EXIT.ok;
}
