// The lookup commands (`lrn`, `cnam`, `trust`) and `enrich`, built from the lookup descriptors:
// the flags are declared here once and turned into a RunRequest; the work happens in run-lookups.
import { resolve } from 'node:path';
import { Command, Option } from 'commander';
import {
  LOOKUP_KINDS,
  LOOKUPS,
  isLookupKind,
  type LookupDescriptor,
  type LookupKind,
  type LookupOptions,
  type OptionName,
} from '../core/lookups.js';
import { BadOptionError, UnknownLookupError, UsageError } from '../core/errors.js';
import { isDay } from '../sandbox/options.js';
import { EXTENSION } from '../core/numbers.js';
import { isFile } from '../pipeline/source/source.js';
import { OUTPUT_FORMATS } from '../output/layout.js';
import { defaultMaxAgeText } from '../settings/max-age.js';
import { rateDescription } from '../settings/rate-text.js';
import { intOption, numberOption } from './options.js';
import type { RunRequest } from './run-request.js';
import type { World } from './world.js';
import { examples } from './help.js';

export type SetExitCode = (code: number) => void;
/** A command's run function: by default run-lookups' (loaded only when the command runs); tests pass their own. */
export type RunF = (req: RunRequest, world: World) => Promise<number>;

async function defaultRun(req: RunRequest, world: World): Promise<number> {
  const { runLookups } = await import('./run-lookups.js');
  return runLookups(req, world);
}

/** --dry-run sends nothing: it never reaches the command's run function. */
async function runOrDryRun(run: RunF, req: RunRequest, world: World): Promise<number> {
  if (!req.dryRun) return run(req, world);
  const { runDryRun } = await import('./dry-run.js');
  return runDryRun(req, world);
}

export function lookupCommand(d: LookupDescriptor, world: World, setExitCode: SetExitCode, run: RunF = defaultRun): Command {
  const cmd = new Command(d.kind)
    .summary(`${d.title} lookup`)
    .description(describe(d))
    .argument('[numbers...]', 'phone numbers in any common U.S. form');
  for (const o of d.options) cmd.option(`--${o.flag}`, o.description);
  addRunOptions(cmd);
  const flags = d.options.map((o) => ` --${o.flag}`).join('');
  cmd.addHelpText(
    'after',
    examples([
      [`numintel ${d.kind} 12015550123 --sandbox`, 'one number as a table (the built-in sandbox: no key, no network)'],
      [`numintel ${d.kind}${flags} '(212) 555-0147' --sandbox -f jsonl`, 'any common form; JSON lines'],
      [`printf '2015550123\\n2125550147\\n' | numintel ${d.kind} --sandbox -q`, 'numbers on stdin, one per line'],
      [`numintel ${d.kind} -i leads.csv -o leads.${d.kind}.csv`, 'a CSV, every column kept, results added'],
      [`numintel ${d.kind} -i leads.csv --dry-run --price ${d.kind}=0.001`, 'what a run would cost, sending nothing'],
      [`numintel ${d.kind} -i leads.csv -o out.csv --resume`, 'go on after Ctrl-C or a spend cap'],
    ]),
  );
  cmd.action(async (numbers: string[], flags: Record<string, unknown>) => {
    setExitCode(await runOrDryRun(run, checkFlagUse(toRunRequest('single', [d], numbers, flags)), world));
  });
  return cmd;
}

