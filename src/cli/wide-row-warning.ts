// The warning for a CSV input row wider than its header, whose extra cells a csv or tsv output
// cannot hold: its columns are the header's, written before the first row is read.
import type { Format } from './run-request.js';
import type { World } from './world.js';

/**
 * A CSV row wider than the header: csv and tsv outputs have the header's columns only, so
 * its extra cells are left out of them; said once, when both the row and the format are known
 * (a resumed file's rows are read before the format is settled).
 */
export function wideRowWarning(world: Pick<World, 'stderr'>) {
  let row: { row: number; cells: number; columns: number } | undefined;
  let output: { format: Format; label: string; hasHeader: boolean } | undefined;
  let said = false;
  const say = () => {
    // A table shows no input cells at all; JSON names every cell.
    if (said || !row || !output || (output.format !== 'csv' && output.format !== 'tsv' && output.format !== 'xlsx')) return;
    said = true;
    const width = output.hasHeader ? `the header's ${row.columns}` : `the first row's ${row.columns}`;
    world.stderr.write(
      `numintel: warning: data row ${row.row} of ${output.label} has ${row.cells} cells, more than ${width}: ${output.format} output has ${row.columns === 1 ? 'that column' : 'those columns'} only, so the cells past them are left out (json and jsonl keep them)\n`,
    );
  };
  return {
    seen(wide: { row: number; cells: number; columns: number }) {
      row = wide;
      say();
    },
    format(format: Format, label: string, hasHeader: boolean) {
      output = { format, label, hasHeader };
      say();
    },
  };
}
