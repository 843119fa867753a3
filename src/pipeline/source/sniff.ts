// Is the input text at all? A workbook, an archive or a PDF given as -i would otherwise be read as
// a list of garbage "numbers" (every line an invalid_number row) or fail deep in the CSV parser, so
// its first bytes are checked against the few formats people actually pass by mistake, and the
// error says what to do instead. UTF-16 text with a byte-order mark (Excel's "Unicode Text") is
// text: it is decoded to UTF-8 here, so the rest of the reader sees UTF-8 like every other input.
// A handful of signatures, not a general file-type detector: that would cost every run start-up
// for the sake of naming formats nobody mistakes for a phone list.
import { InputError, type NumintelError } from '../../core/errors.js';

/** Enough bytes for every signature below (a ZIP is looked into further, see ZIP_LOOK). */
const SIGNATURE_BYTES = 16;
/** How much of a ZIP is searched for the names that tell a workbook from any archive. */
const ZIP_LOOK = 4096;
/** How much of the start is searched for NUL bytes, which text never has. */
const NUL_LOOK = 8192;

const SAVE_AS_CSV = 'save it as CSV (File › Save As › CSV UTF-8) and pass that';

interface Signature {
  readonly bytes: readonly number[];
  readonly what: string;
  readonly todo: string;
}

const ascii = (text: string) => [...text].map((c) => c.charCodeAt(0));

const SIGNATURES: readonly Signature[] = [
  { bytes: [0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1], what: 'an Excel 97-2003 workbook (XLS) or another Office document', todo: SAVE_AS_CSV },
  { bytes: [0x1f, 0x8b], what: 'a gzip-compressed file', todo: 'decompress it first, e.g. gunzip -c <file> | numintel …' },
  // Block size 9, bzip2's default (and -9); other levels are rare enough to fall to the NUL check.
  { bytes: [...ascii('BZh9')], what: 'a bzip2-compressed file', todo: 'decompress it first, e.g. bunzip2 -c <file> | numintel …' },
  { bytes: [0xfd, ...ascii('7zXZ'), 0x00], what: 'an xz-compressed file', todo: 'decompress it first, e.g. xz -dc <file> | numintel …' },
  { bytes: [0x28, 0xb5, 0x2f, 0xfd], what: 'a zstd-compressed file', todo: 'decompress it first, e.g. zstd -dc <file> | numintel …' },
  { bytes: [...ascii('7z'), 0xbc, 0xaf, 0x27, 0x1c], what: 'a 7-Zip archive', todo: 'extract the CSV or list inside and pass that' },
  { bytes: [...ascii('Rar!'), 0x1a, 0x07], what: 'a RAR archive', todo: 'extract the CSV or list inside and pass that' },
  { bytes: [...ascii('%PDF-')], what: 'a PDF document', todo: 'export the numbers as CSV or a plain list (one per line) and pass that' },
];

const ZIP = ascii('PK');
const LOCAL_FILE = [...ZIP, 0x03, 0x04];
const EMPTY_ZIP = [...ZIP, 0x05, 0x06];
const UTF16LE_BOM = [0xff, 0xfe];
const UTF16BE_BOM = [0xfe, 0xff];

const startsWith = (head: Buffer, bytes: readonly number[]) => head.length >= bytes.length && bytes.every((b, i) => head[i] === b);

/** What the start of an input says it is: text in some encoding, or a format that is no input. */
export type Sniffed = { readonly text: 'utf8' | 'utf-16le' | 'utf-16be' } | { readonly refuse: string };

/** Decides from the first bytes (as many as arrived, at least SIGNATURE_BYTES unless the input is shorter). */
export function sniffInput(head: Buffer): Sniffed {
  if (startsWith(head, [0xff, 0xfe, 0x00, 0x00])) return { refuse: 'it is UTF-32 text; save it as UTF-8 (CSV UTF-8) and pass that' };
  if (startsWith(head, UTF16LE_BOM)) return { text: 'utf-16le' };
  if (startsWith(head, UTF16BE_BOM)) return { text: 'utf-16be' };
  if (startsWith(head, LOCAL_FILE) || startsWith(head, EMPTY_ZIP)) return { refuse: `it looks like ${zipKind(head.subarray(0, ZIP_LOOK).toString('latin1'))}` };
  for (const s of SIGNATURES) if (startsWith(head, s.bytes)) return { refuse: `it looks like ${s.what}; ${s.todo}` };
  const start = head.subarray(0, NUL_LOOK);
  if (start.includes(0x00)) {
    // Every other byte NUL: UTF-16 that lost (or never had) its byte-order mark.
    const odd = start.length >= 4 && start[1] === 0 && start[3] === 0;
    const even = start.length >= 4 && start[0] === 0 && start[2] === 0;
    if (odd || even) return { refuse: 'it looks like UTF-16 text without a byte-order mark; save it as UTF-8 (CSV UTF-8) and pass that' };
    return { refuse: 'it is a binary file (it holds NUL bytes), not a list of numbers or CSV; pass the numbers as text, one per line, or as CSV' };
  }
  return { text: 'utf8' };
}

/**
 * Office files are ZIP archives; the names of their first entries say which kind. (A writer may
 * put [Content_Types].xml first and the telling folder later, hence the generic Office case.)
 */
