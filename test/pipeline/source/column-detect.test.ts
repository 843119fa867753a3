import { describe, expect, it } from 'vitest';
import { NumintelError } from '../../../src/core/errors.js';
import { columnByHeader, columnByValues, describeColumns, looksLikeData, resolveColumnOption } from '../../../src/pipeline/source/column-detect.js';

describe('columnByHeader', () => {
  it('takes the preferred exact name, in any case and spacing', () => {
    expect(columnByHeader(['Name', 'Telephone', 'Phone-Number'])).toBe(2);
    expect(columnByHeader(['number', 'mobile'])).toBe(0);
    expect(columnByHeader(['ID', ' ANI '])).toBe(1);
  });

  it('falls back to a name containing a phone word', () => {
    expect(columnByHeader(['Name', 'Primary Phone No.'])).toBe(1);
    expect(columnByHeader(['name', 'cellphone'])).toBe(1);
  });

  it('finds nothing in unrelated names', () => {
    expect(columnByHeader(['name', 'email', 'account number', 'hotel'])).toBeUndefined();
  });
});

describe('columnByValues', () => {
  const rows = [
    ['Acme', '1001', '(201) 555-0123'],
    ['Globex', '1002', ''],
    ['Initech', '1003', 'n/a'],
    ['Umbrella', '1004', '201.555.0125'],
  ];

  it('takes the first column where most filled cells are phone numbers', () => {
    expect(columnByValues(rows, 3)).toBe(2);
  });

  it('needs more than half', () => {
    expect(columnByValues([['2015550123'], ['x'], ['y']], 1)).toBeUndefined();
    expect(columnByValues([['2015550123'], ['2015550124'], ['y']], 1)).toBe(0);
  });

  it('finds nothing in empty or short columns', () => {
    expect(columnByValues([[''], ['']], 1)).toBeUndefined();
    expect(columnByValues([], 2)).toBeUndefined();
  });
});

describe('looksLikeData', () => {
  it('tells a data row from a header', () => {
    expect(looksLikeData(['Ada', '+1 201 555 0123'])).toBe(true);
    expect(looksLikeData(['name', 'phone', '2024'])).toBe(false);
  });
});

describe('resolveColumnOption', () => {
  const columns = ['id', 'Phone', 'city'];

  it('resolves names and indexes', () => {
    expect(resolveColumnOption(columns, 'Phone', 'f.csv')).toBe(1);
    expect(resolveColumnOption(columns, 'PHONE ', 'f.csv')).toBe(1);
    expect(resolveColumnOption(columns, '3', 'f.csv')).toBe(2);
  });

  it('names the columns when it cannot', () => {
    const err = (() => {
      try {
        resolveColumnOption(['only'], '2', 'f.csv');
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(NumintelError);
    expect((err as NumintelError).message).toBe('--column 2 is out of range: f.csv has 1 column');
    expect((err as NumintelError).hint).toBe('columns: 1 "only"');
    expect(() => resolveColumnOption(columns, 'mobile', 'f.csv')).toThrow('no column "mobile" in f.csv');
  });

  it('describes no columns at all', () => {
    expect(describeColumns([])).toBe('(none)');
  });
});
