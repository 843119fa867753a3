// Flags → the RunRequest a command hands its run function, in-process through the runF hook (no
// bundle, no spawn): what each flag means is checked here once, table-driven.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RunRequest } from '../../src/cli/run-request.js';
import { runInProcess } from '../support/world.js';

async function requestOf(args: string[], stdinTTY = true): Promise<{ code: number; req?: RunRequest; stderr: string }> {
  let req: RunRequest | undefined;
  const { code, stderr } = await runInProcess(args, { stdinTTY }, {
    runLookups: async (r) => {
      req = r;
      return 0;
    },
  });
  return { code, req, stderr };
}

describe('lookup command flags → run request', () => {
  const cases: { args: string[]; want: Partial<RunRequest> & { kinds?: string[] } }[] = [
    { args: ['lrn', '12015550123'], want: { mode: 'single', kinds: ['lrn'], numbers: ['12015550123'], options: {}, header: true, validate: true, progress: true, quiet: false, sandbox: false } },
    { args: ['lrn', '--enhanced', '--messaging', '2015550123'], want: { options: { enhanced: true, messaging: true } } },
    { args: ['cnam', '--spam', '2015550123'], want: { kinds: ['cnam'], options: { spam: true } } },
    { args: ['trust', '-i', 'x.csv', '--column', 'Phone', '--delimiter', ';', '--no-header'], want: { kinds: ['trust'], input: 'x.csv', column: 'Phone', delimiter: ';', header: false, numbers: [] } },
    { args: ['lrn', '-i', 'x.txt', '-o', 'y.csv', '--resume', '-f', 'csv', '--raw-csv'], want: { output: 'y.csv', resume: true, format: 'csv', rawCsv: true } },
    { args: ['lrn', '1', '--concurrency', '4', '--rate', '2.5', '--retries', '0', '--timeout', '0.5', '--max-failures', '0'], want: { concurrency: 4, rate: 2.5, retries: 0, timeout: 0.5, maxFailures: 0 } },
    { args: ['lrn', '1', '--no-color', '--no-progress'], want: { color: false, progress: false, quiet: false } },
    { args: ['lrn', '1', '-q', '-v'], want: { progress: false, quiet: true, verbose: true } },
    { args: ['lrn', '1', '--no-validate', '--csv'], want: { validate: false, csv: true } },
    { args: ['lrn', '1', '--base-url', 'https://x.test', '--profile', 'bulk', '--transport', 'graphql', '--api-key-file', 'k.txt'], want: { baseUrl: 'https://x.test', profile: 'bulk', transport: 'graphql', apiKeyFile: 'k.txt' } },
    { args: ['lrn', '1', '--sandbox'], want: { sandbox: true, dryRun: false, cache: 'on' } },
    { args: ['lrn', '1', '--refresh', '--max-age', 'lrn=7d,cnam=30d', '--price', 'lrn=0.0005'], want: { cache: 'refresh', maxAge: 'lrn=7d,cnam=30d', price: 'lrn=0.0005' } },
    { args: ['cnam', '1', '--no-cache', '--refresh'], want: { cache: 'off' } },
    { args: ['enrich', 'c.csv'], want: { mode: 'enrich', kinds: ['lrn', 'cnam', 'trust'], input: 'c.csv', numbers: [] } },
    // Numbers as arguments, as every lookup command takes them; a file is one argument that names
    // one or cannot be a number.
    { args: ['enrich', '12015550123'], want: { mode: 'enrich', numbers: ['12015550123'], input: undefined } },
    { args: ['enrich', '201-555-0123 x12'], want: { numbers: ['201-555-0123 x12'], input: undefined } },
    { args: ['enrich', '+1 (201) 555-0123', '2125550147'], want: { numbers: ['+1 (201) 555-0123', '2125550147'], input: undefined } },
    { args: ['enrich', 'leads'], want: { input: 'leads', numbers: [] } },
    { args: ['enrich', 'in/2015550123'], want: { input: 'in/2015550123', numbers: [] } },
    { args: ['enrich', '-'], want: { input: '-', numbers: [] } },
    { args: ['enrich', '-i', 'c.csv', '--lookups', 'trust, lrn,trust', '--enhanced'], want: { kinds: ['trust', 'lrn'], options: { enhanced: true } } },
    { args: ['enrich', '-i', 'c.csv', '--lookups', 'cnam', '--spam'], want: { kinds: ['cnam'], options: { spam: true } } },
    { args: ['enrich', '-i', 'c.csv', '--lookups', 'LRN, Cnam'], want: { kinds: ['lrn', 'cnam'], options: {} } },
  ];
  it.each(cases)('$args', async ({ args, want }) => {
    const { code, req, stderr } = await requestOf(args);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    const { kinds, options, ...fields } = want;
    if (kinds) expect(req?.lookups.map((d) => d.kind)).toEqual(kinds);
    if (options) expect(req?.options).toEqual(options);
    expect(req).toMatchObject(fields);
  });
});

describe('enrich with one argument', () => {
  it('reads a file of that name, digits alone or not, rather than looking it up as a number', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'numintel-enrich-arg-'));
    try {
      await writeFile(join(dir, '2015550123'), '2125550147\n');
      let req: RunRequest | undefined;
      const { code } = await runInProcess(['enrich', '2015550123'], { cwd: dir }, { runLookups: async (r) => ((req = r), 0) });
      expect(code).toBe(0);
      expect(req).toMatchObject({ input: '2015550123', numbers: [] });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('flags refused before the run function is called', () => {
  const cases: { args: string[]; message: RegExp }[] = [
    { args: ['lrn', '1', '--concurrency', '0'], message: /--concurrency.*at least 1, got "0"/ },
    { args: ['lrn', '1', '--rate', '-1'], message: /--rate.*got "-1"/ },
    { args: ['lrn', '1', '--timeout', '0'], message: /--timeout.*above 0/ },
    { args: ['lrn', '1', '-f', 'xml'], message: /-f, --format.*xml.*Allowed choices/s },
    { args: ['lrn', '1', '--transport', 'soap'], message: /--transport.*soap/ },
    { args: ['enrich', 'c.csv', '--lookups', 'lrn,foo'], message: /unknown lookup "foo"/ },
    { args: ['enrich', 'c.csv', '-i', 'd.csv'], message: /both a file argument/ },
    { args: ['enrich', 'c.csv', '--lookups', 'lrn,trust', '--spam'], message: /--spam is an option of the cnam lookup, which --lookups leaves out/ },
    { args: ['enrich', 'c.csv', '--lookups', 'cnam', '--messaging'], message: /--messaging is an option of the lrn lookup/ },
    { args: ['lrn', '--api-key-file', '-'], message: /cannot come from there too/ },
    { args: ['lrn', '1', '--bogus'], message: /unknown option '--bogus'/ },
  ];
  it.each(cases)('$args', async ({ args, message }) => {
    const { code, req, stderr } = await requestOf(args, false);
    expect(code).toBe(2);
    expect(req).toBeUndefined();
    expect(stderr).toMatch(message);
  });
});
