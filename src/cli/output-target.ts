// Where records go and in which format: stdout or -o <file>, with --resume continuing a file
// after its last complete row.
import { createWriteStream } from 'node:fs';
import { truncate } from 'node:fs/promises';
import { extname, resolve } from 'node:path';
import { once } from 'node:events';
import type { Writable } from 'node:stream';
import { usageError } from '../core/errors.js';
import { inspectOutputForResume } from '../pipeline/resume.js';
import { csvHeader } from '../output/csv-layout.js';
import type { OutputLayout, SinkStyle } from '../output/sink.js';
import type { Settings } from '../settings/resolve.js';
import type { Format, RunRequest } from './run-request.js';
import type { World } from './world.js';

export interface OutputTarget {
  readonly format: Format;
  readonly stream: Writable;
  readonly style: SinkStyle;
  /** Input rows already in the output file (--resume): the source skips them. */
  readonly skipRows: number;
  /** The file already holds a header / rows: write none again. */
  readonly appending: boolean;
  /** How to continue after a stop, for the message that ends an interrupted run. */
  readonly resumeHint: string;
  /** Refuses to resume a file whose CSV header another command or other options wrote. */
  checkLayout(layout: OutputLayout): Promise<void>;
  close(): Promise<void>;
}

const EXTENSION_FORMATS: Record<string, Format> = { '.csv': 'csv', '.json': 'json', '.jsonl': 'jsonl', '.ndjson': 'jsonl' };

export async function openOutput(
  req: RunRequest,
  settings: Settings,
  world: World,
  inputIsCsv: boolean,
): Promise<OutputTarget> {
  const path = req.output === undefined || req.output === '-' ? undefined : resolve(world.cwd, req.output);
  const toTerminal = path === undefined && world.stdout.isTTY === true;
  const format: Format =
    req.format ??
    settings.format ??
    (path ? EXTENSION_FORMATS[extname(path).toLowerCase()] : undefined) ??
    (toTerminal ? 'table' : inputIsCsv ? 'csv' : 'jsonl');

  const style: SinkStyle = { color: useColor(req, world, toTerminal), rawCsv: req.rawCsv, width: world.stdout.columns };
  const resumeHint = path
    ? `run the same command again with --resume to continue ${req.output}`
    : 'write to a file with -o <file> to make a run resumable';

  if (!path) {
    return {
      format,
      stream: world.stdout,
      style,
      skipRows: 0,
      appending: false,
      resumeHint,
      checkLayout: async () => {},
      close: async () => {},
    };
  }

  let skipRows = 0;
  let appending = false;
  let header: string[] | undefined;
  if (req.resume) {
    if (format !== 'csv' && format !== 'jsonl') {
      throw usageError(`--resume works with csv and jsonl output, not ${format}`, 'use -f csv or -f jsonl');
    }
    const found = await inspectOutputForResume(path, format);
    await truncate(path, found.validBytes).catch((err: NodeJS.ErrnoException) => {
      if (err.code !== 'ENOENT') throw usageError(`cannot resume ${req.output}: ${err.message}`);
    });
    skipRows = found.rows;
    appending = found.validBytes > 0;
    header = found.header;
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
    appending,
    resumeHint,
    checkLayout: async (layout) => {
      if (!header || format !== 'csv') return;
      const expected = csvHeader(layout);
      if (expected.join('\u0000') !== header.join('\u0000')) {
        stream.destroy();
        throw usageError(
          `cannot resume ${req.output}: its columns differ from what this command writes`,
          'resume with the same command, input and options as the interrupted run',
        );
      }
    },
    close: async () => {
      stream.end();
      await once(stream, 'close');
    },
  };
}

/** Colour only on a terminal, never with NO_COLOR, TERM=dumb or --no-color; CLICOLOR_FORCE=1 forces it. */
function useColor(req: RunRequest, world: World, toTerminal: boolean): boolean {
  if (req.color === false || (world.env.NO_COLOR ?? '') !== '') return false;
  if (world.env.CLICOLOR_FORCE === '1') return true;
  return toTerminal && world.env.TERM !== 'dumb';
}
