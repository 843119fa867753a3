// What an Excel sheet holds, for the workbook reader and writer and the checks before a run.
/** Rows in one sheet, the header included. */
export const XLSX_MAX_ROWS = 1_048_576;