export function enrichCommand(world: World, setExitCode: SetExitCode, run: RunF = defaultRun): Command {
  const cmd = new Command('enrich')
    .summary('several lookups per number in one pass')
    .description(
      'Runs several lookups for every number (or CSV row) in one pass, each kind under its own rate limit.\n' +
        'CSV columns are prefixed with the lookup kind (lrn_carrier, cnam_cnam, trust_is_spam, ...),\n' +
        'and each kind has its own error column (lrn_error, cnam_error, trust_error).',
    )
    .argument('[input...]', 'a file to read (same as -i), or phone numbers; numbers may also come on stdin')
    .option('--lookups <list>', 'comma-separated lookups to run', LOOKUP_KINDS.join(','));
  const seen = new Set<string>();
  for (const kind of LOOKUP_KINDS) {
    for (const o of LOOKUPS[kind].options) {
      if (seen.has(o.flag)) continue;
      seen.add(o.flag);
      cmd.option(`--${o.flag}`, `${kind}: ${o.description}`);
    }
  }
  addRunOptions(cmd);
  cmd.addHelpText(
    'after',
    examples([
      ['numintel enrich 12015550123 --sandbox --spam -f jsonl', 'every lookup of one number'],
      ['numintel enrich leads.csv -o leads.enriched.csv --enhanced --spam', 'a CSV, all three lookups per row'],
      ['numintel enrich leads.csv --lookups lrn,trust -o out.csv --max-lookups 1000', 'two lookups, at most 1,000 requests'],
      ['numintel enrich leads.csv -o out.csv --report out.html', 'and a report of what came back'],
    ]),
  );
  cmd.action(async (args: string[], flags: Record<string, unknown>) => {
    const { numbers, file } = await enrichArguments(args, world.cwd);
    if (file !== undefined && flags.input !== undefined) {
      throw new UsageError(`both a file argument ("${file}") and --input were given`, 'give the input once');
    }
    const kinds = parseLookupList(String(flags.lookups));
    checkOptionsApply(kinds, flags);
    setExitCode(await runOrDryRun(run, checkFlagUse(toRunRequest('enrich', kinds.map((k) => LOOKUPS[k]), numbers, { ...flags, input: file ?? flags.input })), world));
  });
  return cmd;
}

function addRunOptions(cmd: Command): void {
  cmd
    .optionsGroup('Input:')
    .option('-i, --input <path>', 'read numbers from a file (- for stdin): a list, one per line, CSV, or an .xlsx workbook')
    .option('--csv', 'treat the input as CSV even without a .csv name')
    .option('--column <name|index>', 'CSV column holding the number (name or 1-based index)')
    .option('--delimiter <char>', 'CSV delimiter (default: detected)')
    .option('--no-header', 'the CSV input has no header row')
    .option('--sheet <name|n>', 'an .xlsx input\'s sheet to read, by name or 1-based position (default: the first)')
    .option('--no-validate', 'send numbers as given (punctuation stripped) without validating them')
    .optionsGroup('Output:')
    .addOption(new Option('-f, --format <format>', 'output format (default: table on a terminal, the -o extension, csv for CSV input, else jsonl)').choices(OUTPUT_FORMATS))
    .option('-o, --output <path>', 'write records to a file instead of stdout (format from its extension: .csv .tsv .json .jsonl .ndjson .xlsx)')
    .option('--resume', 'continue an interrupted run where the -o file stops (csv, tsv or jsonl, same input)')
    .option('--fields <list>', 'write only these columns, in this order: result fields and input, number, error (status in tables), e.g. number,carrier,carrier_type,is_spam; CSV input columns stay')
    .option('--cache-columns', 'CSV/TSV: add cached and fetched_at columns after each error column (JSON records always have them)')
    .option('--raw-csv', 'do not neutralise spreadsheet formulas in CSV cells from the service')
    .option('--no-color', 'no colour in tables')
    .option('--report <file.html>', 'when the run ends, write a report of its records as one HTML page (see numintel report)')
    .optionsGroup('Throughput and retries:')
    .option('--concurrency <n>', 'requests in flight at most (default 16)', intOption(1))
    .option('--rate <n>', rateDescription(), numberOption(0))
    .option('--retries <n>', 'retries after a 5xx, a reset or a timeout (default 5; a 429 is waited out apart)', intOption(0))
    .option('--timeout <seconds>', 'per-request timeout (default 15)', numberOption(0, { exclusive: true }))
    .option('--max-wait <seconds>', 'longest wait a server may ask for (Retry-After); a longer one stops the run, resumably, exit 5 (default 300)', numberOption(0))
    .option('--max-failures <n>', 'stop (resumably) after this many consecutive failed rows (default 20; 0 = never)', intOption(0))
    .optionsGroup('Cost control:')
    .option('--dry-run', 'read and check the input, send nothing; report rows, invalid, duplicates, cache hits, billable lookups, time and cost')
    .option('--price <list>', 'price per lookup for --dry-run and --max-spend, e.g. lrn=0.0005,cnam=0.006 (or config price.<lookup>)')
    .option('--max-lookups <n>', 'send at most this many requests (retries count); then stop, resumably (exit 5)', intOption(1))
    .option('--max-spend <amount>', 'spend at most this much at the known prices (--price); then stop, resumably (exit 5)', numberOption(0, { exclusive: true }))
    .option('--max-age <dur>', `use cached answers up to this old: 12h, 30d, lrn=7d,cnam=30d (default ${defaultMaxAgeText()})`)
    .option('--refresh', 'ignore cached answers, and cache what comes back')
    .option('--no-cache', 'neither read nor write the lookup cache')
    .optionsGroup('Service and settings:')
    .option('--base-url <url>', 'service base URL (or NUMINTEL_BASE_URL, or the config file)')
    .option('--api-key-file <path>', 'read the API key from a file (- for stdin); or NUMINTEL_API_KEY')
    .option('--profile <name>', 'config profile (or NUMINTEL_PROFILE)')
    .addOption(new Option('--transport <transport>', 'rest, graphql or bulk: LRN and CNAM many numbers a request (default rest; or NUMINTEL_TRANSPORT)').choices(['rest', 'graphql', 'bulk']))
    .option('--batch-size <n>', 'with --transport bulk: numbers a request carries at most, 1-1000 (default 1000)', intOption(1))
    .option('--ca-file <pem>', 'trust the CA certificates of this PEM file for HTTPS, besides the system ones (or NUMINTEL_CA_FILE)')
    .option('--sandbox', 'run against the built-in sandbox (no key, no network)')
    .option('--today <date>', "with --sandbox: the sandbox's day, YYYY-MM-DD, that its dates count back from (default: today, UTC)")
    .optionsGroup('Messages:')
    .option('--no-progress', 'no progress bar')
    .option('-q, --quiet', 'no progress bar and no summary')
    .option('-v, --verbose', 'trace every request on stderr (the API key masked)');
}

