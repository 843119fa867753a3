// Help text beyond what commander writes: each command's Examples, and `numintel help environment`,
// which is generated from the settings table (the same table drives flags, validation and config).
import { SETTINGS } from '../settings/known-settings.js';
import { wrapText } from '../output/wrap.js';

/** An Examples block: each command on its own line, with what it does on the line above. */
export function examples(list: readonly (readonly [command: string, what: string])[]): string {
  return `\nExamples:\n${list.map(([command, what]) => `  # ${what}\n  $ ${command}`).join('\n')}\n`;
}

/** A titled list of topics, each explained in prose wrapped to 80 columns beside its name. */
export function topics(title: string, list: readonly (readonly [name: string, text: string])[], width = 80): string {
  const indent = 14;
  const lines = list.flatMap(([name, text]) => wrapText(text, width - indent).map((l, i) => `${(i === 0 ? `  ${name}` : '').padEnd(indent)}${l}`));
  return `\n${title}\n${lines.join('\n')}\n`;
}

/** Environment variables that are not settings (where things live, colour, the network). */
const OTHER_VARIABLES: readonly (readonly [name: string, what: string])[] = [
  ['NUMINTEL_PROFILE', 'the config profile to use (default: default); --profile wins'],
  ['NUMINTEL_CONFIG_DIR', 'where config.json is (default: $XDG_CONFIG_HOME/numintel, else ~/.config/numintel)'],
  ['NUMINTEL_CACHE_DIR', 'where the lookup cache is (default: $XDG_CACHE_HOME/numintel, else ~/.cache/numintel)'],
  ['NUMINTEL_CODE_CACHE_DIR', "where the launcher keeps V8's compiled code (default: code/ in the cache directory)"],
  ['HTTPS_PROXY, HTTP_PROXY', 'a proxy for https:// and http:// services (either case)'],
  ['NO_PROXY', 'hosts reached without the proxy: names, .domains, host:port, 127.0.0.1, *'],
  ['NODE_EXTRA_CA_CERTS', "a PEM file of certificates trusted besides the system's (as --ca-file)"],
  ['NO_COLOR', 'set and not empty (any value): no colour'],
  ['FORCE_COLOR', '0 or false: no colour; 1-3, true or empty: colour even when piped'],
  ['CLICOLOR_FORCE', 'set and not 0: colour even when piped'],
  ['CLICOLOR', '0: no colour'],
  ['TERM', 'dumb: no colour and no progress bar'],
  ['COLUMNS', 'the width tables and help wrap to when the terminal does not say'],
];

/** `numintel help environment`: every variable and config key with its default, wrapped to `width`. */
export function environmentHelp(width = 80): string {
  const item = (term: string, text: string, indent: number) => {
    const lines = wrapText(text, Math.max(20, width - indent));
    const pad = ' '.repeat(indent);
    const first = `  ${term}`;
    if (first.length + 2 <= indent) return [`${first.padEnd(indent)}${lines[0]}`, ...lines.slice(1).map((l) => pad + l)];
    return [first, ...lines.map((l) => pad + l)];
  };
  const out: string[] = [...wrapText('Settings: flag > environment > config file (profile, then default) > default.', width), ''];
  out.push(...wrapText('Config keys (numintel config set <key> <value>), with their flag and variable:', width));
  for (const s of SETTINGS) {
    const where = [s.flag, s.env].filter(Boolean).join(', ');
    const fallback = s.default === undefined ? '' : ` Default: ${String(s.default)}.`;
    out.push(...item(s.name, `${s.description}${where ? ` (${where})` : ''}.${fallback} Expects ${s.expects}.`, 18));
  }
  out.push('', 'Environment variables:');
  for (const [name, what] of OTHER_VARIABLES) out.push(...item(name, `${what}.`, 26));
  out.push(
    '',
    ...wrapText('The API key is never taken from a flag: NUMINTEL_API_KEY, --api-key-file <path|->, or `numintel config set api-key` (asked without echo).', width),
  );
  return `${out.join('\n')}\n`;
}
