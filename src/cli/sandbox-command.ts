// `numintel sandbox`: runs the built-in emulator of the service until Ctrl-C / SIGTERM.
import { resolve } from 'node:path';
import { Command, Option } from 'commander';
import { BadOptionError, InputError, UsageError } from '../core/errors.js';
import { maskSecret } from '../core/secret.js';
// Only the options here: the server (and graphql) load when the command runs, not at every start-up.
import { DEFAULT_API_KEY, DEFAULT_LIMITS, DEFAULT_OPTIONS, ERROR_STYLES, optionProblems, type ErrorStyle, type SandboxOptions } from '../sandbox/options.js';
import type { World } from './world.js';
import { isLoopbackHost } from '../sandbox/hosts.js';
import { examples, topics } from './help.js';

const SANDBOX_DEFAULT_PORT = 4010;

/** The sandbox's choices, wrapped when its help is shown (not at every start-up). */
const choicesHelp = () => `${topics('Behaviour (stable, so tests can rely on it; see docs/sandbox.md):', [
  ['Auth', 'Authorization: Bearer <key> on REST and GraphQL. Missing, malformed, unknown or revoked key: 401 {"error":"unauthorized","message":...} + WWW-Authenticate: Bearer.'],
  ['Limits', 'fixed one-second windows per key and per lookup, aligned to wall-clock seconds (0 = unlimited, and then no X-RateLimit-* headers). X-RateLimit-Reset is seconds to wait for LRN, a Unix timestamp for CNAM and trust.'],
  ['Windows', '--window S: windows of S seconds (aligned to multiples of S since the epoch); --shared-limit N: one budget of N per window for all lookups of a key (the per-lookup limits then do not apply); --burst F: at most F × the average per second in any one second of a longer window (429 with Retry-After: 1); --hide-limit: no X-RateLimit-Limit nor quota (the client must learn it); --rate-headers ietf|both: the IETF fields RateLimit: "window";r=R;t=T and RateLimit-Policy: "window";q=N;w=S (a burst cap adds a "burst" policy) instead of, or beside, X-RateLimit-*.'],
  ['429 bodies', 'LRN {"error","message","retry_after"}; CNAM {"data":null,"errors":[...]}; trust {"success":false,"error":...}; all with Retry-After.'],
  ['Quota', '--quota N billed lookups per key (default unlimited); past it 402 {"error":"payment_required","message":...}. Invalid numbers are never billed.'],
  ['Numbers', 'LRN: 11 digits starting with 1, else 400 {"error","details"}. CNAM: 10 digits or 11 starting with 1, else 400 with data.spam_type INVALID_NUMBER. Trust: as CNAM, else 400 {"success":false,"error":...}.'],
  ['Values', 'carrier_type WIRELESS|LANDLINE|VOIP|TOLLFREE; trust spam_type SPAM|ROBOCALL|SCAM|null, reputation_score 0-100, trust_level high|medium|low. Same number + seed = same answer.'],
  ['GraphQL', 'POST /graphql; errors carry extensions.code (GRAPHQL_PARSE_FAILED, GRAPHQL_VALIDATION_FAILED, INVALID_NUMBER, UNAUTHENTICATED, PAYMENT_REQUIRED, RATE_LIMITED, INTERNAL_SERVER_ERROR) with the same statuses and headers as REST.'],
  ['Error style', '--error-style vri: the real service\'s error bodies instead, taken in turn: {"error","code","details"}, {"error":{"code","message"}} and {"data":null,"errors"}; codes INVALID_API_KEY 401, INSUFFICIENT_BALANCE 402, rate_limited and RATE_LIMIT_EXCEEDED 429, INVALID_PHONE_NUMBER and INTERNATIONAL_NOT_SUPPORTED 400, INTERNAL_ERROR 500, SERVER_ERROR 502, PROVIDER_ERROR 503 (GraphQL codes likewise); values carrier_type WRS (wireless) and spam_type TELEMARKETER (some spam numbers).'],
  ['Faults', '--fail-rate: 500/502/503 with a short JSON body; --reset-rate: connection reset; --hang-rate: no answer; --rate-429: spurious 429s with the usual hints, whose rate headers show the window\'s real room (a gateway\'s 429, not a spent window).'],
  ['Admin', 'sandbox-only, no key on loopback (an accepted key on any other interface): GET /__sandbox/stats, POST /__sandbox/reset, POST /__sandbox/config (JSON patch of limits, quota, faults), POST /__sandbox/revoke.'],
  ['TLS', '--tls: HTTPS with a self-signed certificate for localhost, 127.0.0.1 and ::1 made at start; its PEM file is printed (trust it with NODE_EXTRA_CA_CERTS or --ca-file).'],
])}${examples([
  ['numintel sandbox --port 4010 --limit-lrn 5 --fail-rate 0.1', 'a sandbox that limits LRN to 5/s and fails 10% of requests'],
  [`NUMINTEL_API_KEY=${DEFAULT_API_KEY} numintel lrn 12015550123 \\\n      --base-url http://127.0.0.1:4010`, 'then, in another terminal, a lookup against it'],
  ['numintel sandbox --tls --port 0', 'over HTTPS, on a free port; it prints its certificate'],
])}`;

interface SandboxFlags {
  host: string;
  port: string;
  apiKey?: string[];
  seed: string;
  limitLrn: string;
  limitCnam: string;
  limitTrust: string;
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
  verbose?: boolean;
  errorStyle: ErrorStyle;
  tls?: boolean;
  tlsCert?: string;
  tlsKey?: string;
}

const collect = (value: string, previous: string[] | undefined) => [...(previous ?? []), value];

export function sandboxCommand(world: World): Command {
  return new Command('sandbox')
    .description('run the built-in emulator of the Number Intelligence Service (REST and GraphQL) on loopback')
    .option('--host <host>', 'interface to listen on', DEFAULT_OPTIONS.host)
    .option('--port <n>', 'port to listen on (0 = any free port)', String(SANDBOX_DEFAULT_PORT))
    .option('--api-key <key>', `accepted API key, repeatable (default ${DEFAULT_API_KEY})`, collect)
    .option('--seed <seed>', 'picks the synthetic data universe', '0')
    .option('--limit-lrn <n>', 'LRN requests per second per key (0 = unlimited)', String(DEFAULT_LIMITS.lrn))
    .option('--limit-cnam <n>', 'CNAM requests per second per key (0 = unlimited)', String(DEFAULT_LIMITS.cnam))
    .option('--limit-trust <n>', 'trust requests per second per key (0 = unlimited)', String(DEFAULT_LIMITS.trust))
    .option('--window <seconds>', 'length of every rate window, whole seconds', '1')
    .option('--shared-limit <n>', 'one budget per window for all lookups of a key (0 = each lookup its own)', '0')
    .option('--burst <factor>', 'in a window longer than 1 s, at most this × its average per second in any second')
    .option('--hide-limit', 'leave the limit out of the rate headers')
    .option('--rate-headers <style>', 'rate fields to send: x (X-RateLimit-*), ietf (RateLimit, RateLimit-Policy) or both', 'x')
    .option('--quota <n>', 'billed lookups per key before 402 (default unlimited)')
    .option('--latency <ms>', 'added latency per request')
    .option('--jitter <ms>', 'up to this much more latency, at random')
    .option('--fail-rate <p>', 'probability 0..1 of a 500/502/503')
    .option('--reset-rate <p>', 'probability 0..1 of a reset connection')
    .option('--hang-rate <p>', 'probability 0..1 of never answering')
    .option('--rate-429 <p>', 'probability 0..1 of a spurious 429')
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
      const options = sandboxOptions(flags, world);
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
      const open = isLoopbackHost(options.host ?? DEFAULT_OPTIONS.host);
      const bound = new URL(sb.url);
      const host = options.host ?? '';
      const where = open ? sb.url : `${bound.protocol}//${host.includes(':') ? `[${host}]` : host}:${bound.port} (from this machine: ${sb.url})`;
      const admin = open ? '' : 'the admin endpoints (/__sandbox/*) need the API key, as the service does\n';
      world.stdout.write(`numintel sandbox listening on ${where} (API key: ${shown}${more})\n${trust}${admin}`);
      await new Promise<void>((resolve) => {
        if (world.interrupt.aborted) return resolve();
        world.interrupt.addEventListener('abort', () => resolve(), { once: true });
      });
      await sb.close();
      world.stderr.write('numintel sandbox: stopped\n');
    });
}

