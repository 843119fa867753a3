// `numintel sandbox`: runs the built-in emulator of the service until Ctrl-C / SIGTERM.
import { resolve } from 'node:path';
import { Command, Option } from 'commander';
import { ENVELOPES } from '../api/envelopes/index.js';
import { BadOptionError, InputError, UsageError } from '../core/errors.js';
import { LOOKUP_KINDS, LOOKUPS, isLookupKind, perLookup, type LookupDescriptor, type LookupKind } from '../core/lookups.js';
import { maskSecret } from '../core/secret.js';
// Only the options here: the server (and graphql) load when the command runs, not at every start-up.
import {
  BULK_ROW_STYLES,
  DEFAULT_API_KEY,
  DEFAULT_BULK_LIMITS,
  DEFAULT_BULK_MAX,
  DEFAULT_OPTIONS,
  ERROR_STYLES,
  isDay,
  optionProblems,
  type BulkRowStyle,
  type ErrorStyle,
  type SandboxLimits,
  type SandboxOptions,
} from '../sandbox/options.js';
import type { World } from './world.js';
import { EXIT } from './exit.js';
import type { SetExitCode } from './lookup-command.js';
import { isLoopback } from '../core/loopback.js';
import { examples, topics } from './help.js';

const SANDBOX_DEFAULT_PORT = 4010;

/** `LRN, CNAM and Trust`: the titles of these lookups, for prose. */
function titles(ds: readonly LookupDescriptor[]): string {
  const t = ds.map((d) => d.title);
  return t.length < 2 ? (t[0] ?? '') : `${t.slice(0, -1).join(', ')} and ${t.at(-1) ?? ''}`;
}

/** What the help says per lookup, from the descriptors and their envelopes. */
function lookupHelp(): { reset: string; bodies429: string; numbers: string } {
  const ds = LOOKUP_KINDS.map((k) => LOOKUPS[k]);
  const seconds = ds.filter((d) => d.rateReset === 'seconds');
  const stamps = ds.filter((d) => d.rateReset === 'timestamp');
  const reset = [seconds.length > 0 ? `seconds to wait for ${titles(seconds)}` : '', stamps.length > 0 ? `a Unix timestamp for ${titles(stamps)}` : ''].filter(Boolean).join(', ');
  const bodies429 = ds.map((d) => `${d.title} ${ENVELOPES[d.envelope].shapes.rateLimited}`).join('; ');
  const numbers = ds
    .map((d) => `${d.title}: ${d.numbers.rule}, else 400 ${ENVELOPES[d.envelope].shapes.invalidNumber}${d.invalidResult ? ` with data ${JSON.stringify(d.invalidResult)}` : ''}.`)
    .join(' ');
  return { reset, bodies429, numbers };
}

const bulkLookups = () => LOOKUP_KINDS.map((k) => LOOKUPS[k]).filter((d) => d.bulk !== undefined);

/** `POST /api/v1/lrn/bulk with phone_numbers (a list), include_enhanced, include_messaging; …`, from the descriptors. */
function bulkHelp(): string {
  const endpoints = bulkLookups().map((d) => `POST ${d.bulk?.path ?? ''} with ${[`${d.bulk?.numbersParam ?? ''} (a list)`, ...Object.values(d.bulk?.params ?? {})].join(', ')}`);
  return `${endpoints.join('; ')}.`;
}

/** `lrn_value, voice_provider, …`: the bulk-style names that are not the single endpoint's. */
function bulkNames(): string {
  return bulkLookups()
    .flatMap((d) => Object.entries(d.bulk?.rowNames ?? {}))
    .flatMap(([field, [first]]) => (first === undefined || first === field || first === field.split('.').at(-1) ? [] : [first]))
    .join(', ');
}

