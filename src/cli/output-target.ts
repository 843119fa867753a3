// Where records go and in which format: stdout or -o <file>, with --resume continuing a file
// after its last complete row. Everything that can be wrong with the -o file (the input under
// another name, a directory, no permission, another input's rows to resume) is refused before
// the file is opened for writing, and before anything is sent.
import { constants, createWriteStream, promises as fs, renameSync, rmSync } from 'node:fs';
import { basename, dirname, extname, join, resolve } from 'node:path';
import type { Writable } from 'node:stream';
import { ResumeError, UsageError, type NumintelError } from '../core/errors.js';
import { activeFields, LOOKUP_KINDS } from '../core/lookups.js';
import { rowKeys, type SourceItem } from '../core/run.js';
import { csvPlan, planHeader } from '../output/csv-layout.js';
import { selectFields } from '../output/fields.js';
import { OUTPUT_FORMATS } from '../output/layout.js';
import type { OutputLayout, SinkStyle } from '../output/sink.js';
import { writeError } from '../output/write-errors.js';
import type { ResumableFormat } from '../pipeline/order/resume.js';
import type { WrittenAnswers } from '../pipeline/order/resume-answers.js';
import type { Settings } from '../settings/resolve.js';
import { checkOutputFile, checkReportFile, checkStdoutFile, type InputOrigin } from './output-file.js';
import type { Format, RunRequest } from './run-request.js';
import { widthOf, type World } from './world.js';
import { useColor } from './color.js';
import { isObject } from '../core/json.js';
import { tempSuffix } from '../core/temp-name.js';
import { XLSX_MAX_ROWS } from '../pipeline/source/xlsx-limits.js';

export interface OutputTarget {
  readonly format: Format;
  readonly stream: Writable;
  readonly style: SinkStyle;
  /** Input rows already in the output file (--resume). */
  readonly skipRows: number;
  /** Of those, the rows with an invalid number or a failed lookup: the exit code covers them too. */
  readonly earlier: { readonly invalid: number; readonly failed: number };
  /** The input's rows still to look up: all of them, or those after the resumed file's rows. */
  readonly items: AsyncIterable<SourceItem>;
  /** The answers a resumed JSON lines file holds, for the run's dedup (resume-answers.ts). */
  readonly answered?: AsyncIterable<readonly WrittenAnswers[]>;
  /** How to continue after a stop, for the message that ends an interrupted run. */
  readonly resumeHint: string;
  /** What the sink writes: the run's layout, appending or not. */
  readonly layout: OutputLayout;
  /**
   * The run has a record for the file (or ended with none, unrefused): an earlier file of that name
   * is replaced now. Until then what is written goes to a file beside it (see openFile). Cheap to call again.
   */
  keep(): void;
  /** An earlier file of that name is as it was: the run stopped before keeping what it wrote. */
  readonly untouched: boolean;
  /** Ends the output; rejects with the write error if writing the file failed (a full disk). */
  close(): Promise<void>;
}

const EXTENSION_FORMATS: Record<string, Format> = { '.csv': 'csv', '.tsv': 'tsv', '.json': 'json', '.jsonl': 'jsonl', '.ndjson': 'jsonl', '.xlsx': 'xlsx' };
const RESUMABLE: readonly Format[] = ['csv', 'tsv', 'jsonl'] satisfies ResumableFormat[];

/**
 * `written`: what the run writes, so that a file it cannot continue is refused before it is touched.
 * `source`: the input's rows; a resumed file's rows are checked against its first ones.
 */
