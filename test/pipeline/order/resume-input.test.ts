// --resume's check that the rows already written came from this input: files written by the real
// sinks (csv, tsv, jsonl; list and CSV input), compared with the input's first rows as the real
// source reads them.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LRN } from '../../../src/core/lookups.js';
import type { OutputRecord } from '../../../src/core/records.js';
import type { SourceItem } from '../../../src/core/run.js';
import { csvPlan } from '../../../src/output/csv-layout.js';
import { createSink } from '../../../src/output/sink.js';
import { checkResumedInput, inspectOutputForResume, type ResumableFormat } from '../../../src/pipeline/order/resume.js';
import { openSource } from '../../../src/pipeline/source/source.js';
import { Collect, failed, ok } from '../../output/helpers.js';
import { collect, io, usageFailure } from '../source/helpers.js';
import { tempDir } from '../../support/tmp.js';

const dir = tempDir('numintel-resume-input-');

/** The error columns an LRN run over these input columns writes, as the CLI hands them over. */
const errorColumns = (columns: readonly string[] | null) =>
  csvPlan({ mode: 'single', lookups: [LRN], options: {}, inputColumns: columns }).lookups.map((l) => l.errorName);

const FORMATS: ResumableFormat[] = ['csv', 'tsv', 'jsonl'];
const RESULT = { lrn: '12015550000', lrn_activated_at: '2021-09-01T00:00:00+00:00' };

/** The source of `content` (a list or a CSV, by its name), read by openSource. */
async function source(name: string, content: string) {
  await writeFile(join(dir, name), content);
  return openSource({ args: [], input: name }, io({ cwd: dir }));
}

/** What an interrupted run wrote for the first `rows` items of `name`: the real sink, in `format`. */
async function written(format: ResumableFormat, name: string, content: string, rows: number): Promise<string> {
  const src = await source(name, content);
  const items = (await collect(src.items)).slice(0, rows);
  const out = new Collect();
  const sink = await createSink(format, out, { mode: 'single', lookups: [LRN], options: {}, inputColumns: src.columns });
  for (const item of items) await sink.write(ok('lrn', item.input, '12015550123', RESULT, item.row) as OutputRecord);
  await sink.end();
  const path = join(dir, `out-${name}.${format}`);
  await writeFile(path, out.text);
  return path;
}

/** Runs the check of `path` against the input `name`; returns the input's next row after the check. */
async function check(format: ResumableFormat, path: string, name: string, content: string): Promise<SourceItem | undefined> {
  const src = await source(name, content);
  const items = src.items[Symbol.asyncIterator]();
  await checkResumedInput(path, path, format, await inspectOutputForResume(path, format), { items, columns: src.columns, errorColumns: errorColumns(src.columns) });
  const next = await items.next();
  await items.return?.();
  return next.done ? undefined : next.value;
}

const LIST = '2015550123\n(201) 555-0124\n# a comment\n+1 201 555 0125\n2015550126\n';
const OTHER_LIST = '2015550123\n(201) 555-0199\n+1 201 555 0125\n2015550126\n';
// Quotes, an embedded newline, the delimiters of both outputs, and a repeated header name.
const CSV = 'name,phone,note,note\n"Acme, Inc.",2015550123,"two\nlines",a\tb\nZoë,(201) 555-0124,"say ""hi""",\nAl,2015550125,,x\n';
const OTHER_CSV = CSV.replace('Zoë', 'Zoe');

describe.each(FORMATS)('%s output', (format) => {
  it('takes exactly the rows the file holds from a list input, which continues after them', async () => {
    const path = await written(format, `list-${format}.txt`, LIST, 2);
    expect(await check(format, path, `list-${format}.txt`, LIST)).toMatchObject({ index: 2, input: '+1 201 555 0125' });
  });

  it('refuses another list, naming the first row that differs, and leaves the file as it was', async () => {
    const path = await written(format, `a-${format}.txt`, LIST, 3);
    const before = await readFile(path);
    const err = await usageFailure(check(format, path, `b-${format}.txt`, OTHER_LIST));
    expect(err.message).toBe(`cannot resume ${path}: its row 2 was written for "(201) 555-0124", but row 2 of the input is "(201) 555-0199"`);
    expect(err.hint).toMatch(/resume with the input of the interrupted run/);
    expect((await readFile(path)).equals(before)).toBe(true);
  });

  it('refuses a file with more rows than the input has', async () => {
    const path = await written(format, `long-${format}.txt`, LIST, 4);
    const err = await usageFailure(check(format, path, `short-${format}.txt`, '2015550123\n(201) 555-0124\n'));
    expect(err.message).toBe(`cannot resume ${path}: it holds 4 rows, but the input has only 2`);
  });

  it('compares every cell of CSV rows: quotes, line breaks, tabs and repeated column names included', async () => {
    const path = await written(format, `in-${format}.csv`, CSV, 2);
    expect(await check(format, path, `in-${format}.csv`, CSV)).toMatchObject({ index: 2, input: '2015550125' });
    // Same numbers, another name in a row: another input.
    const err = await usageFailure(check(format, path, `other-${format}.csv`, OTHER_CSV));
    expect(err.message).toMatch(new RegExp(`^cannot resume .*: its row 2 was written for "Zoë,.*", but row 2 of the input is "Zoe,`));
  });

  it('has nothing to compare in a file without rows', async () => {
    const path = await written(format, `none-${format}.txt`, LIST, 0);
    expect(await check(format, path, `none-${format}.txt`, OTHER_LIST)).toMatchObject({ index: 0, input: '2015550123' });
  });
});