/** The sandbox's choices, wrapped when its help is shown (not at every start-up). */
const choicesHelp = () => {
  const per = lookupHelp();
  return `${topics('Behaviour (stable, so tests can rely on it; see docs/sandbox.md):', [
  ['Auth', 'Authorization: Bearer <key> on REST and GraphQL. Missing, malformed, unknown or revoked key: 401 {"error":"unauthorized","message":...} + WWW-Authenticate: Bearer.'],
  ['Limits', `fixed one-second windows per key and per lookup, aligned to wall-clock seconds (0 = unlimited, and then no X-RateLimit-* headers). X-RateLimit-Reset is ${per.reset}.`],
  ['Windows', '--window S: windows of S seconds (aligned to multiples of S since the epoch); --shared-limit N: one budget of N per window for all lookups of a key (the per-lookup limits then do not apply); --burst F: at most F × the average per second in any one second of a longer window (429 with Retry-After: 1); --hide-limit: no X-RateLimit-Limit nor quota (the client must learn it); --rate-headers ietf|both: the IETF fields RateLimit: "window";r=R;t=T and RateLimit-Policy: "window";q=N;w=S (a burst cap adds a "burst" policy) instead of, or beside, X-RateLimit-*.'],
  ['429 bodies', `${per.bodies429}; all with Retry-After.`],
  ['Quota', '--quota N billed lookups per key (default unlimited); past it 402 {"error":"payment_required","message":...}. Invalid numbers are never billed.'],
  ['Numbers', per.numbers],
  ['Values', 'carrier_type WIRELESS|LANDLINE|VOIP|TOLLFREE; trust spam_type SPAM|ROBOCALL|SCAM|null, reputation_score 0-100, trust_level high|medium|low. Same number + seed + day (--today) = same answer; dates count back from the day.'],
  ['GraphQL', 'POST /graphql; errors carry extensions.code (GRAPHQL_PARSE_FAILED, GRAPHQL_VALIDATION_FAILED, INVALID_NUMBER, UNAUTHENTICATED, PAYMENT_REQUIRED, RATE_LIMITED, INTERNAL_SERVER_ERROR) with the same statuses and headers as REST.'],
  ['Error style', '--error-style vri: the real service\'s error bodies instead, taken in turn: {"error","code","details"}, {"error":{"code","message"}} and {"data":null,"errors"}; codes INVALID_API_KEY 401, INSUFFICIENT_BALANCE 402, rate_limited and RATE_LIMIT_EXCEEDED 429, INVALID_PHONE_NUMBER and INTERNATIONAL_NOT_SUPPORTED 400, INTERNAL_ERROR 500, SERVER_ERROR 502, PROVIDER_ERROR 503 (GraphQL codes likewise); values carrier_type WRS (wireless) and spam_type TELEMARKETER (some spam numbers).'],
  ['Faults', '--fail-rate: 500/502/503 with a short JSON body; --reset-rate: connection reset; --hang-rate: no answer; --rate-429: spurious 429s with the usual hints, whose rate headers show the window\'s real room (a gateway\'s 429, not a spent window); --rate-429-bare: those 429s give no hint at all (no Retry-After, no retry_after). A hinted 429 holds its endpoint for the key: a request that arrives before the hint has passed (100 ms after the 429 left) is counted as early in the stats. All of these apply to a bulk request as a whole too; --bulk-fail-rate: a number of a bulk request comes back as a row with status "failed" (not billed).'],
  ['Bulk', `${bulkHelp()} One row per distinct number with input_indices and status success|cached (billed before, by any endpoint)|failed|invalid (with error); summary (per position), billing (distinct numbers answered), timing, job_id. Its own limit per key (--bulk-limit, default ${limitList(DEFAULT_BULK_LIMITS)} requests per window; --window, --burst and the header options apply, --shared-limit does not), the single endpoint's 401/402/429/5xx shapes; 400 past --bulk-max numbers (default ${DEFAULT_BULK_MAX}); 402 when the quota cannot cover the request's distinct valid numbers. Rows name fields the bulk way (${bulkNames()}); --bulk-rows single: the single endpoint's names. --no-bulk: 404 there, as a server without them.`],
  ['Admin', 'sandbox-only, no key on loopback (an accepted key on any other interface): GET /__sandbox/stats, POST /__sandbox/reset, POST /__sandbox/config (JSON patch of limits, quota, faults), POST /__sandbox/revoke.'],
  ['TLS', '--tls: HTTPS with a self-signed certificate for localhost, 127.0.0.1 and ::1 made at start; its PEM file is printed (trust it with NODE_EXTRA_CA_CERTS or --ca-file).'],
])}${examples([
  ['numintel sandbox --port 4010 --limit lrn=5,trust=20 --fail-rate 0.1', 'LRN limited to 5/s, trust to 20/s; 10% of requests fail'],
  [`NUMINTEL_API_KEY=${DEFAULT_API_KEY} numintel lrn 12015550123 \\\n      --base-url http://127.0.0.1:4010`, 'then, in another terminal, a lookup against it'],
  ['numintel sandbox --tls --port 0', 'over HTTPS, on a free port; it prints its certificate'],
])}`;
};

interface SandboxFlags {
  host: string;
  port: string;
  apiKey?: string[];
  seed: string;
  today?: string;
  limit?: string[];
  window: string;
  sharedLimit: string;
  burst?: string;
  hideLimit?: boolean;
  rateHeaders: string;
  quota?: string;
  latency?: string;
  jitter?: string;
  failRate?: string;
  resetRate?: string;
  hangRate?: string;
  rate429?: string;
  rate429Bare?: boolean;
  verbose?: boolean;
  errorStyle: ErrorStyle;
  tls?: boolean;
  tlsCert?: string;
  tlsKey?: string;
  bulk: boolean;
  bulkMax: string;
  bulkLimit?: string[];
  bulkRows: BulkRowStyle;
  bulkFailRate?: string;
}

const collect = (value: string, previous: string[] | undefined) => [...(previous ?? []), value];

export function sandboxCommand(world: World, setExitCode: SetExitCode): Command {
  const cmd = new Command('sandbox');
  // --limit-<lookup> for every lookup: the older spelling of --limit <lookup>=<n>.
  const aliases = new Map<LookupKind, Option>(LOOKUP_KINDS.map((k) => [k, new Option(`--limit-${k} <n>`, `${LOOKUPS[k].title} requests per second per key: --limit ${k}=<n>`)]));
  cmd
    .summary('run the built-in emulator of the Number Intelligence Service (REST and GraphQL) on loopback')
    .description('Runs the built-in emulator of the Number Intelligence Service (REST and GraphQL) on loopback, in the foreground until Ctrl-C, SIGTERM or SIGHUP: then it closes its port and exits 130.')
    .option('--host <host>', 'interface to listen on', DEFAULT_OPTIONS.host)
    .option('--port <n>', 'port to listen on (0 = any free port)', String(SANDBOX_DEFAULT_PORT))
    .option('--api-key <key>', `accepted API key, repeatable (default ${DEFAULT_API_KEY})`, collect)
    .option('--seed <seed>', 'picks the synthetic data universe', '0')
    .option('--today <date>', "the sandbox's day, YYYY-MM-DD: activation and trust-update dates are counted back from it (default: today, UTC)")
    .option('--limit <lookup=n,...>', `requests per second per key of a lookup (0 = unlimited), repeatable or a comma list: --limit lrn=20,trust=5 (default ${limitList(perLookup((d) => d.sandboxLimit))})`, collect);
  for (const alias of aliases.values()) cmd.addOption(alias);
  return cmd
    .option('--window <seconds>', 'length of every rate window, whole seconds', '1')
    .option('--shared-limit <n>', 'one budget per window for all lookups of a key (0 = each lookup its own)', '0')
    .option('--burst <factor>', 'in a window longer than 1 s, at most this × its average per second in any second')
    .option('--hide-limit', 'leave the limit out of the rate headers')
    .option('--rate-headers <style>', 'rate fields to send: x (X-RateLimit-*), ietf (RateLimit, RateLimit-Policy) or both', 'x')
    .option('--quota <n>', 'billed lookups per key before 402 (default unlimited)')
    .option('--no-bulk', 'no bulk endpoints: 404 on their paths')
    .option('--bulk-max <n>', 'most numbers one bulk request may carry (past it 400)', String(DEFAULT_BULK_MAX))
    .option('--bulk-limit <n|lookup=n,...>', `bulk requests per window per key (0 = unlimited): one number for every bulk endpoint, or per lookup, repeatable (default ${limitList(DEFAULT_BULK_LIMITS)})`, collect)
    .addOption(new Option('--bulk-rows <style>', "field names of bulk rows: bulk (the bulk endpoints' own) or single (the single endpoint's)").choices(BULK_ROW_STYLES).default('bulk'))
    .option('--latency <ms>', 'added latency per request')
    .option('--jitter <ms>', 'up to this much more latency, at random')
    .option('--fail-rate <p>', 'probability 0..1 of a 500/502/503')
    .option('--reset-rate <p>', 'probability 0..1 of a reset connection')
    .option('--hang-rate <p>', 'probability 0..1 of never answering')
    .option('--rate-429 <p>', 'probability 0..1 of a spurious 429')
    .option('--rate-429-bare', 'spurious 429s carry no wait hint')
    .option('--bulk-fail-rate <p>', 'probability 0..1 that a number of a bulk request comes back as a failed row')
    .addOption(
      new Option('--error-style <style>', "error bodies: numintel (each endpoint's own envelope) or vri (the real service's codes and three body formats)")
        .choices(ERROR_STYLES)
        .default('numintel'),
    )
    .option('--verbose', 'log one line per request to stderr (keys masked)')
    .option('--tls', 'serve HTTPS with a self-signed certificate for localhost, 127.0.0.1 and ::1, made at start (its PEM file is printed)')
    .option('--tls-cert <pem>', 'serve HTTPS with this certificate (PEM file; with --tls-key)')
    .option('--tls-key <pem>', 'the private key of --tls-cert (PEM file)')
    .addHelpText('after', choicesHelp)
    .action(async (flags: SandboxFlags) => {
      const options = sandboxOptions(flags, limitsOf(flags, aliases), world);
      options.tls = await tlsOption(flags, world.cwd);
      const { startSandbox } = await import('../sandbox/index.js');
      const sb = await startSandbox(options).catch((err: unknown) => {
        throw new UsageError(`cannot start the sandbox on ${options.host}:${options.port}: ${err instanceof Error ? err.message : String(err)}`);
      });
      const keys = options.apiKeys ?? [DEFAULT_API_KEY];
      // The documented key is public; any other key is shown masked like every secret.
      const shown = sb.apiKey === DEFAULT_API_KEY ? sb.apiKey : maskSecret(sb.apiKey);
      const more = keys.length > 1 ? ` +${keys.length - 1} more` : '';
      // With TLS, where the certificate to trust is: the file given, or the one made at start.
      const certFile = flags.tlsCert === undefined ? sb.caFile : resolve(world.cwd, flags.tlsCert);
      const trust = certFile ? `numintel sandbox certificate: ${certFile} (trust it with NODE_EXTRA_CA_CERTS=${certFile} or --ca-file ${certFile})\n` : '';
      // Bound beyond loopback: say where it really listens; sb.url is how this machine reaches it.
      const open = isLoopback(options.host ?? DEFAULT_OPTIONS.host);
      const bound = new URL(sb.url);
      const host = options.host ?? '';
      const where = open ? sb.url : `${bound.protocol}//${host.includes(':') ? `[${host}]` : host}:${bound.port} (from this machine: ${sb.url})`;
      const admin = open ? '' : networkWarning(keys);
      world.stdout.write(`numintel sandbox listening on ${where} (API key: ${shown}${more})\n${trust}${admin}`);
      await new Promise<void>((resolve) => {
        if (world.interrupt.aborted) return resolve();
        world.interrupt.addEventListener('abort', () => resolve(), { once: true });
      });
      await sb.close();
      world.stderr.write('numintel sandbox: stopped\n');
      // A server has no other way to end than a signal, and the exit codes of cli.md give every
      // one of them (Ctrl-C, SIGTERM, SIGHUP) one meaning for every command: interrupted, 130, as
      // a lookup run says it. Not 143 for SIGTERM (a code the contract does not have), and not 0,
      // which would tell a shell or a script that the server ended by itself.
      setExitCode(EXIT.interrupted);
    });
}

