// `numintel diff`: the before output read into an index of the fields compared, then the after
// output streamed past it; changed rows written as they are found, the summary at the end.
import { closeSync, createWriteStream, openSync, promises as fs, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, resolve } from 'node:path';
import { InputError, UsageError } from '../core/errors.js';
import { CHANGE_KINDS, type ChangeKind } from '../diff/compare.js';
import { Diff, type ChangedRow, type DiffFigures } from '../diff/diff.js';
import { DIFF_FIELDS, type DiffField } from '../diff/snapshot.js';
import { csvLine } from '../output/csv.js';
import { uniqueNamer } from '../output/csv-layout.js';
import { neutraliseFormula, stripControl } from '../output/sanitize.js';
import type { XlsxRows } from '../output/xlsx.js';
import { writeError } from '../output/write-errors.js';
import type { ReadResult } from '../report/reader.js';
import { EXIT } from './exit.js';
import { readOutputFile } from './read-output-file.js';
import type { World } from './world.js';

export type DiffFormat = 'text' | 'json' | 'csv' | 'jsonl' | 'xlsx';
type RowsFormat = 'csv' | 'jsonl' | 'xlsx';

export interface DiffRequest {
  readonly before: string;
  readonly after: string;
  readonly format?: DiffFormat;
  readonly output?: string;
  /** A changes page in the report's style. */
  readonly html?: string;
  readonly only?: readonly ChangeKind[];
  readonly scoreDelta: number;
  /** How many numbers of each kind the summary lists. */
  readonly first: number;
}

/**
 * The before run's records kept in memory before they go to a temp file: about 200,000 numbers of
 * an enriched run, so most diffs never touch the disk and a larger one stays this size.
 */
const INDEX_MEMORY = 16 << 20;

const ALL_FIELDS: readonly DiffField[] = [...DIFF_FIELDS.map(([f]) => f), 'error'];

/** The rows file's form: -f csv|jsonl|xlsx, else the -o name's ending. */
function rowsFormat(req: DiffRequest): RowsFormat | undefined {
  if (req.format === 'csv' || req.format === 'jsonl' || req.format === 'xlsx') return req.format;
  if (req.output === undefined) return undefined;
  if (/\.csv$/i.test(req.output)) return 'csv';
  if (/\.(jsonl|ndjson)$/i.test(req.output)) return 'jsonl';
  if (/\.xlsx$/i.test(req.output)) return 'xlsx';
  throw new UsageError(`-o ${req.output}: the changes are written as csv, jsonl or xlsx, and the name says none of them`, 'name it .csv, .jsonl or .xlsx, or give -f csv, -f jsonl or -f xlsx');
}

/** Writes text to a file descriptor in 64 KiB pieces, synchronously (the rows come from a synchronous callback). */
function fdWriter(fd: number, label: string): { write(s: string): void; end(): void } {
  let buf = '';
  const flush = () => {
    try {
      writeSync(fd, buf);
    } catch (err) {
      throw writeError(err, label);
    }
    buf = '';
  };
  return {
    write(s) {
      buf += s;
      if (buf.length >= 1 << 16) flush();
    },
    end() {
      if (buf !== '') flush();
    },
  };
}

