// What an input's first bytes say: text (UTF-8, or UTF-16 decoded to it) or a file that is no input
// at all, refused with what to do. Through openSource too, so a list, a CSV and stdin all get it.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { gzipSync } from 'node:zlib';
import { beforeAll, describe, expect, it } from 'vitest';
import { openSource } from '../../../src/pipeline/source/source.js';
import { sniffInput, textInput } from '../../../src/pipeline/source/sniff.js';
import { collect, inputs, io, usageFailure } from './helpers.js';
import { xlsx, zipOf } from './zip-fixture.js';
import { tempDir } from '../../support/tmp.js';

const refusal = (bytes: Buffer) => {
  const sniffed = sniffInput(bytes);
  return 'refuse' in sniffed ? sniffed.refuse : undefined;
};

async function text(chunks: (Buffer | string)[]): Promise<string> {
  const out: Buffer[] = [];
  for await (const chunk of textInput(Readable.from(chunks), 'in')) out.push(chunk);
  return Buffer.concat(out).toString('utf8');
}

describe('sniffInput', () => {
  it.each([
    ['an XLSX workbook', xlsx(), /Excel workbook \(XLSX\), which numintel reads from a file: give it with -i <file>\.xlsx/],
    ['an ODS spreadsheet', zipOf({ mimetype: 'application/vnd.oasis.opendocument.spreadsheet' }), /OpenDocument spreadsheet \(ODS\)/],
    ['a DOCX document', zipOf({ '[Content_Types].xml': '<Types/>', 'word/document.xml': '<w/>' }), /Word document \(DOCX\)/],
    ['any other ZIP', zipOf({ 'numbers.csv': 'phone\n12015550123\n' }), /ZIP archive; extract the CSV or list inside/],
    ['an empty ZIP', zipOf({}), /ZIP archive/],
    ['gzip', gzipSync('12015550123\n'), /gzip-compressed file; decompress it first, e.g. gunzip -c/],
    ['an XLS / OLE2 file', Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1, 0, 0, 0, 0]), /Excel 97-2003 workbook \(XLS\)/],
    ['a PDF', Buffer.from('%PDF-1.7\n%\xe2\xe3\n'), /PDF document/],
    ['xz', Buffer.from([0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00, 0x00]), /xz-compressed/],
    ['zstd', Buffer.from([0x28, 0xb5, 0x2f, 0xfd, 0x20]), /zstd-compressed/],
    ['bzip2', Buffer.from('BZh91AY&SY\x01\x02'), /bzip2-compressed/],
    ['7-Zip', Buffer.from([0x37, 0x7a, 0xbc, 0xaf, 0x27, 0x1c, 0, 4]), /7-Zip archive/],
    ['RAR', Buffer.from('Rar!\x1a\x07\x01\x00'), /RAR archive/],
    ['a PNG (NUL bytes)', Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d]), /binary file \(it holds NUL bytes\)/],
    ['UTF-16 without a byte-order mark', Buffer.from('12015550123\n', 'utf16le'), /UTF-16 text without a byte-order mark; save it as UTF-8/],
    ['UTF-32 with a byte-order mark', Buffer.from([0xff, 0xfe, 0, 0, 0x31, 0, 0, 0]), /UTF-32 text/],
  ])('refuses %s with what to do', (_, bytes, message) => {
    expect(refusal(bytes)).toMatch(message);
  });

  it.each([
    ['a list', '12015550123\n2015550124\n'],
    ['a CSV with a UTF-8 byte-order mark', '\ufeffphone,name\n12015550123,Zoë\n'],
    ['an empty input', ''],
    ['text that merely starts like a signature', 'PK,phone\nBZ,12015550123\n'],
  ])('passes %s as UTF-8 text', (_, content) => {
    expect(sniffInput(Buffer.from(content))).toEqual({ text: 'utf8' });
  });

  it('takes UTF-16 with a byte-order mark as text, little- and big-endian', () => {
    expect(sniffInput(Buffer.from('\ufeff1', 'utf16le'))).toEqual({ text: 'utf-16le' });
    expect(sniffInput(Buffer.from('\ufeff1', 'utf16le').swap16())).toEqual({ text: 'utf-16be' });
  });
});

describe('textInput', () => {
  it('passes UTF-8 through byte for byte', async () => {
    expect(await text(['phone\n', '12015550123\n', '2015550124'])).toBe('phone\n12015550123\n2015550124');
  });

  it('decodes UTF-16LE and BE, the byte-order mark dropped, a character split across chunks kept whole', async () => {
    const content = 'phone,name\n12015550123,Zoë 😀\n';
    const le = Buffer.from(`\ufeff${content}`, 'utf16le');
    const be = Buffer.from(le).swap16();
    // Cut inside a code unit and inside the surrogate pair.
    const cuts = (b: Buffer) => [b.subarray(0, 3), b.subarray(3, le.length - 7), b.subarray(le.length - 7, le.length - 5), b.subarray(le.length - 5)];
    expect(await text(cuts(le))).toBe(content);
    expect(await text(cuts(be))).toBe(content);
  });

  it('lets a short first line through without waiting for more bytes (a slow producer on stdin)', async () => {
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    const slow = (async function* () {
      yield Buffer.from('1\n');
      await held;
      yield Buffer.from('2\n');
    })();
    const chunks = textInput(slow, 'standard input');
    expect((await chunks.next()).value?.toString()).toBe('1\n');
    release();
    expect((await chunks.next()).value?.toString()).toBe('2\n');
  });
});

describe('openSource refuses what is no text', () => {
  let dir: string;
  beforeAll(() => {
    dir = tempDir('numintel-sniff-');
  });

  it('an XLSX on standard input, saying to give it as a file', async () => {
    const err = await usageFailure(openSource({ args: [] }, io({ stdin: Object.assign(Readable.from([xlsx()]), { isTTY: false }) })));
    expect(err.message).toBe('cannot read standard input: it looks like an Excel workbook (XLSX), which numintel reads from a file: give it with -i <file>.xlsx');
  });

  it('a damaged XLSX given with -i (its parts are not a workbook\'s), naming the file and what to do', async () => {
    await writeFile(join(dir, 'leads.xlsx'), xlsx());
    const err = await usageFailure(openSource({ args: [], input: 'leads.xlsx' }, io({ cwd: dir })));
    expect(err.message).toMatch(/^cannot read leads\.xlsx as an Excel workbook: /);
    expect(err.hint).toMatch(/save it again from Excel/);
  });

  it('a gzip file on standard input', async () => {
    const err = await usageFailure(openSource({ args: [] }, io({ stdin: Object.assign(Readable.from([gzipSync('12015550123\n')]), { isTTY: false }) })));
    expect(err.message).toMatch(/^cannot read standard input: it looks like a gzip-compressed file/);
  });

  it('reads a UTF-16 CSV (Excel "Unicode Text") like its UTF-8 twin', async () => {
    await writeFile(join(dir, 'unicode.txt'), Buffer.from('\ufeffname\tphone\nZoë\t(201) 555-0123\nAl\t2015550124\n', 'utf16le'));
    const source = await openSource({ args: [], input: 'unicode.txt' }, io({ cwd: dir }));
    expect(source.kind).toBe('csv');
    expect(source.columns).toEqual(['name', 'phone']);
    // The progress total counts the decoded text too.
    expect(await source.countTotal()).toBe(2);
    const items = await collect(source.items);
    expect(inputs(items)).toEqual(['(201) 555-0123', '2015550124']);
    expect(items[0]?.row).toEqual({ name: 'Zoë', phone: '(201) 555-0123' });
  });
});
