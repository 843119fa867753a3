// Closing a workbook's source (what a run does when it ends, is refused before it starts, or is
// interrupted) ends the read where it is, without an error of its own: the sheet here is stored
// before the shared strings, as Excel saves it, so the reader keeps a copy of it while reading.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openXlsx } from '../../../src/pipeline/source/xlsx.js';
import { tempDir } from '../../support/tmp.js';
import { leadsWorkbook } from './zip-fixture.js';

const ROWS = 5000;
const book = join(tempDir('numintel-xlsx-close-'), 'leads.xlsx');
writeFileSync(book, leadsWorkbook(ROWS, { sharedFirst: false }));
const opts = { header: true, label: 'leads.xlsx', sheet: 'Leads' };

describe('a workbook source closed before its end', () => {
  it('after a batch: close resolves, and the read is over', async () => {
    const source = await openXlsx(book, opts);
    const batches = source.items.batches();
    const first = await batches.next();
    expect(first.done).toBe(false);
    expect((first.value as unknown[]).length).toBeLessThan(ROWS - 1);
    await expect(source.close()).resolves.toBeUndefined();
    expect((await batches.next()).done).toBe(true);
  });

  it('before a row is taken: close resolves', async () => {
    const source = await openXlsx(book, opts);
    expect(source.numberColumn?.name).toBe('phone');
    await expect(source.close()).resolves.toBeUndefined();
  });
});