export async function runDiff(req: DiffRequest, world: World): Promise<number> {
  for (const f of [req.before, req.after]) if (f === '') throw new InputError('diff needs two output files (or - for standard input), and was given an empty name');
  if (req.before === '-' && req.after === '-') throw new UsageError('diff reads standard input for one of its files only', 'give the other output as a file');
  if ((req.before === '-' || req.after === '-') && world.stdin.isTTY === true) throw new UsageError('diff - reads an output from standard input, which is a terminal here', 'pipe an output in, or give its file');
  const format = rowsFormat(req);
  const rowsToStdout = format !== undefined && req.output === undefined;
  if (rowsToStdout && format === 'xlsx' && world.stdout.isTTY === true) throw new UsageError('-f xlsx writes a workbook, which a terminal cannot show', 'give -o changes.xlsx, or pipe it to a file');
  const summary: 'text' | 'json' = req.format === 'json' ? 'json' : 'text';
  if (req.output !== undefined) {
    if (req.output === '-') throw new UsageError('-o takes a file name; without -o, -f csv, jsonl or xlsx writes the changes to standard output');
    const { checkOutputFile } = await import('./output-file.js');
    const target = resolve(world.cwd, req.output);
    for (const input of [req.before, req.after]) {
      const fd = (world.stdin as { fd?: unknown }).fd;
      const origin = input === '-' ? (typeof fd === 'number' ? { fd } : {}) : { path: resolve(world.cwd, input) };
      await checkOutputFile(target, req.output, origin, { flag: '-o', input: input === '-' ? 'standard input' : input, what: 'the changes' });
    }
  }

  if (req.html !== undefined) {
    // Checked before the inputs are read: the page must replace neither of them, nor the changes.
    const { checkReportFile } = await import('./output-file.js');
    for (const input of [req.before, req.after]) {
      const fd = (world.stdin as { fd?: unknown }).fd;
      const origin = input === '-' ? (typeof fd === 'number' ? { fd } : {}) : { path: resolve(world.cwd, input) };
      await checkReportFile(resolve(world.cwd, req.html), req.html, origin, { flag: '--html', input: input === '-' ? 'standard input' : input }, req.output === undefined ? undefined : resolve(world.cwd, req.output));
    }
  }
  const only = req.only && req.only.length > 0 ? new Set(req.only) : undefined;
  const diff = new Diff(req.scoreDelta, req.first, { dir: tmpdir(), bufferBytes: INDEX_MEMORY });
  let reads: { before: ReadResult; after: ReadResult };
  try {
    reads = await compareFiles(req, world, diff, format, rowsToStdout, only);
  } finally {
    diff.close();
  }

  const files = {
    before: { name: req.before === '-' ? 'standard input' : basename(req.before), format: reads.before.format, unreadable: reads.before.unreadable },
    after: { name: req.after === '-' ? 'standard input' : basename(req.after), format: reads.after.format, unreadable: reads.after.unreadable },
  };
  const figures = diff.figures;
  if (req.html !== undefined) {
    const html = req.html;
    const { renderDiffHtml } = await import('../diff/render-html.js');
    await fs.writeFile(resolve(world.cwd, html), renderDiffHtml({ files, figures, scoreDelta: req.scoreDelta, only })).catch((err: unknown) => {
      throw writeError(err, html);
    });
  }
  const text = summary === 'json' ? `${JSON.stringify({ files, score_delta: req.scoreDelta, ...figures }, null, 2)}\n` : renderSummary(files, figures, only);
  // With the changes on standard output, the summary goes to stderr, as every command's summary does.
  (rowsToStdout ? world.stderr : world.stdout).write(text);
  return EXIT.ok;
}