/** --tls, or the PEM texts of --tls-cert and --tls-key; false for plain HTTP. */
async function tlsOption(flags: SandboxFlags, cwd: string): Promise<SandboxOptions['tls']> {
  if ((flags.tlsCert === undefined) !== (flags.tlsKey === undefined)) throw new UsageError('--tls-cert and --tls-key go together', 'give both PEM files, or --tls for a certificate made at start');
  if (flags.tlsCert === undefined || flags.tlsKey === undefined) return flags.tls === true;
  // Loaded here, not at every start-up: most commands never read a file this way.
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

/** Flags to options, refusing bad values as usage errors that quote them. */
function sandboxOptions(flags: SandboxFlags, world: Pick<World, 'stderr'>): Partial<SandboxOptions> {
  const count = (name: string, v: string): number => {
    if (!/^\d+$/.test(v.trim())) throw new BadOptionError(`--${name} must be a whole number, got "${v}"`);
    return Number(v);
  };
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
    limits: {
      lrn: count('limit-lrn', flags.limitLrn),
      cnam: count('limit-cnam', flags.limitCnam),
      trust: count('limit-trust', flags.limitTrust),
    },
    windowMs: count('window', flags.window) * 1000,
    sharedLimit: count('shared-limit', flags.sharedLimit),
    burst: factor('burst', flags.burst),
    hideLimit: flags.hideLimit === true,
    rateHeaders: headerStyle(flags.rateHeaders),
    quota: whole('quota', flags.quota),
    latencyMs: whole('latency', flags.latency),
    jitterMs: whole('jitter', flags.jitter),
    failRate: probability('fail-rate', flags.failRate),
    resetRate: probability('reset-rate', flags.resetRate),
    hangRate: probability('hang-rate', flags.hangRate),
    rate429: probability('rate-429', flags.rate429),
    verbose: flags.verbose === true,
    errorStyle: flags.errorStyle,
    log: (line) => world.stderr.write(`${line}\n`),
  };
  if (flags.apiKey) options.apiKeys = flags.apiKey;
  const problems = optionProblems(options as Record<string, unknown>);
  if (problems.length > 0) throw new BadOptionError(`invalid sandbox option: ${problems.join('; ')}`);
  return options;
}
