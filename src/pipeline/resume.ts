// --resume: how much of an interrupted output file is whole. The run that wrote it may have died
// mid-write, so the last record can be torn (half a line, or a quoted cell cut after its embedded
// newline); only complete records count, and the caller truncates the file to `validBytes` before
// appending. One streaming pass, so a million-row output costs no memory.
import { createReadStream } from 'node:fs';
import { truncate } from 'node:fs/promises';
import { parse } from 'csv-parse/sync';
import { CsvRecordScanner } from './csv-scan.js';
import { readError } from './source-errors.js';

export interface ResumePoint {
  /** Complete data rows in the file (a CSV header is not one). */
  readonly rows: number;
  /** Bytes of the file up to the end of its last complete record. */
  readonly validBytes: number;
  /** The CSV header, when the file has a complete one. */
  readonly header?: string[];
}

export interface InspectOptions {
  /** The CSV output's delimiter; `,` unless said otherwise. */
  readonly delimiter?: string;
}

/** The header line is kept only up to this size; a longer one is no header numintel wrote. */
const MAX_HEADER = 1 << 20;

export async function inspectOutputForResume(path: string, format: 'csv' | 'jsonl', opts: InspectOptions = {}): Promise<ResumePoint> {
  const chunks = createReadStream(path);
  try {
    return format === 'csv' ? await inspectCsv(chunks, opts.delimiter ?? ',') : await inspectJsonl(chunks);
  } catch (err) {
    if ((err as { code?: unknown }).code === 'ENOENT') return { rows: 0, validBytes: 0 };
    throw readError(err, path);
  } finally {
    chunks.destroy();
  }
}

/** Cuts the torn tail off before appending. */
export async function truncateForResume(path: string, validBytes: number): Promise<void> {
  await truncate(path, validBytes);
}

async function inspectCsv(chunks: AsyncIterable<Buffer>, delimiter: string): Promise<ResumePoint> {
  const scanner = new CsvRecordScanner(delimiter);
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
  const header = headerEnd <= MAX_HEADER ? parseHeader(Buffer.concat(head).subarray(0, headerEnd), delimiter) : undefined;
  return { rows: records - 1, validBytes, ...(header && { header }) };
}

function parseHeader(bytes: Buffer, delimiter: string): string[] | undefined {
  try {
    const [header] = parse(bytes, { delimiter, bom: true, relax_quotes: true, skip_empty_lines: true }) as string[][];
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
  for await (const chunk of chunks) {
    let from = 0;
    for (let lf = chunk.indexOf(0x0a); lf !== -1; lf = chunk.indexOf(0x0a, from)) {
      line.push(chunk.subarray(from, lf));
      const text = Buffer.concat(line).toString('utf8').trim();
      line = [];
      from = lf + 1;
      // A complete line that is not JSON was torn by an earlier interrupted run: everything from
      // here on is redone, so the rows counted must stop here too.
      if (text !== '' && !isJson(text)) return { rows, validBytes };
      if (text !== '') rows++;
      validBytes = offset + from;
    }
    line.push(chunk.subarray(from));
    offset += chunk.length;
  }
  return { rows, validBytes };
}

function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/** The first record of a JSON-lines file (for checking that a resumed file is the same kind of output). */
export async function firstJsonlRecord(path: string): Promise<Record<string, unknown> | undefined> {
  const stream = createReadStream(path, { highWaterMark: 64 * 1024 });
  const head: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      const lf = chunk.indexOf(0x0a);
      head.push(lf === -1 ? chunk : chunk.subarray(0, lf));
      size += chunk.length;
      if (lf !== -1 || size > MAX_HEADER) break;
    }
  } finally {
    stream.destroy();
  }
  try {
    const value: unknown = JSON.parse(Buffer.concat(head).toString('utf8'));
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}