/**
 * Said when the sandbox listens beyond loopback: what the network can reach. The published key
 * answers lookups for anyone there, and is refused by the admin endpoints (they change limits and
 * faults and read every key's traffic), which take only a key given with --api-key.
 */
function networkWarning(keys: readonly string[]): string {
  if (!keys.includes(DEFAULT_API_KEY)) {
    return 'warning: the sandbox is reachable from the network: its lookups answer anyone there who has the API key\nthe admin endpoints (/__sandbox/*) need the API key, as the service does\n';
  }
  return (
    `warning: the sandbox is reachable from the network, where the published key ${DEFAULT_API_KEY} answers lookups for anyone\n` +
    'the admin endpoints (/__sandbox/*) need the API key, as the service does, and refuse the published one: give --api-key <key> of your own to use them\n'
  );
}

/** --tls, or the PEM texts of --tls-cert and --tls-key; false for plain HTTP. */
async function tlsOption(flags: SandboxFlags, cwd: string): Promise<SandboxOptions['tls']> {
  if ((flags.tlsCert === undefined) !== (flags.tlsKey === undefined)) throw new UsageError('--tls-cert and --tls-key go together', 'give both PEM files, or --tls for a certificate made at start');
  if (flags.tlsCert === undefined || flags.tlsKey === undefined) return flags.tls === true;
  // Loaded here, not at every start-up: most commands never read a file this way.
  // oxlint-disable-next-line no-restricted-imports -- a dynamic import, loaded on use (the rule is about static ones)
  const { readFile } = await import('node:fs/promises');
  const read = async (flag: string, path: string, label: string) => {
    let text: string;
    try {
      text = await readFile(resolve(cwd, path), 'utf8');
    } catch (err) {
      throw new InputError(`cannot read ${flag} ${path}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
    }
    if (!new RegExp(`-----BEGIN [A-Z ]*${label}-----`).test(text)) throw new InputError(`${flag} ${path} holds no PEM ${label.toLowerCase()}`);
    return text;
  };
  return { cert: await read('--tls-cert', flags.tlsCert, 'CERTIFICATE'), key: await read('--tls-key', flags.tlsKey, 'PRIVATE KEY') };
}

const count = (name: string, v: string): number => {
  if (!/^\d+$/.test(v.trim())) throw new BadOptionError(`--${name} must be a whole number, got "${v}"`);
  return Number(v);
};

/** --window in the user's unit: the option check would name `windowMs` and milliseconds. */
const windowSeconds = (v: string): number => {
  const seconds = count('window', v);
  if (seconds < 1 || seconds > 86_400) throw new BadOptionError(`--window must be from 1 to 86400 seconds, got "${v}"`);
  return seconds;
};

/** `lrn=200,cnam=50,trust=100`. */
const limitList = (limits: Readonly<SandboxLimits>) =>
  Object.entries(limits)
    .map(([k, n]) => `${k}=${n}`)
    .join(',');

/** Each lookup's limit: its default, then --limit-<lookup>, then --limit <lookup>=<n> (the last given wins). */
function limitsOf(flags: SandboxFlags, aliases: ReadonlyMap<LookupKind, Option>): SandboxLimits {
  const limits: SandboxLimits = perLookup((d) => d.sandboxLimit);
  const given = flags as unknown as Record<string, string | undefined>;
  for (const [kind, alias] of aliases) {
    const v = given[alias.attributeName()];
    if (v !== undefined) limits[kind] = count(`limit-${kind}`, v);
  }
  for (const item of (flags.limit ?? []).flatMap((v) => v.split(','))) {
    const [kind = '', n, extra] = item.split('=').map((p) => p.trim());
    if (n === undefined || extra !== undefined) throw new BadOptionError(`--limit takes <lookup>=<n>, got "${item}"`, `e.g. --limit ${limitList(perLookup((d) => d.sandboxLimit))}`);
    if (!isLookupKind(kind)) throw new BadOptionError(`--limit names an unknown lookup "${kind}"`, `known: ${LOOKUP_KINDS.join(', ')}`);
    limits[kind] = count(`limit ${kind}`, n);
  }
  return limits;
}

const bulkMax = (v: string): number => {
  const n = count('bulk-max', v);
  if (n < 1 || n > 100_000) throw new BadOptionError(`--bulk-max must be from 1 to 100000 numbers, got "${v}"`);
  return n;
};

/** --bulk-limit: a number for every bulk endpoint, or <lookup>=<n> items (the last given wins). */
function bulkLimitsOf(flags: SandboxFlags): SandboxLimits {
  const limits: SandboxLimits = { ...DEFAULT_BULK_LIMITS };
  for (const item of (flags.bulkLimit ?? []).flatMap((v) => v.split(','))) {
    const parts = item.split('=').map((p) => p.trim());
    if (parts.length === 1) {
      const n = count('bulk-limit', parts[0] ?? '');
      for (const kind of Object.keys(limits) as LookupKind[]) limits[kind] = n;
      continue;
    }
    const [kind = '', n, extra] = parts;
    if (n === undefined || extra !== undefined) throw new BadOptionError(`--bulk-limit takes <n> or <lookup>=<n>, got "${item}"`, `e.g. --bulk-limit ${limitList(DEFAULT_BULK_LIMITS)}`);
    if (!isLookupKind(kind) || LOOKUPS[kind].bulk === undefined) throw new BadOptionError(`--bulk-limit names a lookup without a bulk endpoint "${kind}"`, `known: ${Object.keys(DEFAULT_BULK_LIMITS).join(', ')}`);
    limits[kind] = count(`bulk-limit ${kind}`, n);
  }
  return limits;
}

/** --today: a real day, YYYY-MM-DD. */
function dayFlag(v: string | undefined): string | undefined {
  if (v !== undefined && !isDay(v)) throw new BadOptionError(`--today must be a date YYYY-MM-DD, got "${v}"`);
  return v;
}

/** Flags to options, refusing bad values as usage errors that quote them. */
function sandboxOptions(flags: SandboxFlags, limits: SandboxLimits, world: Pick<World, 'stderr'>): Partial<SandboxOptions> {
  // Flags with a default in commander always have a value: they go through count() directly.
  const whole = (name: string, v: string | undefined) => (v === undefined ? undefined : count(name, v));
  const probability = (name: string, v: string | undefined): number | undefined => {
    if (v === undefined) return undefined;
    const n = Number(v);
    if (v.trim() === '' || !(n >= 0 && n <= 1)) throw new BadOptionError(`--${name} must be a probability from 0 to 1, got "${v}"`);
    return n;
  };
  const factor = (name: string, v: string | undefined): number | undefined => {
    if (v === undefined) return undefined;
    const n = Number(v);
    if (v.trim() === '' || !(n >= 1 && n <= 1000)) throw new BadOptionError(`--${name} must be a factor from 1 to 1000, got "${v}"`);
    return n;
  };
  const headerStyle = (v: string): SandboxOptions['rateHeaders'] => {
    if (v !== 'x' && v !== 'ietf' && v !== 'both') throw new BadOptionError(`--rate-headers must be x, ietf or both, got "${v}"`);
    return v;
  };
  const options: Partial<SandboxOptions> = {
    host: flags.host,
    port: count('port', flags.port),
    seed: /^-?\d+$/.test(flags.seed) ? Number(flags.seed) : flags.seed,
    today: dayFlag(flags.today),
    limits,
    windowMs: windowSeconds(flags.window) * 1000,
    sharedLimit: count('shared-limit', flags.sharedLimit),
    burst: factor('burst', flags.burst),
    hideLimit: flags.hideLimit === true,
    rateHeaders: headerStyle(flags.rateHeaders),
    bulk: flags.bulk,
    bulkMax: bulkMax(flags.bulkMax),
    bulkLimits: bulkLimitsOf(flags),
    bulkRows: flags.bulkRows,
    bulkFailRate: probability('bulk-fail-rate', flags.bulkFailRate),
    quota: whole('quota', flags.quota),
    latencyMs: whole('latency', flags.latency),
    jitterMs: whole('jitter', flags.jitter),
    failRate: probability('fail-rate', flags.failRate),
    resetRate: probability('reset-rate', flags.resetRate),
    hangRate: probability('hang-rate', flags.hangRate),
    rate429: probability('rate-429', flags.rate429),
    rate429Bare: flags.rate429Bare === true,
    verbose: flags.verbose === true,
    errorStyle: flags.errorStyle,
    log: (line) => world.stderr.write(`${line}\n`),
  };
  if (flags.apiKey) options.apiKeys = flags.apiKey;
  const problems = optionProblems(options as Record<string, unknown>);
  if (problems.length > 0) throw new BadOptionError(`invalid sandbox option: ${problems.join('; ')}`);
  return options;
}