/** Reads the before file into the diff, then streams the after file past it, writing the changed rows as they come. */
async function compareFiles(req: DiffRequest, world: World, diff: Diff, format: RowsFormat | undefined, rowsToStdout: boolean, only: ReadonlySet<ChangeKind> | undefined): Promise<{ before: ReadResult; after: ReadResult }> {
  const startSheet = format === 'xlsx' ? await (await import('../output/xlsx.js')).xlsxWriter() : undefined;
  const before = await readOutputFile(req.before, world, (row) => diff.addBefore(row));
  const fields = ALL_FIELDS.filter((f) => diff.beforeFields.has(f));
  let fd: number | undefined;
  if (req.output !== undefined) {
    const output = req.output;
    try {
      fd = openSync(resolve(world.cwd, output), 'w');
    } catch (err) {
      throw writeError(err, output);
    }
  }
  try {
    const label = req.output ?? 'standard output';
    const target = startSheet === undefined ? undefined : fd !== undefined ? createWriteStream('', { fd, autoClose: false }) : world.stdout;
    const text = fd !== undefined ? fdWriter(fd, label) : { write: (s: string) => void world.stdout.write(s), end: () => {} };
    const out = fd !== undefined || rowsToStdout ? text : undefined;
    // A workbook's sheet, begun with its header; its rows are cells rather than lines.
    let sheet: XlsxRows | undefined;
    // The CSV header names the after file's input columns, known from its first row.
    let inputNames: readonly string[] | undefined;
    let headed = false;
    const head = () => {
      if (headed || !out || format === 'jsonl') return;
      headed = true;
      const header = [...ownColumns(fields, inputNames ?? []), ...(inputNames ?? [])];
      if (startSheet && target) sheet = startSheet(target, header);
      else out.write(csvLine(header));
    };
    const emit = (row: ChangedRow | undefined) => {
      if (!row || !out) return;
      if (only && !row.kinds.some((k) => only.has(k))) return;
      head();
      if (format === 'jsonl') out.write(jsonlRow(row));
      else if (sheet) sheet.addRow(rowCells(row, fields, inputNames ?? []));
      else out.write(csvLine(rowCells(row, fields, inputNames ?? [])));
    };
    const after = await readOutputFile(
      req.after,
      world,
      (row) => {
        inputNames ??= row.inputs?.map(([name]) => name);
        emit(diff.addAfter(row));
      },
      { inputs: out !== undefined },
    );
    for (const row of diff.removed()) emit(row);
    head();
    out?.end();
    if (sheet) {
      await sheet.end().catch((err: unknown) => {
        throw writeError(err, label);
      });
      if (target && target !== world.stdout) await new Promise<void>((done, fail) => target.end((err?: Error | null) => (err ? fail(writeError(err, label)) : done())));
    }
    return { before, after };
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** Service text in a CSV cell, made safe as every numintel CSV makes it (no escape sequences, no formulas). */
const safe = (value: string | undefined) => neutraliseFormula(stripControl(value ?? ''));

function rowCells(row: ChangedRow, fields: readonly DiffField[], inputNames: readonly string[]): string[] {
  const cells = [row.number, row.kinds.join(';')];
  for (const f of fields) {
    const shown = row.fields.includes(f);
    cells.push(shown ? safe(row.before?.[f]) : '', shown ? safe(row.after?.[f]) : '');
  }
  // A CSV's rows have its columns in its order (two of one name among them); JSON records, by name.
  const inputs = row.inputs ?? [];
  const byName = inputs.length === inputNames.length && inputs.every(([name], i) => name === inputNames[i]) ? undefined : new Map(inputs);
  inputNames.forEach((name, i) => cells.push((byName ? byName.get(name) : inputs[i]?.[1]) ?? ''));
  return cells;
}

/**
 * The changes file's own columns: `number`, `changes`, then `<field>_before` and `<field>_after`
 * for each field. One that an input column of the after file also has is renamed as enrich renames
 * its columns (`numintel_number`), so the user's columns come through whole, under their names.
 */
function ownColumns(fields: readonly DiffField[], inputNames: readonly string[]): string[] {
  const unique = uniqueNamer(inputNames);
  return ['number', 'changes', ...fields.flatMap((f) => [`${f}_before`, `${f}_after`])].map(unique);
}

/** The same names as the CSV's, with only the fields that changed. */
function jsonlRow(row: ChangedRow): string {
  const inputs = row.inputs ?? [];
  const names = ownColumns(row.fields, inputs.map(([name]) => name));
  // No prototype: an input column named `__proto__` is a column like any other.
  const record = Object.create(null) as Record<string, string>;
  record[names[0] as string] = row.number;
  record[names[1] as string] = row.kinds.join(';');
  row.fields.forEach((f, i) => {
    record[names[2 + 2 * i] as string] = row.before?.[f] ?? '';
    record[names[3 + 2 * i] as string] = row.after?.[f] ?? '';
  });
  for (const [name, value] of inputs) record[name] = value;
  return `${JSON.stringify(record)}\n`;
}

const n = (x: number) => x.toLocaleString('en-US');

function renderSummary(files: { before: { name: string; format: string }; after: { name: string; format: string } }, f: DiffFigures, only: ReadonlySet<ChangeKind> | undefined): string {
  const lines = [
    `Changes from ${files.before.name} (${files.before.format}, ${n(f.before.numbers)} numbers) to ${files.after.name} (${files.after.format}, ${n(f.after.numbers)} numbers)`,
    `  matched ${n(f.matched)}, unchanged ${n(f.unchanged)}, changed ${n(f.changed)}`,
    '',
  ];
  const kinds = CHANGE_KINDS.filter((k) => !only || only.has(k));
  const width = Math.max(...kinds.map((k) => k.length));
  const lastFlagKind = kinds.includes('unflagged') ? 'unflagged' : kinds.includes('flagged') ? 'flagged' : undefined;
  for (const k of kinds) {
    const count = f.kinds[k];
    const list = f.numbers[k];
    const more = count > list.length ? ` … ${n(count - list.length)} more` : '';
    lines.push(`  ${k.padEnd(width)}  ${n(count).padStart(9)}${list.length > 0 ? `  ${list.join(' ')}${more}` : ''}`);
    // Which flags turned on (+) and off (-), under the last of the two kinds shown.
    if (k === lastFlagKind) {
      const byFlag = Object.entries(f.flags).filter(([, c]) => c.flagged + c.unflagged > 0);
      if (byFlag.length > 0) lines.push(`  ${' '.repeat(width)}  ${byFlag.map(([flag, c]) => `${flag} +${n(c.flagged)} -${n(c.unflagged)}`).join(', ')}`);
    }
  }
  return `${lines.join('\n')}\n`;
}
