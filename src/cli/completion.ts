// Shell completion scripts, generated from the program's own command tree (commands, flags, their
// choices, config keys), so they never drift from the commands. Profiles are asked of
// `numintel config profiles` when completed, since they live in the user's config file.
import type { Command, Option } from 'commander';
import { LOOKUP_KINDS } from '../core/lookups.js';
import { SETTING_NAMES } from '../settings/known-settings.js';

export const SHELLS = ['bash', 'zsh', 'fish'] as const;
export type Shell = (typeof SHELLS)[number];

type ValueKind =
  | { kind: 'file' }
  | { kind: 'profile' }
  | { kind: 'choice'; choices: readonly string[] }
  /** A comma-separated list of choices (`--lookups lrn,trust`): each item completes after the last comma. */
  | { kind: 'list'; choices: readonly string[] }
  | { kind: 'free' };

interface FlagSpec {
  readonly short?: string;
  readonly long?: string;
  readonly description: string;
  /** What the flag's value is; undefined for a flag that takes none. */
  readonly value?: ValueKind;
}

interface CommandSpec {
  /** Words from the program to this command: [] for the program itself, ['config', 'set']. */
  readonly path: readonly string[];
  readonly description: string;
  readonly subcommands: readonly { name: string; description: string }[];
  readonly flags: readonly FlagSpec[];
  /** What the command's operands are. */
  readonly operands: 'file' | 'config-key' | 'none';
  /** The operand's choices, when it has a fixed set (`completion <shell>`). */
  readonly operandChoices: readonly string[];
}

/** Flags whose value is a path: completed with file names. */
const FILE_FLAGS = new Set(['--input', '--output', '--api-key-file', '--ca-file', '--tls-cert', '--tls-key', '--html', '--report']);

function valueOf(o: Option): ValueKind | undefined {
  if (!o.required && !o.optional) return undefined;
  if (o.argChoices) return { kind: 'choice', choices: o.argChoices };
  if (o.long === '--lookups') return { kind: 'list', choices: LOOKUP_KINDS };
  if (o.long === '--profile') return { kind: 'profile' };
  if (o.long && FILE_FLAGS.has(o.long)) return { kind: 'file' };
  return { kind: 'free' };
}

function flagsOf(cmd: Command): FlagSpec[] {
  const flags: FlagSpec[] = cmd.options
    .filter((o) => !o.hidden)
    .map((o) => ({ short: o.short, long: o.long, description: o.description, value: valueOf(o) }));
  flags.push({ short: '-h', long: '--help', description: 'display help for command' });
  return flags;
}

function operandsOf(cmd: Command): CommandSpec['operands'] {
  const names = cmd.registeredArguments.map((a) => a.name());
  if (names.includes('key')) return 'config-key';
  if (names.includes('file') || names.includes('input') || names.includes('html')) return 'file';
  return 'none';
}

/** Every command of the tree, the program first. */
export function commandSpecs(program: Command): CommandSpec[] {
  const specs: CommandSpec[] = [];
  const visit = (cmd: Command, path: string[]) => {
    const subs = cmd.commands.filter((c) => !(c as Command & { _hidden?: boolean })._hidden);
    specs.push({
      path,
      description: cmd.summary() || cmd.description(),
      subcommands: subs.map((c) => ({ name: c.name(), description: c.summary() || c.description().split('\n')[0]! })),
      flags: flagsOf(cmd),
      operands: operandsOf(cmd),
      operandChoices: path.join(' ') === 'help' ? helpTopics(program) : cmd.registeredArguments.flatMap((a) => a.argChoices ?? []),
    });
    for (const sub of subs) visit(sub, [...path, sub.name()]);
  };
  visit(program, []);
  return specs;
}

/** What `numintel help <topic>` takes first: a command, or `environment`. */
function helpTopics(program: Command): string[] {
  return [...program.commands.filter((c) => c.name() !== 'help').map((c) => c.name()), 'environment'];
}

const CONFIG_KEYS = SETTING_NAMES;

export function completionScript(shell: Shell, program: Command): string {
  const specs = commandSpecs(program);
  const name = program.name();
  if (shell === 'bash') return bashScript(name, specs);
  if (shell === 'zsh') return zshScript(name, specs);
  return fishScript(name, specs);
}

