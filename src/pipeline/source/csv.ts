// CSV input: header, number column, then one item per data row, pulled record by record so
// backpressure holds. Finding the number column may need a look at the first rows; those are
// kept and replayed, so every data row still yields exactly one item, in order.
import { rowKeys, type BatchedItems, type SourceItem } from '../../core/run.js';
import { columnByHeader, columnByValues, looksLikeData, noNumberColumn, resolveColumnOption, SAMPLE_ROWS } from './column-detect.js';
import { csvBatches } from './csv-records.js';
import { readError } from './errors.js';

// The counting pass for the progress bar's total, loaded with the reader (see source.ts).
export { countCsvRecords } from './csv-scan.js';

export interface CsvReadOptions {
  readonly delimiter: string;
  /** false = `--no-header`. Otherwise a header is expected, unless the first row holds a phone number. */
  readonly header: boolean;
  readonly column?: string;
  /** How errors name the input: its path, or "standard input". */
  readonly label: string;
  /**
   * Called once, at the first data row (1-based) with more cells than the header: a CSV output's
   * columns are the header's, so its extra cells can only be kept in JSON, which names them.
   */
  readonly onWideRow?: ((row: number, cells: number, columns: number) => void) | undefined;
}

export interface CsvSource {
  readonly columns: string[];
  readonly hasHeader: boolean;
  readonly numberColumn?: { index: number; name: string };
  readonly items: AsyncGenerator<SourceItem> & BatchedItems;
  /** Ends the read, whichever way the items were taken (one by one or in batches), once it is over. */
  close(): Promise<void>;
}

/**
 * Records one by one for the header and the sample rows, then the rest of the batch they came
 * from (`rest`) and the batches after it (`batches`), which the items walk in plain loops.
 */
class Records {
  private batch: string[][] = [];
  private at = 0;
  constructor(readonly batches: AsyncGenerator<string[][]>) {}

  async next(): Promise<{ done: true; value?: undefined } | { done: false; value: string[] }> {
    while (this.at >= this.batch.length) {
      const next = await this.batches.next();
      if (next.done) return { done: true };
      this.batch = next.value;
      this.at = 0;
    }
    return { done: false, value: this.batch[this.at++] as string[] };
  }

  /** What is left of the current batch, taken once. */
  rest(): string[][] {
    const rest = this.batch.slice(this.at);
    this.batch = [];
    this.at = 0;
    return rest;
  }

  async return(): Promise<void> {
    await this.batches.return(undefined);
  }
}

export async function openCsv(chunks: AsyncIterable<Buffer>, opts: CsvReadOptions): Promise<CsvSource> {
  return openRecords(csvBatches(chunks, opts.delimiter, opts.label), opts);
}

/**
 * Rows of cells from any reader (CSV's, a workbook's: see xlsx.ts), in batches: the header, the
 * number column and the items as for CSV.
 */
export async function openRecords(batches: AsyncGenerator<string[][]>, opts: Omit<CsvReadOptions, 'delimiter'>): Promise<CsvSource> {
  const records = new Records(batches);
  try {
    return await start(records, opts);
  } catch (err) {
    await records.return();
    throw readError(err, opts.label);
  }
}

async function start(records: Records, opts: Omit<CsvReadOptions, 'delimiter'>): Promise<CsvSource> {
  const first = await records.next();
  const close = () => records.return();
  if (first.done) return { columns: [], hasHeader: false, items: rowItems(records, [], [], undefined, opts), close };

  const hasHeader = opts.header && !looksLikeData(first.value);
  const columns = hasHeader ? first.value : rowKeys([], first.value.length);
  const sample: string[][] = hasHeader ? [] : [first.value];

  let index: number | undefined;
  if (opts.column !== undefined) index = resolveColumnOption(columns, opts.column, opts.label);
  else if (hasHeader) index = columnByHeader(columns);
  if (index === undefined) {
    while (sample.length < SAMPLE_ROWS) {
      const next = await records.next();
      if (next.done) break;
      sample.push(next.value);
    }
    index = columnByValues(sample, columns.length);
    if (index === undefined) throw noNumberColumn(columns, opts.label);
  }
  // Each way of finding the column returns an index into `columns`.
  const numberColumn = { index, name: columns[index] as string };
  return { columns, hasHeader, numberColumn, items: rowItems(records, sample, columns, index, opts), close };
}

/** The rows one by one, or (`batches()`) as the batches they were read in. */
function rowItems(
  records: Records,
  sample: string[][],
  columns: readonly string[],
  numberIndex: number | undefined,
  opts: Omit<CsvReadOptions, 'delimiter'>,
): AsyncGenerator<SourceItem> & BatchedItems {
  const batches = () => rowBatches(records, sample, columns, numberIndex, opts);
  async function* items(): AsyncGenerator<SourceItem> {
    for await (const batch of batches()) yield* batch;
  }
  return Object.assign(items(), { batches });
}

async function* rowBatches(
  records: Records,
  sample: string[][],
  columns: readonly string[],
  numberIndex: number | undefined,
  opts: Omit<CsvReadOptions, 'delimiter'>,
): AsyncGenerator<SourceItem[]> {
  let index = 0;
  const keys = rowKeys(columns);
  // Rows wider than the header name their extra cells; a file's wide rows are usually all alike.
  const wide = new Map<number, readonly string[]>();
  const keysFor = (width: number, at: number): readonly string[] => {
    if (width <= keys.length) return keys;
    let named = wide.get(width);
    if (!named) {
      if (wide.size === 0) opts.onWideRow?.(at + 1, width, keys.length);
      wide.set(width, (named = rowKeys(columns, width)));
    }
    return named;
  };
  const items = (batch: readonly string[][]): SourceItem[] =>
    batch.map((cells) => ({
      index,
      input: numberIndex === undefined ? '' : (cells[numberIndex] ?? ''),
      row: rowObject(keysFor(cells.length, index++), cells),
    }));
  try {
    if (sample.length > 0) yield items(sample.splice(0));
    const rest = records.rest();
    if (rest.length > 0) yield items(rest);
    for await (const batch of records.batches) yield items(batch);
  } catch (err) {
    throw readError(err, opts.label);
  } finally {
    await records.return();
  }
}

/** One property per name (rowKeys: already unique, `column<N>` past the header); missing cells are ''. */
function rowObject(names: readonly string[], cells: readonly string[]): Record<string, string> {
  const row: Record<string, string> = {};
  for (let i = 0; i < names.length; i++) {
    const name = names[i] as string;
    const cell = cells[i] ?? '';
    // Assigning "__proto__" would set the prototype: a column of that name is defined like any other.
    if (name === '__proto__') Object.defineProperty(row, name, { value: cell, enumerable: true, writable: true, configurable: true });
    else row[name] = cell;
  }
  return row;
}
