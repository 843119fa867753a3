// `numintel doctor`: where requests would go and how (base URL, proxy, TLS trust, key), then the
// service's GET /api/v1/status (no key, never billed) when it has one, then one request that cannot
// be billed: an LRN lookup of the number "1", which the service refuses as
// invalid once it has accepted the key (the key is checked first), so the answer tells whether the
// key is good without paying for anything.
// fs.promises, not node:fs/promises: the module loads on first use, not with every run's start-up.
import { promises as fs } from 'node:fs';
import { resolve } from 'node:path';
import { Command, Option } from 'commander';
import { InterruptedError } from '../core/errors.js';
import { ioReasonWithCode } from '../core/io-errors.js';
import { LOOKUPS } from '../core/lookups.js';
import type { Transport } from '../core/transport.js';
import { maskSecret } from '../core/secret.js';
import { checkBaseUrl } from '../api/base-url.js';
import { proxyFor, proxyFromEnv, shownProxy } from '../api/proxy.js';
import { resolveSettings, SET_BASE_URL_HINT, type Settings } from '../settings/resolve.js';
import { apiKeyFileReader } from '../settings/secret-input.js';
import { connect, readCaFile } from './connection.js';
import { EXIT } from './exit.js';
import { examples } from './help.js';
import { checkSandboxFlags, type SetExitCode } from './lookup-command.js';
import type { World } from './world.js';

interface DoctorFlags {
  baseUrl?: string;
  apiKeyFile?: string;
  profile?: string;
  caFile?: string;
  transport?: 'rest' | 'graphql';
  timeout?: string;
  sandbox?: boolean;
}

/** The number sent: never valid, so never billed. */
const PROBE = '1';

export function doctorCommand(world: World, setExitCode: SetExitCode): Command {
  return new Command('doctor')
    .description('check the base URL, proxy, TLS and API key with one request that cannot be billed')
    .option('--base-url <url>', 'service base URL (or NUMINTEL_BASE_URL, or the config file)')
    .option('--api-key-file <path>', 'read the API key from a file (- for stdin); or NUMINTEL_API_KEY')
    .option('--profile <name>', 'config profile (or NUMINTEL_PROFILE)')
    .option('--ca-file <pem>', 'trust these CA certificates too (or NUMINTEL_CA_FILE)')
    .addOption(new Option('--transport <transport>', 'rest or graphql').choices(['rest', 'graphql']))
    .option('--timeout <seconds>', 'how long to wait for the answer (default 15)')
    .option('--sandbox', 'check against the built-in sandbox')
    .addHelpText(
      'after',
      examples([
        ['numintel doctor --sandbox', 'what a check looks like (the built-in sandbox)'],
        ['numintel doctor --profile bulk', "check a profile's base URL and key"],
      ]),
    )
    .action(async (flags: DoctorFlags) => setExitCode(await runDoctor(flags, world)));
}

export async function runDoctor(flags: DoctorFlags, world: World): Promise<number> {
  const line = (mark: string, what: string, text: string) => world.stdout.write(`${mark.padEnd(4)} ${what.padEnd(10)} ${text}\n`);
  checkSandboxFlags(flags.sandbox === true, flags.baseUrl);
  const settings = await resolveSettings({
    flags: { 'base-url': flags.baseUrl, transport: flags.transport, timeout: flags.timeout, 'ca-file': flags.caFile },
    env: world.env,
    home: world.home,
    profile: flags.profile,
    apiKeyFile: flags.apiKeyFile,
    readApiKeyFile: apiKeyFileReader(() => world.stdin, world.cwd, { output: world.stderr, signal: world.interrupt }),
    skipApiKey: flags.sandbox === true,
    warn: (text) => void world.stderr.write(`numintel: warning: ${text}\n`),
  });
  if (!flags.sandbox) await describeSetup(settings, world, line);
  const connection = await connect({ sandbox: flags.sandbox === true }, settings, world, undefined);
  if (flags.sandbox) {
    // The same lines as against a service, so the example shows what a check looks like.
    line('ok', 'base URL', `${connection.baseUrl} (the built-in sandbox, started in this process)`);
    line('ok', 'proxy', 'none (the sandbox is reached directly)');
    line('ok', 'trust', 'not needed (plain HTTP on loopback)');
    line('ok', 'API key', `${maskSecret(connection.apiKey)} (the sandbox's)`);
  }
  try {
    await checkStatus(connection.transport, world, line);
    const started = world.clock.now();
    // Ctrl-C while the service keeps silent ends the check as it ends a run: exit 130, not an unexpected failure.
    const attempt = await connection.transport.send(LOOKUPS.lrn, PROBE, {}, world.interrupt).catch((err: unknown) => {
      throw world.interrupt.aborted ? new InterruptedError('interrupted while waiting for the service') : err;
    });
    const ms = world.clock.now() - started;
    switch (attempt.kind) {
      case 'invalid':
        line('ok', 'key', `accepted: the service checked it, then refused the test number "${PROBE}" as invalid, as it should (${ms} ms); nothing was billed`);
        return EXIT.ok;
      case 'ok':
        line('ok', 'key', `accepted (${ms} ms), but the service answered a lookup of the invalid number "${PROBE}": it may have been billed`);
        return EXIT.ok;
      case 'fatal': {
        const refused = attempt.error.code === 'unauthorized' || attempt.error.code === 'payment_required';
        line('FAIL', refused ? 'key' : 'connection', attempt.error.message);
        return refused ? EXIT.refused : EXIT.usage;
      }
      default:
        line('FAIL', 'connection', `the service could not be asked: ${attempt.error.message}`);
        return EXIT.usage;
    }
  } finally {
    await connection.close();
  }
}