function zipKind(names: string): string {
  if (names.includes('opendocument.spreadsheet')) return 'an OpenDocument spreadsheet (ODS); save it as CSV (File › Save As › Text CSV) and pass that';
  if (names.includes('xl/')) return 'an Excel workbook (XLSX), which numintel reads from a file: give it with -i <file>.xlsx';
  if (names.includes('word/')) return 'a Word document (DOCX); copy the numbers into a text file, one per line, or a CSV, and pass that';
  if (names.includes('[Content_Types].xml')) return `an Office document (XLSX, DOCX, ...); if it is a workbook, ${SAVE_AS_CSV}`;
  return 'a ZIP archive; extract the CSV or list inside and pass that';
}

/** True when `head` (the first ZIP_LOOK bytes or all there are) starts an Excel workbook. */
export function isWorkbookStart(head: Buffer): boolean {
  return startsWith(head, LOCAL_FILE) && head.subarray(0, ZIP_LOOK).toString('latin1').includes('xl/');
}

/** Bytes needed before sniffing: a ZIP is looked into a little further than other inputs. */
function enough(head: Buffer): boolean {
  if (startsWith(head, ZIP)) return head.length >= ZIP_LOOK;
  // A short first line decides as it is: a slow producer's first number must not wait for more.
  return head.length >= SIGNATURE_BYTES || head.includes(0x0a);
}

/**
 * The input as UTF-8 text: refused with a usage error that says what to do when it is no text,
 * UTF-16 decoded, anything else passed through untouched.
 */
export async function* textInput(input: AsyncIterable<Buffer | string>, label: string): AsyncGenerator<Buffer> {
  const chunks = input[Symbol.asyncIterator]();
  let head = Buffer.alloc(0);
  let ended = false;
  try {
    while (!enough(head)) {
      const next = await chunks.next();
      if (next.done) {
        ended = true;
        break;
      }
      head = Buffer.concat([head, typeof next.value === 'string' ? Buffer.from(next.value) : next.value]);
    }
    const sniffed = sniffInput(head);
    if ('refuse' in sniffed) throw refused(label, sniffed.refuse);
    if (sniffed.text === 'utf8') {
      // Checked, not decoded: a byte that is not UTF-8 (a Latin-1 "é") would otherwise become
      // U+FFFD in the columns passed through, silently changing the user's data.
      const check = utf8Checker(label);
      if (head.length > 0) yield check(head, !ended);
      if (ended) return;
      for (let next = await chunks.next(); !next.done; next = await chunks.next()) {
        yield check(typeof next.value === 'string' ? Buffer.from(next.value) : next.value, true);
      }
      check(Buffer.alloc(0), false);
      return;
    }
    // The decoder drops the byte-order mark and holds a character split across chunks.
    const decoder = new TextDecoder(sniffed.text);
    const utf8 = (bytes: Buffer, more: boolean) => Buffer.from(decoder.decode(bytes, { stream: more }), 'utf8');
    if (ended) {
      yield utf8(head, false);
      return;
    }
    yield utf8(head, true);
    for (let next = await chunks.next(); !next.done; next = await chunks.next()) {
      yield utf8(typeof next.value === 'string' ? Buffer.from(next.value) : next.value, true);
    }
    yield utf8(Buffer.alloc(0), false);
  } finally {
    await chunks.return?.();
  }
}

/** Passes each chunk through, or throws naming the line of the first byte that is not UTF-8. */
function utf8Checker(label: string): (chunk: Buffer, more: boolean) => Buffer {
  const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
  let lines = 1;
  // The last character of the previous chunk, from its lead byte: it may be the one cut short.
  let tail: Buffer = Buffer.alloc(0);
  return (chunk, more) => {
    try {
      decoder.decode(chunk, { stream: more });
    } catch {
      const bytes = Buffer.concat([tail, chunk]);
      const at = firstInvalid(bytes);
      for (let i = bytes.indexOf(0x0a, tail.length); i !== -1 && i < at; i = bytes.indexOf(0x0a, i + 1)) lines++;
      const byte = bytes[at];
      const what = byte === undefined ? 'ends inside a character' : `has the byte 0x${byte.toString(16).toUpperCase().padStart(2, '0')}`;
      throw new InputError(`cannot read ${label}: line ${lines} ${what}, which is not UTF-8`, 'save it as UTF-8 (CSV UTF-8), or convert it, e.g. iconv -f latin1 -t utf-8');
    }
    for (let i = chunk.indexOf(0x0a); i !== -1; i = chunk.indexOf(0x0a, i + 1)) lines++;
    let lead = chunk.length - 1;
    while (lead > 0 && lead > chunk.length - 4 && ((chunk[lead] as number) & 0xc0) === 0x80) lead--;
    tail = lead >= 0 && ((chunk[lead] as number) & 0x80) !== 0 ? chunk.subarray(lead) : Buffer.alloc(0);
    return chunk;
  };
}

/** Where the first byte of `bytes` that cannot start or continue a UTF-8 character is (or its length). */
function firstInvalid(bytes: Buffer): number {
  for (let i = 0; i < bytes.length; ) {
    const b = bytes[i] as number;
    const n = b < 0x80 ? 1 : b >= 0xc2 && b <= 0xdf ? 2 : b >= 0xe0 && b <= 0xef ? 3 : b >= 0xf0 && b <= 0xf4 ? 4 : 0;
    if (n === 0) return i;
    for (let k = 1; k < n; k++) {
      const c = bytes[i + k];
      if (c === undefined) return bytes.length;
      if ((c & 0xc0) !== 0x80) return i;
    }
    i += n;
  }
  return bytes.length;
}

function refused(label: string, why: string): NumintelError {
  return new InputError(`cannot read ${label}: ${why}`);
}
