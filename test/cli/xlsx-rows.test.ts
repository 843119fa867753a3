// The check before an xlsx run (and its --dry-run): an input fits one Excel sheet below its header.
// The end-to-end refusal over a counted input of 1,048,576 rows is test/e2e/xlsx.test.ts's.
import { describe, expect, it } from 'vitest';
import { checkXlsxRows } from '../../src/cli/output-target.js';
import { UsageError } from '../../src/core/errors.js';

describe('checkXlsxRows', () => {
  it('lets through up to 1,048,575 data rows, the sheet’s 1,048,576 with the header', () => {
    for (const rows of [0, 1, 1_048_574, 1_048_575]) expect(() => checkXlsxRows(rows)).not.toThrow();
  });

  it('refuses one row more as a usage error naming both counts and what to write instead', () => {
    for (const rows of [1_048_576, 5_000_000]) {
      let thrown: unknown;
      try {
        checkXlsxRows(rows);
      } catch (err) {
        thrown = err;
      }
      expect(thrown).toBeInstanceOf(UsageError);
      expect((thrown as UsageError).message).toBe(`the input has ${rows.toLocaleString('en-US')} rows, and an Excel sheet holds 1,048,575 below its header`);
      expect((thrown as UsageError).hint).toContain('-f csv');
    }
  });
});