const names = (f: FlagSpec) => [f.short, f.long].filter((n): n is string => n !== undefined);
/** Single-quoted for sh-like shells. */
const q = (s: string) => `'${s.replaceAll("'", `'\\''`)}'`;
const oneLine = (s: string) => s.replace(/\s+/g, ' ').trim();
/** One case a flag whose value completes from something (files, choices, profiles): `'lrn|-f'|…) action ;;`. */
function valueCasesOf(specs: readonly CommandSpec[], action: (v: Exclude<ValueKind, { kind: 'free' }>) => string): string {
  return specs
    .flatMap((s) => s.flags.flatMap((f) => (f.value && f.value.kind !== 'free' ? [`    ${casePattern(s, f)}) ${action(f.value)} ;;`] : [])))
    .join('\n');
}

/** The case pattern of a flag's value at a command: `'lrn|-f'|'lrn|--format'` (path|flag). */
const casePattern = (s: CommandSpec, f: FlagSpec) => names(f).map((n) => q(`${s.path.join(' ')}|${n}`)).join('|');

function bashScript(name: string, specs: CommandSpec[]): string {
  const fn = `_${name}`;
  const specCases = specs
    .map((s) => {
      const valued = s.flags.filter((f) => f.value).flatMap(names);
      return `    ${q(s.path.join(' '))}) subs=${q([...s.subcommands.map((c) => c.name), ...s.operandChoices].join(' '))}; flags=${q(s.flags.flatMap(names).join(' '))}; valued=${q(valued.join(' '))}; operands=${s.operands} ;;`;
    })
    .join('\n');
  const valueCases = valueCasesOf(specs, (v) => {
    if (v.kind === 'file') return 'COMPREPLY=($(compgen -f -- "$cur"))';
    // The items already typed stay as a prefix; no space after an item, so a comma can follow.
    if (v.kind === 'list') return `${fn}_list ${q(v.choices.join(' '))}`;
    const words = v.kind === 'choice' ? q(v.choices.join(' ')) : `"$(${name} config profiles 2>/dev/null)"`;
    return `COMPREPLY=($(compgen -W ${words} -- "$cur"))`;
  });
  return `# ${name} completion for bash. Load it in this shell:  source <(${name} completion bash)
# or for every shell:  ${name} completion bash > ~/.local/share/bash-completion/completions/${name}
# A comma-separated list ($1: its choices): the items already typed stay as a prefix and are not
# offered again; no space after an item, so a comma can follow.
${fn}_list() {
  local pre=\${cur%"\${cur##*,}"} w words=''
  for w in $1; do [[ ,$pre == *",$w,"* ]] || words+=" $w"; done
  COMPREPLY=($(compgen -P "$pre" -W "$words" -- "\${cur##*,}"))
  compopt -o nospace 2>/dev/null
}

${fn}_spec() {
  case "$1" in
${specCases}
    *) subs=''; flags=''; valued=''; operands=none ;;
  esac
}

${fn}() {
  local cur=\${COMP_WORDS[COMP_CWORD]} prev=\${COMP_WORDS[COMP_CWORD-1]}
  local cmdpath='' word i skip=0 subs flags valued operands
  for ((i = 1; i < COMP_CWORD; i++)); do
    word=\${COMP_WORDS[i]}
    if ((skip)); then skip=0; continue; fi
    ${fn}_spec "$cmdpath"
    case " $valued " in *" $word "*) skip=1; continue ;; esac
    [[ $word == -* ]] && continue
    case " $subs " in *" $word "*) cmdpath=\${cmdpath:+$cmdpath }$word ;; esac
  done
  ${fn}_spec "$cmdpath"
  COMPREPLY=()
  if ((skip)); then
    case "$cmdpath|$prev" in