describe.each(FORMATS)('damaged %s files and the rows they already hold', (format) => {
  it('a row cut short in the middle of the file is refused, not counted as done', async () => {
    const path = await written(format, `cut-${format}.txt`, LIST, 3);
    const lines = (await readFile(path, 'utf8')).split('\n');
    const at = format === 'jsonl' ? 1 : 2;
    lines[at] = lines[at]!.slice(0, 12);
    await writeFile(path, lines.join('\n'));
    if (format === 'jsonl') {
      // A line that is not JSON ends what counts: the rows from there on are looked up again.
      expect((await inspectOutputForResume(path, format)).rows).toBe(1);
      return;
    }
    const err = await usageFailure(check(format, path, `cut-${format}.txt`, LIST));
    expect(err.message).toBe(`cannot resume ${path}: its row 2 is damaged (not a whole record of this output)`);
  });

  it('counts the invalid and failed rows the earlier run wrote', async () => {
    const name = `mixed-${format}.txt`;
    const src = await source(name, LIST);
    const items = (await collect(src.items)).slice(0, 3);
    const out = new Collect();
    const sink = await createSink(format, out, { mode: 'single', lookups: [LRN], options: {}, inputColumns: src.columns });
    const fail = (item: SourceItem, code: string) =>
      ({ input: item.input, number: null, lookup: 'lrn', ok: false, result: null, error: { code, message: 'm' } }) as unknown as OutputRecord;
    await sink.write(fail(items[0]!, 'invalid_number'));
    await sink.write(fail(items[1]!, 'server_error'));
    await sink.write(ok('lrn', items[2]!.input, '12015550123', RESULT) as OutputRecord);
    await sink.end();
    const path = join(dir, `out-${name}.${format}`);
    await writeFile(path, out.text);
    const again = await source(name, LIST);
    const it = again.items[Symbol.asyncIterator]();
    const tally = await checkResumedInput(path, path, format, await inspectOutputForResume(path, format), { items: it, columns: again.columns, errorColumns: errorColumns(again.columns) });
    await it.return?.();
    expect(tally).toEqual({ invalid: 1, failed: 1 });
  });

  it('reads the outcome from its own error column, not from input columns called error or last_error', async () => {
    const name = `errors-${format}.csv`;
    const content = 'phone,error,last_error\n2015550123,server_error: bad,rate_limited: x\n2015550124,,\n2015550125,invalid_number: y,\n';
    const src = await source(name, content);
    const items = await collect(src.items);
    const out = new Collect();
    const sink = await createSink(format, out, { mode: 'single', lookups: [LRN], options: {}, inputColumns: src.columns });
    // Rows 1 and 3 succeeded although their input cells look like errors; row 2 failed.
    await sink.write(ok('lrn', items[0]!.input, '12015550123', RESULT, items[0]!.row) as OutputRecord);
    await sink.write(failed('lrn', items[1]!.input, '12015550124', { code: 'server_error', message: 'm' }, items[1]!.row) as OutputRecord);
    await sink.write(ok('lrn', items[2]!.input, '12015550125', RESULT, items[2]!.row) as OutputRecord);
    await sink.end();
    const path = join(dir, `out-${name}.${format}`);
    await writeFile(path, out.text);
    if (format !== 'jsonl') expect(out.text.split('\n')[0]).toContain('numintel_error');
    const again = await source(name, content);
    const it = again.items[Symbol.asyncIterator]();
    const tally = await checkResumedInput(path, path, format, await inspectOutputForResume(path, format), { items: it, columns: again.columns, errorColumns: errorColumns(again.columns) });
    await it.return?.();
    expect(tally).toEqual({ invalid: 0, failed: 1 });
  });
});
