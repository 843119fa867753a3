// Fuzzing the CSV and list readers (fast-check, bounded runs) through openSource, as a run reads
// stdin: random bytes, invalid UTF-8, UTF-16 with a BOM, huge lines, many columns, unbalanced
// quotes. Properties: nothing but a clear usage error is ever thrown, nothing hangs, and a
// well-formed file gives every row once, in order, however its bytes are cut into chunks.
import { Readable } from 'node:stream';
import fc from 'fast-check';
import { stringify } from 'csv-stringify/sync';
import { describe, expect, it } from 'vitest';
import { NumintelError } from '../../../src/core/errors.js';
import { hasBatches, type SourceItem } from '../../../src/core/run.js';
import { openSource, type SourceSpec } from '../../../src/pipeline/source/source.js';
import { collect, io } from './helpers.js';

/** A stdin pipe delivering `bytes` in the given chunk sizes. */
function chunked(bytes: Buffer, sizes: readonly number[]): Readable {
  const parts: Buffer[] = [];
  let at = 0;
  for (let i = 0; at < bytes.length; i++) {
    const n = Math.max(1, sizes[i % Math.max(1, sizes.length)] ?? bytes.length);
    parts.push(bytes.subarray(at, at + n));
    at += n;
  }
  return Readable.from(parts);
}

/** `batched`: read as the runner reads a CSV source, a batch at a time. */
async function readAll(bytes: Buffer, spec: Partial<SourceSpec> = {}, sizes: readonly number[] = [65536], batched = false) {
  const source = await openSource({ args: [], ...spec }, io({ stdin: chunked(bytes, sizes) }));
  try {
    if (batched && hasBatches(source.items)) {
      const items: SourceItem[] = [];
      for await (const batch of source.items.batches()) items.push(...batch);
      return { source, items };
    }
    return { source, items: await collect(source.items) };
  } finally {
    await source.close();
  }
}

/** Runs `read`; a thrown error must be a usage-class NumintelError with one clear line. */
async function onlyClearErrors(read: () => Promise<unknown>): Promise<void> {
  try {
    await read();
  } catch (err) {
    expect(err).toBeInstanceOf(NumintelError);
    expect((err as NumintelError).kind).toBe('usage');
    expect((err as NumintelError).message).not.toContain('\n');
  }
}

describe('CSV and list input under fuzzing', () => {
  it('random bytes, as a list or as CSV, never throw anything but a clear usage error', async () => {
    await fc.assert(
      fc.asyncProperty(fc.uint8Array({ maxLength: 2000 }), fc.boolean(), fc.array(fc.integer({ min: 1, max: 300 }), { minLength: 1, maxLength: 5 }), async (bytes, csv, sizes) => {
        await onlyClearErrors(() => readAll(Buffer.from(bytes), csv ? { csv: true } : {}, sizes));
      }),
      { numRuns: 300, seed: 1122 },
    );
  });

  it('text of quotes, delimiters and line breaks (unbalanced quotes included) never throws anything else', async () => {
    const unit = fc.constantFrom('"', ',', ';', '\t', '\n', '\r\n', 'a', '2015550123', ' ', '\u00e9', '\ufeff', '\u0000');
    await fc.assert(
      fc.asyncProperty(fc.array(unit, { maxLength: 300 }), fc.array(fc.integer({ min: 1, max: 50 }), { minLength: 1, maxLength: 4 }), async (parts, sizes) => {
        await onlyClearErrors(() => readAll(Buffer.from(`phone,name\n${parts.join('')}`), { csv: true }, sizes));
      }),
      { numRuns: 300, seed: 2211 },
    );
  });

  it('a well-formed CSV gives every row once, in order, whatever the chunking', async () => {
    const cell = fc.string({ unit: fc.constantFrom('a', 'b', ' ', ',', '"', '\n', 'é', '😀', '1'), maxLength: 12 });
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(fc.integer({ min: 0, max: 9999 }), cell, cell), { minLength: 1, maxLength: 40 }),
        fc.array(fc.integer({ min: 1, max: 64 }), { minLength: 1, maxLength: 4 }),
        async (rows, sizes) => {
          const records = rows.map(([n, a, b]) => [`201555${String(n).padStart(4, '0')}`, a, b]);
          const text = stringify([['phone', 'a', 'b'], ...records]);
          for (const batched of [false, true]) {
            const { items } = await readAll(Buffer.from(text), { csv: true }, sizes, batched);
            expect(items.map((i) => i.index)).toEqual(records.map((_, i) => i));
            expect(items.map((i) => [i.input, i.row?.a, i.row?.b])).toEqual(records);
          }
        },
      ),
      { numRuns: 200, seed: 3344 },
    );
  });

  it('many columns and long (but sane) lines are read whole', async () => {
    const header = Array.from({ length: 2000 }, (_, i) => `c${i}`);
    header[1500] = 'phone';
    const row = header.map((_, i) => (i === 1500 ? '2015550123' : 'x'.repeat(20)));
    const { items } = await readAll(Buffer.from(`${header.join(',')}\n${row.join(',')}\n`), { csv: true }, [997]);
    expect(items.map((i) => i.input)).toEqual(['2015550123']);
  });

  it('UTF-16 with a byte-order mark, LE and BE, reads as the same rows, without a phantom one', async () => {
    const text = 'phone,name\r\n2015550123,Zoë\r\n2015550124,Ann\r\n';
    const le = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]);
    const be = Buffer.from(le);
    be.swap16();
    for (const bytes of [le, be]) {
      const { items } = await readAll(bytes, { csv: true }, [7]);
      expect(items.map((i) => [i.input, i.row?.name])).toEqual([
        ['2015550123', 'Zoë'],
        ['2015550124', 'Ann'],
      ]);
    }
  });
});

