// `numintel report <file|->`: what a finished output holds, on the terminal, as JSON, or as a page.
import { Command, InvalidArgumentError, Option } from 'commander';
import { parsePrices, type Prices } from '../settings/prices.js';
import { reportPrices } from '../settings/resolve.js';
import type { SetExitCode } from './lookup-command.js';
import type { World } from './world.js';
import { examples } from './help.js';

export function reportCommand(world: World, setExitCode: SetExitCode): Command {
  return new Command('report')
    .summary('what an output holds: numbers to act on, line types, porting, carriers, spam, cost')
    .description(
      'Reads an output of lrn, cnam, trust or enrich (csv, tsv, jsonl or json; - for stdin) in one streaming pass ' +
        'and prints what it holds: input, cost, the numbers to act on, line type, porting, carriers, states, ' +
        'time zones, messaging, caller names (real, placeholder, none), trust. --html writes the same report as one self-contained page.',
    )
    .argument('<file>', 'a numintel output file, or - for standard input')
    .addOption(new Option('-f, --format <format>', 'text, or json with every figure').choices(['text', 'json']).default('text'))
    .option('--html <file>', 'also write the report as one self-contained HTML page')
    .option('--as-of <date>', 'the day porting ages and "ported in the last 30 days" are counted to (default: today)', dateOption)
    .option('--price <list>', 'price per billed lookup, e.g. lrn=0.0005,cnam=0.006,trust=0.002 (default: the config\'s price.<lookup>)', (value: string) => parsePrices(value, '--price'))
    .option('--currency <code>', 'the currency of the prices, an ISO 4217 code (default: USD)', currencyOption)
    .option('--act-on-limit <n>', 'how many numbers to act on are listed, the most severe first (default: 20; all are counted)', limitOption)
    .option('--profile <name>', 'config profile whose prices apply (or NUMINTEL_PROFILE)')
    .option('--no-color', 'no colour')
    .addHelpText(
      'after',
      examples([
        ['numintel report leads.enriched.csv', 'line types, porting, carriers, states, spam: in the terminal'],
        ['numintel report leads.enriched.csv --html leads.html --price lrn=0.0005', 'and as one HTML page, with the cost'],
        ['numintel report out.jsonl -f json | jq .line_type', 'every figure as JSON'],
      ]),
    )
    .action(async (file: string, flags: { format: 'text' | 'json'; html?: string; asOf?: number; price?: Prices; currency?: string; actOnLimit?: number; profile?: string; color?: boolean }) => {
      const { runReport } = await import('./run-report.js');
      const prices = await reportPrices(flags.price, flags.profile, world.env, world.home);
      setExitCode(
        await runReport(
          {
            file,
            format: flags.format,
            html: flags.html,
            asOf: flags.asOf,
            prices,
            currency: flags.currency,
            actOnLimit: flags.actOnLimit,
            color: flags.color === false ? false : undefined,
          },
          world,
        ),
      );
    });
}

/** A currency code as Intl knows it (three letters), upper case. */
function currencyOption(value: string): string {
  const code = value.trim().toUpperCase();
  if (!/^[A-Z]{3}$/.test(code)) throw new InvalidArgumentError(`Expected a three-letter currency code such as USD or EUR, got "${value}"`);
  return code;
}

function limitOption(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value.trim()) || !Number.isSafeInteger(n)) throw new InvalidArgumentError(`Expected a whole number (0 or more), got "${value}"`);
  return n;
}

/** An ISO date (`2026-01-31`, optionally with a time); a bare date is midnight UTC of that day. */
const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})(?:[T ]\S+)?$/;

function dateOption(value: string): number {
  const m = ISO_DATE.exec(value.trim());
  const t = m ? Date.parse(value.trim()) : Number.NaN;
  // Date.parse rolls an impossible day over (2026-02-30 is March 2) and reads loose forms ("1" is
  // 2001): both would count ages to a day the user did not mean, so the day must exist as written.
  const day = m ? new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]))) : undefined;
  const exists = day !== undefined && day.getUTCMonth() === Number(m![2]) - 1 && day.getUTCDate() === Number(m![3]);
  if (Number.isNaN(t) || !exists) throw new InvalidArgumentError(`Expected a date such as 2026-01-31, got "${value}"`);
  return t;
}