/**
 * --sandbox with --base-url names two services: refused before anything is read or sent, not one
 * silently dropped (a run against sample data that its user took for the service's answers). A
 * base URL from the environment or the config file stays allowed: --sandbox is how to try
 * numintel without changing one's settings.
 */
export function checkSandboxFlags(sandbox: boolean, baseUrlFlag: string | undefined, today?: string): void {
  if (today !== undefined && !sandbox) throw new UsageError("--today sets the built-in sandbox's day, and comes only with --sandbox", 'add --sandbox, or drop --today');
  if (today !== undefined && !isDay(today)) throw new BadOptionError(`--today must be a date YYYY-MM-DD, got "${today.slice(0, 40)}"`);
  if (!sandbox || baseUrlFlag === undefined) return;
  throw new UsageError('--sandbox and --base-url name two services', `drop --base-url to use the built-in sandbox, or --sandbox to use ${baseUrlFlag.slice(0, 200)}`);
}

/** Flags that contradict each other: --sandbox with --base-url; the key and the numbers both from standard input (the numbers would silently be none). */
function checkFlagUse(req: RunRequest): RunRequest {
  checkSandboxFlags(req.sandbox, req.baseUrl, req.sandboxToday);
  if (req.apiKeyFile !== '-' || req.sandbox) return req;
  if (req.input === '-' || (req.input === undefined && req.numbers.length === 0)) {
    throw new UsageError(
      '--api-key-file - reads the API key from standard input, so the numbers cannot come from there too',
      'give the numbers as arguments or with -i <file>, or keep the key in a file: --api-key-file <path>',
    );
  }
  return req;
}

/** An option of a lookup that --lookups leaves out would be silently ignored: say so instead. */
function checkOptionsApply(kinds: readonly LookupKind[], flags: Record<string, unknown>): void {
  for (const d of Object.values(LOOKUPS)) {
    if (kinds.includes(d.kind)) continue;
    const given = d.options.find((o) => flags[o.flag] === true);
    if (given) {
      throw new UsageError(
        `--${given.flag} is an option of the ${d.kind} lookup, which --lookups leaves out`,
        `add ${d.kind} to --lookups, or drop --${given.flag}`,
      );
    }
  }
}

