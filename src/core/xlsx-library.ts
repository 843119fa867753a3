// The workbook library, in a bundle file of its own (scripts/build.js): only a run that reads or
// writes .xlsx loads it. Nothing here throws numintel's errors, so none crosses the boundary.
export { WorkbookReader, WorkbookWriter } from '@cj-tech-master/excelts';
