import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { NumintelError } from '../../../src/core/errors.js';
import { inspectOutputForResume, truncateForResume } from '../../../src/pipeline/order/resume.js';
import { tempDir } from '../../support/tmp.js';

const dir = tempDir('numintel-resume-');

async function file(name: string, content: string | Buffer): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, content);
  return path;
}

const HEADER = 'input,number,lrn,error\n';
const ROW1 = '2015550123,12015550123,12015550000,\n';
const ROW2 = '"(201) 555-0124",12015550124,,"invalid_number: ""x"", y"\n';

describe('CSV output', () => {
  it('counts complete rows after the header', async () => {
    const path = await file('whole.csv', HEADER + ROW1 + ROW2);
    expect(await inspectOutputForResume(path, 'csv')).toEqual({
      rows: 2,
      validBytes: Buffer.byteLength(HEADER + ROW1 + ROW2),
      header: ['input', 'number', 'lrn', 'error'],
    });
  });

  it('leaves out a torn last line', async () => {
    const path = await file('torn.csv', `${HEADER}${ROW1}2015550125,120155`);
    expect(await inspectOutputForResume(path, 'csv')).toMatchObject({ rows: 1, validBytes: Buffer.byteLength(HEADER + ROW1) });
  });

  it('leaves out a quoted cell torn after its embedded newline', async () => {
    const path = await file('torn-quoted.csv', `${HEADER}${ROW1}2015550125,12015550125,"Acme\nCorp`);
    expect(await inspectOutputForResume(path, 'csv')).toMatchObject({ rows: 1, validBytes: Buffer.byteLength(HEADER + ROW1) });
  });

  it('counts a complete quoted cell with an embedded newline as one row', async () => {
    const row = '2015550125,12015550125,"Acme\r\nCorp",\n';
    const path = await file('quoted.csv', HEADER + row + ROW1);
    expect(await inspectOutputForResume(path, 'csv')).toMatchObject({ rows: 2, validBytes: Buffer.byteLength(HEADER + row + ROW1) });
  });

  it('has only a header, or a torn header', async () => {
    expect(await inspectOutputForResume(await file('header.csv', HEADER), 'csv')).toEqual({ rows: 0, validBytes: HEADER.length, header: ['input', 'number', 'lrn', 'error'] });
    expect(await inspectOutputForResume(await file('torn-header.csv', 'input,num'), 'csv')).toEqual({ rows: 0, validBytes: 0 });
  });

  it('reads the header with the comma the CSV output writes', async () => {
    const path = await file('semi.csv', 'input;number\n2015550123;12015550123\n');
    expect(await inspectOutputForResume(path, 'csv')).toMatchObject({ rows: 1, header: ['input;number'] });
  });

  it('finds the end in a large file read in many chunks', async () => {
    const rows = 50_000;
    const body = Array.from({ length: rows }, (_, i) => `${i},"name ${i}, ""q""\nline",x\n`).join('');
    const path = await file('big.csv', `a,b,c\n${body}${rows},"torn`);
    expect(await inspectOutputForResume(path, 'csv')).toMatchObject({ rows, validBytes: Buffer.byteLength(`a,b,c\n${body}`), header: ['a', 'b', 'c'] });
  });
});

describe('jsonl output', () => {
  const rec = (n: number) => `${JSON.stringify({ input: `20155501${n}`, ok: true, result: { note: 'a\nb' } })}\n`;

  it('counts complete JSON lines and leaves out a torn one', async () => {
    const path = await file('torn.jsonl', `${rec(10)}${rec(11)}{"input":"2015`);
    const first = JSON.parse(rec(10)) as Record<string, unknown>;
    expect(await inspectOutputForResume(path, 'jsonl')).toEqual({ rows: 2, validBytes: Buffer.byteLength(rec(10) + rec(11)), first });
  });

  it('leaves out a last record that lacks its newline, even when it parses', async () => {
    const path = await file('no-newline.jsonl', `${rec(10)}${rec(11).trimEnd()}`);
    expect(await inspectOutputForResume(path, 'jsonl')).toEqual({ rows: 1, validBytes: Buffer.byteLength(rec(10)), first: JSON.parse(rec(10)) as Record<string, unknown> });
  });

  it('stops at a complete line that is not JSON', async () => {
    const path = await file('garbled.jsonl', `${rec(10)}{"input":\n${rec(12)}`);
    expect(await inspectOutputForResume(path, 'jsonl')).toEqual({ rows: 1, validBytes: Buffer.byteLength(rec(10)), first: JSON.parse(rec(10)) as Record<string, unknown> });
  });

  it('handles multi-byte text and many chunks', async () => {
    const line = `${JSON.stringify({ input: '2015550123', name: 'Zoë Ñúñez'.repeat(50) })}\n`;
    const content = line.repeat(2_000);
    const path = await file('wide.jsonl', `${content}{"torn":"Zo`);
    expect(await inspectOutputForResume(path, 'jsonl')).toMatchObject({ rows: 2_000, validBytes: Buffer.byteLength(content) });
  });
});

describe('files that are not there', () => {
  it('reads a missing or empty file as nothing written', async () => {
    expect(await inspectOutputForResume(join(dir, 'absent.csv'), 'csv')).toEqual({ rows: 0, validBytes: 0 });
    expect(await inspectOutputForResume(await file('empty.jsonl', ''), 'jsonl')).toEqual({ rows: 0, validBytes: 0 });
    expect(await inspectOutputForResume(await file('empty.csv', ''), 'csv')).toEqual({ rows: 0, validBytes: 0 });
  });

  it('refuses a directory as a usage error', async () => {
    const path = join(dir, 'a-dir');
    await mkdir(path);
    const err = await inspectOutputForResume(path, 'jsonl').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NumintelError);
    expect((err as NumintelError).message).toBe(`cannot read ${path}: it is a directory`);
  });
});

describe('truncateForResume', () => {
  it('cuts the torn tail so appending continues a whole file', async () => {
    const path = await file('cut.csv', `${HEADER}${ROW1}2015550125,"Acme\nCo`);
    const { validBytes } = await inspectOutputForResume(path, 'csv');
    await truncateForResume(path, validBytes);
    expect(await readFile(path, 'utf8')).toBe(HEADER + ROW1);
  });
});
