// Closing a workbook's source (what a run does when it ends, is refused before it starts, or is
// interrupted) ends the read where it is, without an error of its own: the sheet here is stored
// before the shared strings, as Excel saves it, so the reader keeps a copy of it while reading.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openXlsx } from '../../../src/pipeline/source/xlsx.js';
import { tempDir } from '../../support/tmp.js';
import { zipOf } from './zip-fixture.js';

const ROWS = 5000;
const book = join(tempDir('numintel-xlsx-close-'), 'leads.xlsx');
const body = [`<row r="1"><c r="A1" t="s"><v>0</v></c></row>`];
for (let i = 2; i <= ROWS; i++) body.push(`<row r="${i}"><c r="A${i}"><v>${2015550000 + i}</v></c></row>`);
writeFileSync(
  book,
  zipOf({
    '[Content_Types].xml': '<?xml version="1.0"?><Types/>',
    'xl/_rels/workbook.xml.rels': '<?xml version="1.0"?><Relationships><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/></Relationships>',
    'xl/worksheets/sheet1.xml': `<?xml version="1.0"?><worksheet><sheetData>${body.join('')}</sheetData></worksheet>`,
    'xl/sharedStrings.xml': '<?xml version="1.0"?><sst><si><t>phone</t></si></sst>',
    'xl/workbook.xml': '<?xml version="1.0"?><workbook xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets><sheet name="Leads" sheetId="1" r:id="rId1"/></sheets></workbook>',
  }),
);

describe('a workbook source closed before its end', () => {
  it('after a batch: close resolves, and the read is over', async () => {
    const source = await openXlsx(book, { header: true, label: 'leads.xlsx' });
    const batches = source.items.batches();
    const first = await batches.next();
    expect(first.done).toBe(false);
    expect((first.value as unknown[]).length).toBeLessThan(ROWS - 1);
    await expect(source.close()).resolves.toBeUndefined();
    expect((await batches.next()).done).toBe(true);
  });

  it('before a row is taken: close resolves', async () => {
    const source = await openXlsx(book, { header: true, label: 'leads.xlsx' });
    expect(source.numberColumn?.name).toBe('phone');
    await expect(source.close()).resolves.toBeUndefined();
  });
});