export async function openOutput(
  req: RunRequest,
  settings: Settings,
  world: World,
  written: Omit<OutputLayout, 'appending'>,
  source: { readonly items: AsyncIterable<SourceItem>; readonly countTotal?: () => Promise<number | undefined> },
): Promise<OutputTarget> {
  const inputIsCsv = written.inputColumns !== null;
  const path = req.output === undefined || req.output === '-' ? undefined : resolve(world.cwd, req.output);
  const label = req.output ?? 'standard output';
  const toTerminal = path === undefined && world.stdout.isTTY === true;
  const format: Format =
    req.format ?? (path ? formatOfName(path) : undefined) ?? settings.format ?? (toTerminal ? 'table' : inputIsCsv ? 'csv' : 'jsonl');

  const style: SinkStyle = { color: useColor(req, world, toTerminal), rawCsv: req.rawCsv, width: widthOf(world.stdout, world.env) };
  // Said alone (interrupted) or after "to go on, raise the cap and", "when it is healthy again,":
  // a whole instruction either way, with what makes a run resumable when this one is not.
  const resumeHint = !path
    ? 'run it again (writing to a file with -o <file>, in csv, tsv or jsonl, makes a run resumable)'
    : RESUMABLE.includes(format)
      ? `run the same command again with --resume to continue ${req.output}`
      : `run it again (${format} output cannot be resumed: csv, tsv or jsonl can, with -f)`;

  if (format === 'xlsx') await checkXlsxOutput(toTerminal, req.resume === true, source.countTotal);
  if (!path) {
    if (req.resume) throw new UsageError('--resume needs the output file of the interrupted run', 'give it with -o <file>');
    return {
      format,
      stream: world.stdout,
      style,
      skipRows: 0,
      earlier: { invalid: 0, failed: 0 },
      items: source.items,
      resumeHint,
      layout: { ...written, appending: false },
      keep: () => {},
      untouched: false,
      close: async () => {},
    };
  }

  let skipRows = 0;
  let earlier = { invalid: 0, failed: 0 };
  let appending = false;
  let items = source.items;
  let answered: AsyncIterable<readonly WrittenAnswers[]> | undefined;
  if (req.resume) {
    if (!isResumable(format)) {
      throw new UsageError(`--resume works with csv, tsv and jsonl output, not ${format}`, 'use -f csv, -f tsv or -f jsonl');
    }
    resumableFields(written, format);
    const { checkResumedInput, inspectOutputForResume, truncateForResume } = await import('../pipeline/order/resume.js');
    const found = await inspectOutputForResume(path, format);
    const plan = csvPlan({ ...written, appending: true });
    // Refused before anything is cut or opened, so the file stays as the interrupted run left it.
    const differs =
      format === 'jsonl'
        ? found.foreign === true || (found.first !== undefined && !(written.fields ? flatRecordFits(found.first, written) : recordFits(found.first, written)))
        : found.header !== undefined && planHeader(plan).join('\u0000') !== found.header.join('\u0000');
    if (differs) {
      throw new ResumeError(
        `cannot resume ${label}: ${format === 'jsonl' ? 'its records differ from' : 'its columns differ from'} what this command writes`,
        'resume with the same command, input and options as the interrupted run',
      );
    }
    // The rows the file holds are taken from the input here, checked, and not looked up again.
    const rest = source.items[Symbol.asyncIterator]();
    const errorColumns = plan.lookups.map((l) => l.errorName);
    const flat = format === 'jsonl' && written.fields ? { flatErrorKeys: flatKeys(written).errors } : {};
    earlier = await checkResumedInput(path, label, format, found, { items: rest, columns: written.inputColumns, errorColumns, ...flat }).catch(async (err: unknown) => {
      await rest.return?.();
      throw err;
    });
    items = { [Symbol.asyncIterator]: () => rest };
    // An empty or missing file needs no cutting: it is opened for writing afresh below.
    if (found.validBytes > 0) {
      await truncateForResume(path, found.validBytes).catch((err: Error) => {
        throw new ResumeError(`cannot resume ${label}: ${err.message}`);
      });
    }
    skipRows = found.rows;
    appending = found.validBytes > 0;
    // With --fields a record holds part of each result: a later row given it would tell --report
    // less than the service said, so such a file is not read back.
    if (format === 'jsonl' && found.rows > 0 && written.fields === undefined) {
      const { writtenAnswers } = await import('../pipeline/order/resume-answers.js');
      answered = writtenAnswers(path, label, found, written.lookups.map((d) => d.kind));
    }
  }
  const { stream, failure, replacement } = await openFile(path, appending, label);
  return {
    format,
    stream,
    style,
    skipRows,
    earlier,
    items,
    ...(answered ? { answered } : {}),
    resumeHint,
    layout: { ...written, appending },
    keep: () => replacement?.keep(),
    get untouched() {
      return replacement !== undefined && !replacement.kept;
    },
    close: async () => {
      if (!stream.destroyed) stream.end();
      if (!stream.closed) await new Promise((done) => stream.once('close', done));
      replacement?.discard();
      const failed = failure();
      if (failed) throw failed;
    },
  };
}

