// A real ZIP archive (stored entries, local headers, central directory) built in a few lines, so
// the tests feed numintel what a spreadsheet program writes without shipping binary fixtures.
import { crc32 } from 'node:zlib';

/** A ZIP holding `entries` (name → content), uncompressed. */
export function zipOf(entries: Record<string, string>): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const [name, content] of Object.entries(entries)) {
    const nameBytes = Buffer.from(name);
    const data = Buffer.from(content);
    const crc = crc32(data);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4); // version needed
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(data.length, 18);
    local.writeUInt32LE(data.length, 22);
    local.writeUInt16LE(nameBytes.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(data.length, 20);
    central.writeUInt32LE(data.length, 24);
    central.writeUInt16LE(nameBytes.length, 28);
    central.writeUInt32LE(offset, 42);
    locals.push(local, nameBytes, data);
    centrals.push(central, nameBytes);
    offset += local.length + nameBytes.length + data.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(centrals.length / 2, 8);
  end.writeUInt16LE(centrals.length / 2, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}

/** The parts of an XLSX workbook that tell it from any ZIP, in the order Excel writes them. */
export function xlsx(): Buffer {
  return zipOf({
    '[Content_Types].xml': '<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"/>',
    '_rels/.rels': '<?xml version="1.0"?><Relationships/>',
    'xl/workbook.xml': '<?xml version="1.0"?><workbook/>',
    'xl/worksheets/sheet1.xml': '<?xml version="1.0"?><worksheet><sheetData><row><c t="inlineStr"><is><t>12015550123</t></is></c></row></sheetData></worksheet>',
  });
}

export const WORKBOOK = '<?xml version="1.0"?><workbook xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets><sheet name="Notes" sheetId="1" r:id="rId1"/><sheet name="Leads" sheetId="2" r:id="rId2"/></sheets></workbook>';
export const RELS =
  '<?xml version="1.0"?><Relationships><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/>' +
  '<Relationship Id="rId2" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet2.xml"/></Relationships>';
export const SHARED = '<?xml version="1.0"?><sst count="2" uniqueCount="2"><si><t>phone</t></si><si><t>Lead &lt;row&gt; 1</t></si></sst>';

/** A sheet of `rows` rows (a shared-string cell and a number each), an empty row, page breaks after. */
export function leadsSheet(rows: number): string {
  const body: string[] = ['<row r="1"><c r="A1" t="s"><v>0</v></c></row>'];
  for (let i = 2; i <= rows; i++) body.push(`<row r="${i}" spans="1:2"><c r="A${i}" t="s"><v>1</v></c><c r="B${i}"><v>${2015550000 + i}</v></c></row>`);
  body.push(`<row r="${rows + 2}"/>`);
  return `<?xml version="1.0"?><worksheet><sheetData>${body.join('\n')}</sheetData><rowBreaks count="1"><brk id="2"/></rowBreaks></worksheet>`;
}

/**
 * A workbook of two sheets, Notes (one cell) and Leads (leadsSheet(rows)): its shared strings
 * before or after the sheets, and the part that names the sheets first (as Excel stores it) or
 * last (as excelts and exceljs do).
 */
export function leadsWorkbook(rows: number, order: { sharedFirst: boolean; namesLast?: boolean }): Buffer {
  const sheets = {
    'xl/worksheets/sheet1.xml': '<?xml version="1.0"?><worksheet><sheetData><row r="1"><c r="A1" t="inlineStr"><is><t>Read me</t></is></c></row></sheetData></worksheet>',
    'xl/worksheets/sheet2.xml': leadsSheet(rows),
  };
  const shared = { 'xl/sharedStrings.xml': SHARED };
  const names = { 'xl/workbook.xml': WORKBOOK };
  return zipOf({
    '[Content_Types].xml': '<?xml version="1.0"?><Types/>',
    ...(order.namesLast ? {} : names),
    'xl/_rels/workbook.xml.rels': RELS,
    ...(order.sharedFirst ? { ...shared, ...sheets } : { ...sheets, ...shared }),
    ...(order.namesLast ? names : {}),
  });
}
