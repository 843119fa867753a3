// `numintel completion bash|zsh|fish`: prints the shell's completion script for the whole program.
import { Argument, Command } from 'commander';
import { completionScript, SHELLS, type Shell } from './completion.js';
import type { World } from './world.js';

const INSTALL_HELP = `
Install (then open a new shell):
  bash  numintel completion bash > ~/.local/share/bash-completion/completions/numintel
        (or add  source <(numintel completion bash)  to ~/.bashrc)
  zsh   numintel completion zsh > "\${fpath[1]}/_numintel"
        (or add  source <(numintel completion zsh)  to ~/.zshrc, after compinit)
  fish  numintel completion fish > ~/.config/fish/completions/numintel.fish

Examples:
  source <(numintel completion bash)
  numintel completion fish | source`;

/** `fullProgram` builds every command (a run builds only the one it names), to describe them all. */
export function completionCommand(world: World, fullProgram: () => Command): Command {
  return new Command('completion')
    .description('print the shell completion script (commands, flags, choices, config keys, profiles)')
    .addArgument(new Argument('<shell>', 'the shell').choices(SHELLS))
    .addHelpText('after', INSTALL_HELP)
    .action((shell: Shell) => {
      world.stdout.write(completionScript(shell, fullProgram()));
    });
}
