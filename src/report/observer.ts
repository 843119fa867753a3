// `--report <file.html>` on the lookup commands: the report of a run, counted from its records as
// they are written (no second read of the input, no second lookup) and written when the run ends.
// fs.promises, not node:fs/promises: the module loads on first use, not with every run's start-up.
import { promises as fs } from 'node:fs';
import { writeError } from '../output/write-errors.js';
import type { OutputRecord } from '../core/records.js';
import { ReportAccumulator } from './accumulator.js';
import { recordFacts } from './facts.js';
import { renderHtml } from './render-html.js';
import type { Prices } from '../settings/prices.js';
import type { LookupKind } from '../core/lookups.js';

export interface ReportObserver {
  observe(record: OutputRecord): void;
  /** Writes the page; `label` is how the user named the file, for messages. */
  write(): Promise<void>;
}

/** `lookups`: those the run makes, named by the page also when no record comes (an empty input). */
export function reportObserver(path: string, label: string, asOf: number, name: string | undefined, lookups: readonly LookupKind[], prices?: Prices): ReportObserver {
  const acc = new ReportAccumulator({ asOf, source: 'run', name, ...(prices ? { prices } : {}) });
  acc.addLookups(lookups);
  return {
    observe(record) {
      const facts = recordFacts(record);
      // The input row's columns say who the numbers to act on are.
      if (facts) acc.add(record.row ? { ...facts, inputs: Object.entries(record.row) } : facts);
    },
    async write() {
      await fs.writeFile(path, renderHtml(acc.finish())).catch((err: unknown) => {
        throw writeError(err, `the report ${label}`);
      });
    },
  };
}