${valueCases}
    esac
    return 0
  fi
  if [[ $cur == -* ]]; then
    COMPREPLY=($(compgen -W "$flags" -- "$cur"))
  elif [[ -n $subs ]]; then
    COMPREPLY=($(compgen -W "$subs" -- "$cur"))
  elif [[ $operands == file ]]; then
    COMPREPLY=($(compgen -f -- "$cur"))
  elif [[ $operands == config-key ]]; then
    COMPREPLY=($(compgen -W ${q(CONFIG_KEYS.join(' '))} -- "$cur"))
  fi
  return 0
}
complete -o default -F ${fn} ${name}
`;
}

function zshScript(name: string, specs: CommandSpec[]): string {
  const fn = `_${name}`;
  const esc = (s: string) => oneLine(s).replaceAll("'", `'\\''`).replaceAll(':', '\\:');
  const specCases = specs
    .map((s) => {
      const subs = [...s.subcommands.map((c) => `'${c.name}:${esc(c.description)}'`), ...s.operandChoices.map((c) => `'${c}'`)].join(' ');
      const flags = s.flags.flatMap((f) => names(f).map((n) => `'${n}:${esc(f.description)}'`)).join(' ');
      const valued = s.flags.filter((f) => f.value).flatMap(names).join(' ');
      return `    ${q(s.path.join(' '))}) subs=(${subs}); flags=(${flags}); valued=(${valued}); operands=${s.operands} ;;`;
    })
    .join('\n');
  const valueCases = valueCasesOf(specs, (v) => {
    if (v.kind === 'file') return '_files';
    if (v.kind === 'list') return `compset -P '*,'; local -a items=(${v.choices.map(q).join(' ')}) taken=(\${(s:,:)IPREFIX}); compadd -S '' -- \${items:|taken}`;
    const words = v.kind === 'choice' ? v.choices.map(q).join(' ') : `\${(f)"$(${name} config profiles 2>/dev/null)"}`;
    return `compadd -- ${words}`;
  });
  return `#compdef ${name}
# ${name} completion for zsh. Load it in this shell:  source <(${name} completion zsh)
# or for every shell: ${name} completion zsh > "\${fpath[1]}/_${name}"  (then restart zsh)
${fn}_spec() {
  case "$1" in
${specCases}
    *) subs=(); flags=(); valued=(); operands=none ;;
  esac
}

${fn}() {
  local cmdpath='' word prev i skip=0 operands
  local -a subs flags valued names
  for ((i = 2; i < CURRENT; i++)); do
    word=\${words[i]}
    if ((skip)); then skip=0; continue; fi
    ${fn}_spec "$cmdpath"
    if (( \${valued[(Ie)$word]} )); then skip=1; continue; fi
    [[ $word == -* ]] && continue
    # Inside (( )) an expansion is quoted, which would join a nested array: names first.
    names=(\${subs%%:*})
    if (( \${names[(Ie)$word]} )); then cmdpath=\${cmdpath:+$cmdpath }$word; fi
  done
  ${fn}_spec "$cmdpath"
  prev=\${words[CURRENT-1]}
  if ((skip)); then
    case "$cmdpath|$prev" in
${valueCases}
    esac
    return 0
  fi
  if [[ $PREFIX == -* ]]; then
    _describe -t flags 'flag' flags
  elif (( \${#subs} )); then
    _describe -t commands 'command' subs
  elif [[ $operands == file ]]; then
    _files
  elif [[ $operands == config-key ]]; then
    compadd -- ${CONFIG_KEYS.map(q).join(' ')}
  fi
}

if [[ $zsh_eval_context[-1] == loadautofunc ]]; then
  ${fn} "$@"
else
  compdef ${fn} ${name}
fi
`;
}

function fishScript(name: string, specs: CommandSpec[]): string {
  const lines = [
    `# ${name} completion for fish. Load it in this shell:  ${name} completion fish | source`,
    `# or for every shell:  ${name} completion fish > ~/.config/fish/completions/${name}.fish`,
    `complete -c ${name} -f`,
    // A comma-separated list (its choices as arguments): the items already typed stay as a prefix and are not offered again.
    `function __${name}_list`,
    "    set -l pre (string replace -r -- '[^,]*$' '' (commandline -ct))",
    '    set -l taken (string split -n , -- $pre)',
    '    for c in $argv',
    "        contains -- $c $taken; or printf '%s%s\\n' $pre $c",
    '    end',
    'end',
  ];
  const allSubs = (path: readonly string[]) => specs.find((s) => s.path.join(' ') === path.join(' '))?.subcommands.map((c) => c.name) ?? [];
  // The condition that the command line has reached `path` and gone no deeper.
  const at = (path: readonly string[]) => {
    const parts = path.map((w) => `__fish_seen_subcommand_from ${w}`);
    const deeper = allSubs(path);
    parts.push(path.length === 0 ? '__fish_use_subcommand' : deeper.length ? `not __fish_seen_subcommand_from ${deeper.join(' ')}` : '');
    return parts.filter(Boolean).join('; and ');
  };
  const fq = (s: string) => `'${oneLine(s).replaceAll('\\', '\\\\').replaceAll("'", "\\'")}'`;
  for (const s of specs) {
    const cond = at(s.path);
    for (const c of s.subcommands) lines.push(`complete -c ${name} -n ${fq(cond)} -a ${c.name} -d ${fq(c.description)}`);
    for (const f of s.flags) {
      const opts = [f.short ? `-s ${f.short.slice(1)}` : '', f.long ? `-l ${f.long.slice(2)}` : ''].filter(Boolean).join(' ');
      const v = f.value;
      let value = '';
      if (v?.kind === 'file') value = ' -r -F';
      else if (v?.kind === 'profile') value = ` -x -a ${fq(`(${name} config profiles 2>/dev/null)`)}`;
      else if (v?.kind === 'choice') value = ` -x -a ${fq(v.choices.join(' '))}`;
      else if (v?.kind === 'list') value = ` -x -a ${fq(`(__${name}_list ${v.choices.join(' ')})`)}`;
      else if (v) value = ' -x';
      lines.push(`complete -c ${name} -n ${fq(cond)} ${opts}${value} -d ${fq(f.description)}`);
    }
    for (const c of s.operandChoices) lines.push(`complete -c ${name} -n ${fq(cond)} -a ${c}`);
    if (s.operands === 'file') lines.push(`complete -c ${name} -n ${fq(cond)} -F`);
    if (s.operands === 'config-key') lines.push(`complete -c ${name} -n ${fq(cond)} -a ${fq(CONFIG_KEYS.join(' '))}`);
  }
  return `${lines.join('\n')}\n`;
}