/**
 * A workbook is a ZIP archive, no text for a terminal (a pipe takes it: `… -f xlsx | upload`), is
 * not continued by --resume, and holds XLSX_MAX_ROWS rows a sheet: an input known to have more is
 * refused before anything is sent (from a pipe, whose rows are not counted, the sink stops at the limit).
 */
async function checkXlsxOutput(toTerminal: boolean, resume: boolean, countTotal: (() => Promise<number | undefined>) | undefined): Promise<void> {
  if (toTerminal) throw new UsageError('xlsx output is a binary file, not for a terminal', 'write it to a file with -o <file>.xlsx');
  if (resume) throw new UsageError('--resume works with csv, tsv and jsonl output, not xlsx', 'use -f csv, -f tsv or -f jsonl');
  const rows = await countTotal?.();
  if (rows !== undefined) checkXlsxRows(rows);
}

/** An input of `rows` data rows fits one Excel sheet below its header (for a run and its --dry-run). */
export function checkXlsxRows(rows: number): void {
  if (rows + 1 <= XLSX_MAX_ROWS) return;
  throw new UsageError(
    `the input has ${rows.toLocaleString('en-US')} rows, and an Excel sheet holds ${(XLSX_MAX_ROWS - 1).toLocaleString('en-US')} below its header`,
    'write csv or jsonl instead (-f csv), or split the input',
  );
}

/** The format -o's name asks for, for a dry run that opens no output (undefined: none, or not known). */
export function outputFormatOfName(output: string | undefined): Format | undefined {
  return output === undefined || output === '-' ? undefined : EXTENSION_FORMATS[extname(output).toLowerCase()];
}

/** The file written beside an earlier -o file, until the run keeps it (renamed over it) or discards it. */
interface Replacement {
  keep(): void;
  discard(): void;
  readonly kept: boolean;
}

/**
 * The file opened for writing. Its first write error (a full disk) is kept for close() to report:
 * the writer only learns that the stream is gone, which alone would look like a reader that left.
 * A file that already holds something (last week's output) is not cut at the start: the run writes
 * beside it, and `keep` renames that over it at the run's first record. A run refused before it has
 * one (a wrong key, an empty wallet, a TLS failure: all known only at the first request) leaves it
 * as it was, and `discard` removes what it wrote instead.
 */
async function openFile(path: string, appending: boolean, label: string): Promise<{ stream: Writable & { closed: boolean }; failure: () => NumintelError | undefined; replacement?: Replacement }> {
  const replacing = appending ? undefined : await replaceable(path);
  // 64 KiB a write (the default is 16): each write of a file stream is a round trip through the thread pool.
  const stream = createWriteStream(replacing?.beside ?? path, { flags: appending ? 'a' : replacing ? 'wx' : 'w', highWaterMark: 64 * 1024 });
  let failed: NumintelError | undefined;
  stream.on('error', (err) => (failed ??= writeError(err, label)));
  await new Promise<void>((opened, refused) => {
    stream.once('open', () => opened());
    stream.once('error', (err) => refused(writeError(err, label)));
  });
  const failure = () => failed;
  if (!replacing) return { stream, failure };
  const { file, beside, mode } = replacing;
  // The records keep the permissions the user gave the file (a 0600 file of customer numbers stays 0600).
  await fs.chmod(beside, mode).catch(() => undefined);
  let state: 'writing' | 'kept' | 'discarded' = 'writing';
  const replacement: Replacement = {
    get kept() {
      return state === 'kept';
    },
    keep: () => {
      if (state !== 'writing') return;
      state = 'kept';
      try {
        renameSync(beside, file);
      } catch (err) {
        failed ??= writeError(err, label);
        stream.destroy();
        throw failed;
      }
    },
    discard: () => {
      if (state !== 'writing') return;
      state = 'discarded';
      rmSync(beside, { force: true });
    },
  };
  return { stream, failure, replacement };
}