function parseLookupList(value: string): LookupKind[] {
  const kinds: LookupKind[] = [];
  // Named as the commands are, in any case: `--lookups LRN,CNAM` means lrn and cnam.
  for (const part of value.split(',').map((p) => p.trim().toLowerCase()).filter(Boolean)) {
    if (!isLookupKind(part)) throw new UnknownLookupError(`unknown lookup "${part}" in --lookups`, `choose from ${LOOKUP_KINDS.join(', ')}`);
    if (!kinds.includes(part)) kinds.push(part);
  }
  if (kinds.length === 0) throw new UnknownLookupError('--lookups names no lookup', `choose from ${LOOKUP_KINDS.join(', ')}`);
  return kinds;
}

/**
 * `enrich` reads a file (`numintel enrich leads.csv`, as -i does) or numbers given as arguments
 * (`numintel enrich 12015550123 2125550147`), as every lookup command does. One argument is the
 * file when it names one, or when it cannot be a number: a path separator, or a letter other than
 * an extension's (`201-555-0123 x12`). Other arguments are numbers, read as lrn's are (a file
 * among several is refused there, with the advice to give it with -i).
 */
export async function enrichArguments(args: readonly string[], cwd: string): Promise<{ numbers: string[]; file?: string }> {
  const [arg] = args;
  if (args.length !== 1 || arg === undefined) return { numbers: [...args] };
  const notANumber = arg === '-' || /[/\\]/.test(arg) || /[a-z]/i.test(arg.trim().replace(EXTENSION, ''));
  if (notANumber || (await isFile(resolve(cwd, arg)))) return { numbers: [], file: arg };
  return { numbers: [arg] };
}

function toRunRequest(
  mode: RunRequest['mode'],
  lookups: LookupDescriptor[],
  numbers: string[],
  flags: Record<string, unknown>,
): RunRequest {
  const options: LookupOptions = {};
  for (const d of lookups) for (const o of d.options) if (flags[o.flag]) options[o.name as OptionName] = true;
  const str = (v: unknown) => (typeof v === 'string' ? v : undefined);
  const num = (v: unknown) => (typeof v === 'number' ? v : undefined);
  return {
    mode,
    lookups,
    options,
    numbers,
    input: str(flags.input),
    csv: flags.csv === true,
    column: str(flags.column),
    delimiter: str(flags.delimiter),
    header: flags.header !== false,
    sheet: str(flags.sheet),
    validate: flags.validate !== false,
    format: str(flags.format) as RunRequest['format'],
    output: str(flags.output),
    resume: flags.resume === true,
    rawCsv: flags.rawCsv === true,
    cacheColumns: flags.cacheColumns === true,
    fields: str(flags.fields),
    report: str(flags.report),
    color: flags.color === false ? false : undefined,
    concurrency: num(flags.concurrency),
    rate: num(flags.rate),
    retries: num(flags.retries),
    timeout: num(flags.timeout),
    maxFailures: num(flags.maxFailures),
    maxWait: num(flags.maxWait),
    baseUrl: str(flags.baseUrl),
    apiKeyFile: str(flags.apiKeyFile),
    profile: str(flags.profile),
    transport: str(flags.transport) as RunRequest['transport'],
    batchSize: num(flags.batchSize),
    caFile: str(flags.caFile),
    sandbox: flags.sandbox === true,
    sandboxToday: str(flags.today),
    dryRun: flags.dryRun === true,
    cache: flags.cache === false ? 'off' : flags.refresh === true ? 'refresh' : 'on',
    maxAge: str(flags.maxAge),
    price: str(flags.price),
    maxLookups: num(flags.maxLookups),
    maxSpend: num(flags.maxSpend),
    progress: flags.progress !== false && flags.quiet !== true,
    quiet: flags.quiet === true,
    verbose: flags.verbose === true,
  };
}

function describe(d: LookupDescriptor): string {
  return `${d.description}\nNumbers come from the arguments, -i <file>, or stdin; records go to stdout in input order.`;
}
