// Where records go and in which format: stdout or -o <file>, with --resume continuing a file
// after its last complete row.
import { createWriteStream } from 'node:fs';
import { extname, resolve } from 'node:path';
import { once } from 'node:events';
import type { Writable } from 'node:stream';
import { usageError } from '../core/errors.js';
import { activeFields, LOOKUP_KINDS } from '../core/lookups.js';
import { rowKeys } from '../core/run.js';
import { csvHeader } from '../output/csv-layout.js';
import type { OutputLayout, SinkStyle } from '../output/sink.js';
import type { Settings } from '../settings/resolve.js';
import type { Format, RunRequest } from './run-request.js';
import type { World } from './world.js';
import { isObject } from '../core/json.js';

export interface OutputTarget {
  readonly format: Format;
  readonly stream: Writable;
  readonly style: SinkStyle;
  /** Input rows already in the output file (--resume): the source skips them. */
  readonly skipRows: number;
  /** How to continue after a stop, for the message that ends an interrupted run. */
  readonly resumeHint: string;
  /** What the sink writes: the run's layout, appending or not. */
  readonly layout: OutputLayout;
  close(): Promise<void>;
}

const EXTENSION_FORMATS: Record<string, Format> = { '.csv': 'csv', '.json': 'json', '.jsonl': 'jsonl', '.ndjson': 'jsonl' };

/** `written`: what the run writes, so that a file it cannot continue is refused before it is touched. */
export async function openOutput(req: RunRequest, settings: Settings, world: World, written: Omit<OutputLayout, 'appending'>): Promise<OutputTarget> {
  const inputIsCsv = written.inputColumns !== null;
  const path = req.output === undefined || req.output === '-' ? undefined : resolve(world.cwd, req.output);
  const toTerminal = path === undefined && world.stdout.isTTY === true;
  const format: Format =
    settings.format ??
    (path ? EXTENSION_FORMATS[extname(path).toLowerCase()] : undefined) ??
    (toTerminal ? 'table' : inputIsCsv ? 'csv' : 'jsonl');

  const style: SinkStyle = { color: useColor(req, world, toTerminal), rawCsv: req.rawCsv, width: world.stdout.columns ?? (Number(world.env.COLUMNS) || undefined) };
  const resumeHint = !path
    ? 'write to a file with -o <file> (csv or jsonl) to make a run resumable'
    : format === 'csv' || format === 'jsonl'
      ? `run the same command again with --resume to continue ${req.output}`
      : `${format} output cannot be resumed: write csv or jsonl (-f) to make a run resumable`;

  if (!path) {
    if (req.resume) throw usageError('--resume needs the output file of the interrupted run', 'give it with -o <file>');
    return {
      format,
      stream: world.stdout,
      style,
      skipRows: 0,
      resumeHint,
      layout: { ...written, appending: false },
      close: async () => {},
    };
  }

  let skipRows = 0;
  let appending = false;
  if (req.resume) {
    if (format !== 'csv' && format !== 'jsonl') {
      throw usageError(`--resume works with csv and jsonl output, not ${format}`, 'use -f csv or -f jsonl');
    }
    const { inspectOutputForResume, truncateForResume } = await import('../pipeline/resume.js');
    const found = await inspectOutputForResume(path, format);
    // Refused before anything is cut or opened, so the file stays as the interrupted run left it.
    const differs =
      format === 'csv'
        ? found.header !== undefined && csvHeader({ ...written, appending: true }).join('\u0000') !== found.header.join('\u0000')
        : found.first !== undefined && !recordFits(found.first, written);
    if (differs) {
      throw usageError(
        `cannot resume ${req.output}: ${format === 'csv' ? 'its columns differ from' : 'its records differ from'} what this command writes`,
        'resume with the same command, input and options as the interrupted run',
      );
    }
    // An empty or missing file needs no cutting: it is opened for writing afresh below.
    if (found.validBytes > 0) {
      await truncateForResume(path, found.validBytes).catch((err: Error) => {
        throw usageError(`cannot resume ${req.output}: ${err.message}`);
      });
    }
    skipRows = found.rows;
    appending = found.validBytes > 0;
  }
  const stream = createWriteStream(path, { flags: appending ? 'a' : 'w' });
  await Promise.race([
    once(stream, 'open'),
    once(stream, 'error').then(([err]) => {
      throw usageError(`cannot write ${req.output}: ${(err as Error).message}`);
    }),
  ]);
  return {
    format,
    stream,
    style,
    skipRows,
    resumeHint,
    layout: { ...written, appending },
    close: async () => {
      stream.end();
      await once(stream, 'close');
    },
  };
}

/**
 * Whether a record of a resumed JSON-lines file is what this run writes: the same command (lookup
 * kind, or enrich's kinds), CSV rows with the same columns or none, and each result's optional
 * parts present exactly when their option is on.
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
    const active = new Set(activeFields(d, layout.options).map((f) => f.name));
    return d.fields.every((f) => !f.option || active.has(f.name) === f.name in result);
  });
}


/** Colour only on a terminal, never with NO_COLOR, TERM=dumb or --no-color; CLICOLOR_FORCE=1 forces it. */
export function useColor(req: Pick<RunRequest, 'color'>, world: World, toTerminal: boolean): boolean {
  if (req.color === false || (world.env.NO_COLOR ?? '') !== '') return false;
  if (world.env.CLICOLOR_FORCE === '1') return true;
  return toTerminal && world.env.TERM !== 'dumb';
}