/**
 * Where an -o file holding something is written until the run keeps it: a new file in its folder
 * (the same file system, so the rename is atomic), named after it. Undefined, and the file is cut
 * at the start as before, when it is empty or not a regular file (a FIFO, /dev/null), has other
 * names (a hard link would keep the old content), or its folder takes no new file. A symbolic
 * link stays a link: the file it points to is the one replaced.
 */
async function replaceable(path: string): Promise<{ file: string; beside: string; mode: number } | undefined> {
  try {
    const file = await fs.realpath(path);
    const info = await fs.stat(file);
    if (!info.isFile() || info.size === 0 || info.nlink !== 1) return undefined;
    await fs.access(dirname(file), constants.W_OK);
    return { file, beside: join(dirname(file), `.${basename(file)}.${tempSuffix()}.partial`), mode: info.mode & 0o7777 };
  } catch {
    return undefined;
  }
}

/**
 * Everything checkOutputTarget checks, and standard output that is the input file: for a run, before
 * its input is opened, so that whatever the input holds (rows no column of which holds numbers),
 * the output that would destroy it is what is refused. openOutput relies on it having run.
 */
export async function checkRunOutputs(req: RunRequest, world: World): Promise<void> {
  await checkOutputTarget(req, world);
  if (req.output !== undefined && req.output !== '-') return;
  const fd = (world.stdout as { fd?: unknown }).fd;
  if (typeof fd === 'number') await checkStdoutFile(fd, inputOrigin(req, world));
}

/**
 * The -o and --report files, before anything is read or sent (and, for --dry-run, without opening
 * either): an extension without a format, a file that cannot be written or is the input. The page
 * is written when the run ends, so a name that cannot take it is refused here too.
 */
export async function checkOutputTarget(req: RunRequest, world: World): Promise<void> {
  const path = req.output === undefined || req.output === '-' ? undefined : resolve(world.cwd, req.output);
  if (path && req.format === undefined) formatOfName(path);
  if (req.report !== undefined) {
    await checkReportFile(resolve(world.cwd, req.report), req.report, inputOrigin(req, world), { flag: '--report', input: '-i' }, path);
  }
  if (path) await checkOutputFile(path, req.output as string, inputOrigin(req, world));
}

/** The format a file name asks for; undefined without an extension; an unknown one is refused. */
function formatOfName(path: string): Format | undefined {
  const ext = extname(path).toLowerCase();
  if (ext === '') return undefined;
  const format = EXTENSION_FORMATS[ext];
  if (format) return format;
  throw new UsageError(
    `cannot tell the output format of ${basename(path)}: numintel writes ${Object.keys(EXTENSION_FORMATS).join(' ')} files, not ${ext}; ` +
      `rename it, or give the format with -f (${OUTPUT_FORMATS.join(', ')})`,
  );
}

function isResumable(format: Format): format is ResumableFormat {
  return RESUMABLE.includes(format);
}

/** The input's file, or standard input's descriptor when the numbers come from there. */
function inputOrigin(req: RunRequest, world: World): InputOrigin {
  if (req.numbers.length > 0) return {};
  if (req.input !== undefined && req.input !== '-') return { path: resolve(world.cwd, req.input) };
  const fd = (world.stdin as { fd?: unknown }).fd;
  return typeof fd === 'number' ? { fd } : {};
}