/** The service's health endpoint, when it has one; without it the key's request below is the whole check. */
async function checkStatus(transport: Transport, world: World, line: (mark: string, what: string, text: string) => void): Promise<void> {
  if (!transport.status) return;
  const started = world.clock.now();
  const answer = await transport.status(world.interrupt).catch((err: unknown) => {
    throw world.interrupt.aborted ? new InterruptedError('interrupted while waiting for the service') : err;
  });
  const ms = world.clock.now() - started;
  if (answer.kind === 'up') {
    // Service text on a terminal: shown only when it is a plain word or two.
    const said = typeof answer.body.status === 'string' && /^[\w .-]{1,40}$/.test(answer.body.status) ? ` (status: ${answer.body.status})` : '';
    line('ok', 'service', `answered GET /api/v1/status${said} (${ms} ms); no key sent, nothing billed`);
  } else {
    line('--', 'service', `no GET /api/v1/status (${answer.why}): the request below checks the service`);
  }
}

const messageOf = (err: unknown): string => (err instanceof Error ? err.message : String(err));

/** What the run would use, and where each came from. */
async function describeSetup(settings: Settings, world: World, line: (mark: string, what: string, text: string) => void): Promise<void> {
  const from = (source: string) => (source === 'config' ? `config profile ${settings.profile}` : source === 'env' ? 'environment' : source);
  const base = settings.baseUrl;
  // The check a run makes before sending anything (plain http:// to a remote host, credentials in the URL).
  let unusable: string | undefined;
  try {
    if (base) checkBaseUrl(base, settings.apiKey !== undefined);
  } catch (err) {
    unusable = messageOf(err);
  }
  if (!base) line('FAIL', 'base URL', `none: ${SET_BASE_URL_HINT}`);
  else if (unusable) line('FAIL', 'base URL', `(from ${from(settings.source.baseUrl)}) ${unusable}`);
  else line('ok', 'base URL', `${base} (from ${from(settings.source.baseUrl)})`);
  try {
    const proxy = proxyFromEnv(world.env);
    const via = base && proxy ? proxyFor(proxy, base) : '';
    line('ok', 'proxy', via ? `${shownProxy(via)} (NO_PROXY: ${proxy?.noProxy || 'none'})` : 'none');
  } catch (err) {
    // A proxy variable that is no URL: the other lines still say what they can.
    line('FAIL', 'proxy', messageOf(err));
  }
  const trust = ['the system CAs'];
  if (world.env.NODE_EXTRA_CA_CERTS) trust.push(`NODE_EXTRA_CA_CERTS ${world.env.NODE_EXTRA_CA_CERTS}`);
  if (settings.caFile) trust.push(`ca-file ${settings.caFile} (from ${from(settings.source.caFile)})`);
  // The CA file as a run reads it: a missing file or one without certificates fails here, not only later.
  const caProblem = settings.caFile
    ? await readCaFile(settings.caFile, settings.source.caFile, world.cwd).then(() => undefined, messageOf)
    : undefined;
  // Node reads NODE_EXTRA_CA_CERTS at start and only warns when it cannot: the trust it was meant to add is missing.
  const extra = world.env.NODE_EXTRA_CA_CERTS;
  const extraProblem = extra
    ? await fs.readFile(resolve(world.cwd, extra)).then(
        () => undefined,
        (err: unknown) => `NODE_EXTRA_CA_CERTS ${extra} cannot be read, so Node ignores it: ${ioReasonWithCode(err)}`,
      )
    : undefined;
  const problem = [extraProblem, caProblem].filter(Boolean).join('; ');
  line(problem ? 'FAIL' : 'ok', 'trust', problem ? `${trust.join(' + ')}: ${problem}` : trust.join(' + '));
  line(settings.apiKey ? 'ok' : 'FAIL', 'API key', settings.apiKey ? `${maskSecret(settings.apiKey)} (from ${from(settings.source.apiKey)})` : 'none');
}
