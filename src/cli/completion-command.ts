// `numintel completion bash|zsh|fish`: prints the shell's completion script for the whole program.
import { Argument, Command } from 'commander';
import { completionScript, SHELLS, type Shell } from './completion.js';
import type { World } from './world.js';
import { examples } from './help.js';

const INSTALL_HELP = examples([
  ['source <(numintel completion bash)', 'bash: this shell; add the line to ~/.bashrc for every shell'],
  ['numintel completion zsh > "${fpath[1]}/_numintel"', 'zsh, installed (then restart zsh)'],
  ['numintel completion fish > ~/.config/fish/completions/numintel.fish', 'fish, installed'],
]);

/** `fullProgram` builds every command (a run builds only the one it names), to describe them all. */
export function completionCommand(world: World, fullProgram: () => Promise<Command>): Command {
  return new Command('completion')
    .description('print the shell completion script (commands, flags, choices, config keys, profiles)')
    .addArgument(new Argument('<shell>', 'the shell').choices(SHELLS))
    .addHelpText('after', INSTALL_HELP)
    .action(async (shell: Shell) => {
      world.stdout.write(completionScript(shell, await fullProgram()));
    });
}