describe('rows a stray quote would swallow', () => {
  it('two stray quotes 3,990 rows apart: refused, naming the line of the first, not one silent 74 KB cell', async () => {
    const lines = ['phone,name'];
    for (let i = 1; i <= 4000; i++) lines.push(`2015${String(550000 + i).padStart(6, '0')},${i === 10 ? '"Smith' : i === 4000 ? 'Jones"' : `name ${i}`}`);
    const csv = Buffer.from(`${lines.join('\n')}\n`);
    const err = await readAll(csv, { csv: true }, [4096]).then(
      () => undefined,
      (e: unknown) => e as NumintelError,
    );
    expect(err).toBeInstanceOf(NumintelError);
    expect(err?.code).toBe('NUMINTEL_INPUT');
    expect(err?.message).toBe('standard input is not valid CSV: a quoted field from line 11 spans more than 50 lines, swallowing the rows after it');
  });

  it('a quoted field spanning many lines is refused with its line number', async () => {
    const body = Array.from({ length: 80 }, (_, i) => `2015550${String(100 + i)},x`).join('\n');
    const csv = Buffer.from(`phone,note\n2015550001,ok\n2015550002,"open\n${body}\n2015550999,"closed\n`);
    const err = await readAll(csv, { csv: true }).then(
      () => undefined,
      (e: unknown) => e as NumintelError,
    );
    expect(err?.message).toBe('standard input is not valid CSV: a quoted field from line 3 spans more than 50 lines, swallowing the rows after it');
    expect(err?.hint).toContain('line 3');
  });

  it('a list line of megabytes (/dev/zero, a binary) is refused with its line number, not kept', async () => {
    const huge = Buffer.concat([Buffer.from('2015550123\n'), Buffer.alloc(200_000, 0x31)]);
    const err = await readAll(huge, {}, [8192]).then(
      () => undefined,
      (e: unknown) => e as NumintelError,
    );
    expect(err?.message).toMatch(/line 2 runs past 65536 characters/);
  });
});

describe('--delimiter', () => {
  it('is one character: two, a quote or a line break are refused before anything is read; tab, ";" and an emoji are fine', async () => {
    await expect(openSource({ args: [], delimiter: ';;' }, io({ stdin: chunked(Buffer.from('a;;b\n'), [10]) }))).rejects.toMatchObject({
      code: 'NUMINTEL_BAD_OPTION',
      message: '--delimiter must be one character, got ";;"',
    });
    for (const [d, message] of [
      ['"', '--delimiter cannot be "\\"": in CSV it quotes a field'],
      ['\n', '--delimiter cannot be "\\n": in CSV it ends a row'],
      ['\r', '--delimiter cannot be "\\r": in CSV it ends a row'],
    ]) {
      await expect(openSource({ args: [], delimiter: d }, io({ stdin: chunked(Buffer.from('"a",b\n'), [10]) }))).rejects.toMatchObject({ code: 'NUMINTEL_BAD_OPTION', message });
    }
    for (const d of ['tab', '\\t', ';', '😀']) {
      const sep = d === 'tab' || d === '\\t' ? '\t' : d;
      const { items } = await readAll(Buffer.from(`phone${sep}x\n2015550123${sep}y\n`), { delimiter: d });
      expect(items.map((i) => i.input)).toEqual(['2015550123']);
    }
  });
});

describe('bytes that are not UTF-8', () => {
  it('are refused with their line, never silently replaced in the columns passed through', async () => {
    const latin1 = Buffer.from('phone,name\n2015550123,Ann\n2015550124,Zo\xeb\n', 'latin1');
    const err = await readAll(latin1, { csv: true }, [5]).then(
      () => undefined,
      (e: unknown) => e as NumintelError,
    );
    expect(err?.message).toBe('cannot read standard input: line 3 has the byte 0xEB, which is not UTF-8');
    expect(err?.hint).toMatch(/save it as UTF-8/);
  });

  it('valid UTF-8 split anywhere across chunks passes untouched', async () => {
    const text = 'phone,name\n2015550123,Zoë 😀 Ñúñez\n';
    for (let size = 1; size <= 8; size++) {
      const { items } = await readAll(Buffer.from(text), { csv: true }, [size]);
      expect(items.map((i) => i.row?.name)).toEqual(['Zoë 😀 Ñúñez']);
    }
  });
});