/**
 * A resumed file's rows are matched to the input's by their input cells: with --fields, a list's
 * output must hold `input`, first in a CSV or TSV (a CSV input's columns always stay first, and
 * its JSON records keep their `row`).
 */
function resumableFields(written: Omit<OutputLayout, 'appending'>, format: ResumableFormat): void {
  if (!written.fields || written.inputColumns !== null) return;
  const slots = csvPlan(written).slots;
  if (format === 'jsonl' ? !slots.some((s) => s.of === 'input') : slots[0]?.of !== 'input') {
    const where = format === 'jsonl' ? '' : ' in the first column';
    throw new UsageError(`--resume with --fields needs the input${where}, to match the rows already written with the input's`, `${format === 'jsonl' ? 'name' : 'begin --fields with'} input, e.g. --fields input,number,...`);
  }
}

/** The keys of a JSON record written with --fields, in order (flat-records.ts names them so), and those of its errors. */
function flatKeys(written: Omit<OutputLayout, 'appending'>): { keys: string[]; errors: string[] } {
  const slots = csvPlan({ ...written, inputColumns: null, cacheColumns: false }).slots;
  return { keys: slots.map((s) => s.name), errors: slots.filter((s) => s.of === 'error').map((s) => s.name) };
}

/** Whether a flat record of a resumed JSON-lines file has exactly the keys this run writes, and its row when the input is CSV. */
function flatRecordFits(record: Record<string, unknown>, written: Omit<OutputLayout, 'appending'>): boolean {
  const row = record.row;
  const rowFits = written.inputColumns === null ? row === undefined : isObject(row) && rowKeys(written.inputColumns).every((k) => k in row);
  return rowFits && Object.keys(record).filter((k) => k !== 'row').join('\u0000') === flatKeys(written).keys.join('\u0000');
}

/**
 * Whether a record of a resumed JSON-lines file is what this run writes: the same command (lookup
 * kind, or enrich's kinds), CSV rows with the same columns or none, and each result's optional
 * parts present exactly when their option is on (and --fields keeps one of their fields).
 */
function recordFits(record: Record<string, unknown>, layout: Omit<OutputLayout, 'appending'>): boolean {
  const row = record.row;
  const rowFits =
    layout.inputColumns === null
      ? row === undefined
      : isObject(row) && rowKeys(layout.inputColumns).every((k) => k in row);
  if (!rowFits) return false;
  const results: Record<string, unknown> | undefined =
    layout.mode === 'enrich'
      ? isObject(record.results) && !('lookup' in record)
        ? record.results
        : undefined
      : record.lookup === layout.lookups[0]?.kind && 'result' in record
        ? { [record.lookup as string]: record.result }
        : undefined;
  if (!results) return false;
  const kinds = LOOKUP_KINDS.filter((k) => k in results);
  if (kinds.join() !== layout.lookups.map((d) => d.kind).join()) return false;
  return layout.lookups.every((d) => {
    const result = results[d.kind];
    if (!isObject(result)) return true; // a failed lookup says nothing about the options
    // With --fields, an option's part is written only when one of its fields is chosen, and the
    // fields left out (a sub-object's too) are missing from every record: a record holding a field
    // this run leaves out was written with other --fields, and appending would mix two shapes in
    // one file. A field missing from the record proves nothing (the service may leave a nullable
    // field out of its answer), except an option's part, which numintel writes whenever it is on.
    const written = new Map(selectFields(activeFields(d, layout.options), layout.fields?.kept.get(d.kind)).map((f) => [f.name, f]));
    return d.fields.every((f) => {
      const has = f.name in result;
      if (has ? !written.has(f.name) : f.option !== undefined && written.has(f.name)) return false;
      const part = result[f.name];
      const subs = written.get(f.name)?.fields;
      if (!subs || !isObject(part)) return true;
      const kept = new Set(subs.map((s) => s.name));
      return (f.fields ?? []).every((s) => kept.has(s.name) || !(s.name in part));
    });
  });
}
