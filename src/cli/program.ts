// The commander program: every command, wired to the world. Nothing heavy is imported here.
import { Command } from 'commander';
import { UsageError } from '../core/errors.js';
import { LOOKUP_KINDS, LOOKUPS } from '../core/lookups.js';
import { VERSION } from '../core/version.js';
import { enrichCommand, lookupCommand, type RunF, type SetExitCode } from './lookup-command.js';
import { EXIT_CODES_HELP } from './exit.js';
import { environmentHelp, examples } from './help.js';
import { widthOf, type World } from './world.js';
import { forTerminal } from './terminal-text.js';

/** What tests put in place of a command's run function, to see the request its flags make. */
export interface ProgramHooks {
  readonly runLookups?: RunF;
}

/**
 * `named` is the first word of the command line: when it names a command, only that command is
 * built (building all of them is a millisecond or two of a one-number run); otherwise, as for
 * `--help` or a mistyped name, all of them are. The lookups' module is always there; the other
 * commands' modules are loaded only to be built, so a lookup's start-up neither loads nor sets up
 * them (nor what they alone import, such as the sandbox's options).
 */
export async function buildProgram(world: World, setExitCode: SetExitCode, named?: string, hooks: ProgramHooks = {}): Promise<Command> {
  const program = new Command('numintel')
    .description('U.S. phone number intelligence: LRN, CNAM and trust lookups, one number or millions.')
    .version(VERSION, '-V, --version')
    .helpCommand(false)
    .addHelpText(
      'after',
      `${examples([
        ['numintel lrn 12015550123 --sandbox', 'one number, as a table (the built-in sandbox: no key, no network)'],
        ['numintel lrn -i leads.csv -o leads.enriched.csv', 'a file, enriched into another'],
        ["printf '2015550123\\n' | numintel trust --sandbox | jq .result", 'a pipe: JSON lines out'],
        ['numintel help environment', 'every setting, config key and environment variable'],
      ])}\n${EXIT_CODES_HELP}`,
    );
  const fullProgram = () => buildProgram(world, () => {});
  const commands: Record<string, () => Command | Promise<Command>> = {
    ...Object.fromEntries(LOOKUP_KINDS.map((kind) => [kind, () => lookupCommand(LOOKUPS[kind], world, setExitCode, hooks.runLookups)])),
    enrich: () => enrichCommand(world, setExitCode, hooks.runLookups),
    report: async () => (await import('./report-command.js')).reportCommand(world, setExitCode),
    diff: async () => (await import('./diff-command.js')).diffCommand(world, setExitCode),
    sandbox: async () => (await import('./sandbox-command.js')).sandboxCommand(world, setExitCode),
    config: async () => (await import('./config-command.js')).configCommand(world),
    completion: async () => (await import('./completion-command.js')).completionCommand(world, fullProgram),
    cache: async () => (await import('./cache-command.js')).cacheCommand(world),
    doctor: async () => (await import('./doctor-command.js')).doctorCommand(world, setExitCode),
    help: () => helpCommand(world, fullProgram),
  };
  // `--version` needs no command; `--help` and a mistyped name need them all.
  const names = named === '-V' || named === '--version' ? [] : named !== undefined && Object.hasOwn(commands, named) ? [named] : Object.keys(commands);
  for (const name of names) program.addCommand(await commands[name]!());
  wire(program, world);
  return program;
}

/** `numintel help [command…]` and `numintel help environment`. */
function helpCommand(world: World, fullProgram: () => Promise<Command>): Command {
  return new Command('help')
    .description('help for a command, or `help environment`: every setting and environment variable')
    .argument('[topic...]', 'a command (`config set`), or environment')
    .action(async (topic: string[]) => {
      if (topic.length === 1 && topic[0] === 'environment') {
        world.stdout.write(environmentHelp(widthOf(world.stdout, world.env) ?? 80));
        return;
      }
      let cmd = await fullProgram();
      for (const word of topic) {
        const sub = cmd.commands.find((c) => c.name() === word);
        if (!sub) throw new UsageError(`no command or help topic "${topic.join(' ')}"`, 'see `numintel --help` for the commands; `numintel help environment` for settings');
        cmd = sub;
      }
      cmd.outputHelp();
    });
}

/** Every command throws instead of exiting and writes through the world's streams. */
function wire(cmd: Command, world: World): void {
  cmd
    .exitOverride()
    .showSuggestionAfterError()
    .showHelpAfterError(`(see \`${commandPath(cmd)} --help\`)`)
    .configureOutput({
      writeOut: (s) => world.stdout.write(s),
      writeErr: (s) => world.stderr.write(s),
      // Help wraps to the terminal the world has (80 columns when it does not say).
      getOutHelpWidth: () => widthOf(world.stdout, world.env) ?? 80,
      getErrHelpWidth: () => widthOf(world.stderr, world.env) ?? 80,
      outputError: (s, write) => write(forTerminal(s.startsWith('error:') ? `numintel: ${s}` : s, world.stderr, world.env)),
    });
  for (const sub of cmd.commands) wire(sub, world);
}

function commandPath(cmd: Command): string {
  const names: string[] = [];
  for (let c: Command | null = cmd; c; c = c.parent) names.unshift(c.name());
  return names.join(' ');
}
