// --resume: how much of an interrupted output file is whole. The run that wrote it may have died
// mid-write, so the last record can be torn (half a line, or a quoted cell cut after its embedded
// newline); only complete records count, and the caller truncates the file to `validBytes` before
// appending. One streaming pass, so a million-row output costs no memory.
// fs.promises, not node:fs/promises: the module loads on first use, not with every run's start-up.
import { createReadStream, promises as fs } from 'node:fs';
import { parse } from 'csv-parse/sync';
import { isObject } from '../core/json.js';
import { CsvRecordScanner } from './csv-scan.js';
import { readError } from './source-errors.js';

export interface ResumePoint {
  /** Complete data rows in the file (a CSV header is not one). */
  readonly rows: number;
  /** Bytes of the file up to the end of its last complete record. */
  readonly validBytes: number;
  /** The CSV header, when the file has a complete one. */
  readonly header?: string[];
  /** JSON lines: the first record, when it is an object (to check what wrote the file). */
  readonly first?: Record<string, unknown>;
}

/** The header line is kept only up to this size; a longer one is no header numintel wrote. */
const MAX_HEADER = 1 << 20;
/** The CSV output's delimiter. */
const DELIMITER = ',';

export async function inspectOutputForResume(path: string, format: 'csv' | 'jsonl'): Promise<ResumePoint> {
  const chunks = createReadStream(path);
  try {
    return format === 'csv' ? await inspectCsv(chunks) : await inspectJsonl(chunks);
  } catch (err) {
    if ((err as { code?: unknown }).code === 'ENOENT') return { rows: 0, validBytes: 0 };
    throw readError(err, path);
  } finally {
    chunks.destroy();
  }
}

/** Cuts the torn tail off before appending. */
export async function truncateForResume(path: string, validBytes: number): Promise<void> {
  await fs.truncate(path, validBytes);
}

async function inspectCsv(chunks: AsyncIterable<Buffer>): Promise<ResumePoint> {
  const scanner = new CsvRecordScanner(DELIMITER);
  let records = 0;
  let validBytes = 0;
  let headerEnd = -1;
  const head: Buffer[] = [];
  const onRecord = (end: number, hasContent: boolean) => {
    validBytes = end;
    if (!hasContent) return;
    if (records === 0) headerEnd = end;
    records++;
  };
  for await (const chunk of chunks) {
    if (headerEnd === -1 && scanner.offset < MAX_HEADER) head.push(chunk);
    scanner.scan(chunk, onRecord);
  }
  if (records === 0) return { rows: 0, validBytes };
  const header = headerEnd <= MAX_HEADER ? parseHeader(Buffer.concat(head).subarray(0, headerEnd)) : undefined;
  return { rows: records - 1, validBytes, ...(header && { header }) };
}

function parseHeader(bytes: Buffer): string[] | undefined {
  try {
    const [header] = parse(bytes, { delimiter: DELIMITER, bom: true, relax_quotes: true, skip_empty_lines: true }) as string[][];
    return header;
  } catch {
    return undefined;
  }
}

async function inspectJsonl(chunks: AsyncIterable<Buffer>): Promise<ResumePoint> {
  let rows = 0;
  let validBytes = 0;
  let offset = 0;
  let line: Buffer[] = [];
  let first: Record<string, unknown> | undefined;
  const done = () => (first ? { rows, validBytes, first } : { rows, validBytes });
  for await (const chunk of chunks) {
    let from = 0;
    for (let lf = chunk.indexOf(0x0a); lf !== -1; lf = chunk.indexOf(0x0a, from)) {
      line.push(chunk.subarray(from, lf));
      const text = Buffer.concat(line).toString('utf8').trim();
      line = [];
      from = lf + 1;
      // A complete line that is not JSON was torn by an earlier interrupted run: everything from
      // here on is redone, so the rows counted must stop here too.
      if (text !== '') {
        const record = parsed(text);
        if (record === NOT_JSON) return done();
        if (rows++ === 0 && isObject(record)) first = record;
      }
      validBytes = offset + from;
    }
    line.push(chunk.subarray(from));
    offset += chunk.length;
  }
  return done();
}

const NOT_JSON = Symbol('not JSON');

function parsed(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return NOT_JSON;
  }
}
