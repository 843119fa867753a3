// `numintel diff <before> <after>`: what changed between two outputs of the same list.
import { Command, InvalidArgumentError, Option } from 'commander';
import { CHANGE_KINDS, type ChangeKind } from '../diff/compare.js';
import type { SetExitCode } from './lookup-command.js';
import type { World } from './world.js';
import { examples } from './help.js';

function kindsOption(value: string): ChangeKind[] {
  const kinds = value.split(',').map((k) => k.trim()).filter((k) => k !== '');
  const unknown = kinds.filter((k) => !(CHANGE_KINDS as readonly string[]).includes(k));
  if (unknown.length > 0 || kinds.length === 0) throw new InvalidArgumentError(`Expected change kinds among ${CHANGE_KINDS.join(', ')}; got "${value}"`);
  return kinds as ChangeKind[];
}

function numberOption(min: number): (value: string) => number {
  return (value) => {
    const x = Number(value);
    if (value.trim() === '' || !Number.isFinite(x) || x < min) throw new InvalidArgumentError(`Expected a number of at least ${min}, got "${value}"`);
    return x;
  };
}

export function diffCommand(world: World, setExitCode: SetExitCode): Command {
  return new Command('diff')
    .summary('what changed between two outputs of the same list: ported, flagged, renamed, …')
    .description(
      'Reads two outputs of lrn, cnam, trust or enrich (csv, tsv, jsonl, json or xlsx, any mix; - for stdin once), ' +
        'matches their rows by number and counts each change kind: ' +
        `${CHANGE_KINDS.join(', ')}. -o writes one row per changed number with the values before and after.`,
    )
    .argument('<before>', 'the earlier output, or - for standard input')
    .argument('<after>', 'the later output, or - for standard input')
    .addOption(new Option('-f, --format <format>', 'text or json (the summary), csv, jsonl or xlsx (the changed rows)').choices(['text', 'json', 'csv', 'jsonl', 'xlsx']))
    .option('-o, --output <file>', 'write the changed rows to a file (.csv, .jsonl or .xlsx, or as -f says)')
    .option('--html <file>', 'also write the counts and the numbers to act on as one self-contained HTML page, in the report\'s style')
    .option('--only <kinds>', 'only these change kinds, comma-separated (e.g. ported,flagged)', kindsOption)
    .option('--score-delta <n>', 'a reputation score move of at least this much is a change', numberOption(0), 10)
    .option('--first <n>', 'numbers listed per change kind in the summary', numberOption(0), 10)
    .addHelpText(
      'after',
      examples([
        ['numintel diff march.csv april.csv', 'counts per change kind, and the numbers to act on'],
        ['numintel diff march.csv april.csv -o changes.csv --only ported,flagged', 'the changed rows, side by side'],
        ['numintel diff march.jsonl april.jsonl -f json | jq .kinds', 'every figure as JSON'],
        ['numintel diff march.csv april.csv --html changes.html', 'and as a page to share'],
      ]),
    )
    .action(async (before: string, after: string, flags: { format?: 'text' | 'json' | 'csv' | 'jsonl' | 'xlsx'; output?: string; html?: string; only?: ChangeKind[]; scoreDelta: number; first: number }) => {
      const { runDiff } = await import('./run-diff.js');
      setExitCode(await runDiff({ before, after, format: flags.format, output: flags.output, html: flags.html, only: flags.only, scoreDelta: flags.scoreDelta, first: Math.floor(flags.first) }, world));
    });
}
