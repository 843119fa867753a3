// Where requests go: the configured service, or the built-in sandbox started in-process.
import { resolve } from 'node:path';
import { TlsError } from '../core/errors.js';
import { ioReasonWithCode } from '../core/io-errors.js';
import type { Transport } from '../core/transport.js';
import { createTransport } from '../api/index.js';
import { checkBaseUrl } from '../api/base-url.js';
import { proxyFor, proxyFromEnv, shownProxy } from '../api/proxy.js';
import { requireApiKey, requireBaseUrl, type Settings } from '../settings/resolve.js';
import type { RunRequest } from './run-request.js';
import type { World } from './world.js';

export interface Connection {
  readonly transport: Transport;
  /** Where requests go: the configured base URL, or the in-process sandbox's. */
  readonly baseUrl: string;
  readonly apiKey: string;
  close(): Promise<void>;
}

/** The service's base URL, key and CA certificates, each checked. */
export interface ServiceAccess {
  readonly baseUrl: string;
  readonly apiKey: string;
  readonly ca?: string;
}

/**
 * What a run needs to reach the service, checked before any file is opened for writing: no base
 * URL, no key, a key bound for plain http:// elsewhere than loopback or an unreadable CA file is a
 * setup error (exit 2) that must leave an earlier -o file as it was.
 */
export async function checkServiceAccess(settings: Settings, world: World): Promise<ServiceAccess> {
  const baseUrl = requireBaseUrl(settings);
  const apiKey = requireApiKey(settings);
  checkBaseUrl(baseUrl, true);
  if (settings.caFile === undefined) return { baseUrl, apiKey };
  return { baseUrl, apiKey, ca: await readCaFile(settings.caFile, settings.source.caFile, world.cwd) };
}

export async function connect(
  req: Pick<RunRequest, 'sandbox' | 'sandboxToday'>,
  settings: Settings,
  world: World,
  trace: ((line: string) => void) | undefined,
  /** From checkServiceAccess, when the caller checked it already (ignored with --sandbox). */
  checked?: ServiceAccess,
): Promise<Connection> {
  let baseUrl: string;
  let apiKey: string;
  let ca: string | undefined;
  // The proxy variables of the user's environment; the in-process sandbox is reached directly.
  let env: World['env'] | undefined = world.env;
  let closeSandbox = async () => {};
  if (req.sandbox) {
    const { startSandbox } = await import('../sandbox/index.js');
    // Its day (its dates count back from it): --today, else the run's clock's; its rate windows keep real time.
    const sandbox = await startSandbox({ port: 0, today: req.sandboxToday ?? new Date(world.clock.now()).toISOString().slice(0, 10) });
    baseUrl = sandbox.url;
    apiKey = sandbox.apiKey;
    closeSandbox = () => sandbox.close();
    env = undefined;
    trace?.(`using the built-in sandbox at ${baseUrl}`);
  } else {
    ({ baseUrl, apiKey, ca } = checked ?? (await checkServiceAccess(settings, world)));
    const proxy = proxyFromEnv(env);
    if (proxy) trace?.(`proxy: ${shownProxy(proxyFor(proxy, baseUrl)) || 'none'} (NO_PROXY: ${proxy.noProxy || 'none'})`);
  }
  const transport = createTransport({
    baseUrl,
    apiKey,
    transport: settings.transport,
    batchSize: settings.batchSize,
    timeoutMs: settings.timeout * 1000,
    connections: settings.concurrency,
    clock: world.clock,
    trace,
    ca,
    env,
  });
  return {
    transport,
    baseUrl,
    apiKey,
    close: async () => {
      await transport.close();
      await closeSandbox();
    },
  };
}

/** The PEM text of --ca-file (NUMINTEL_CA_FILE, config ca-file), checked: exit 2 before anything is sent. */
export async function readCaFile(path: string, from: string, cwd: string): Promise<string> {
  const where = from === 'flag' ? '--ca-file' : from === 'env' ? 'NUMINTEL_CA_FILE' : 'ca-file';
  let text: string;
  try {
    // node:fs/promises loads only here: a lookup without a CA file never needs it.
    // oxlint-disable-next-line no-restricted-imports -- a dynamic import, loaded on use (the rule is about static ones)
    const { readFile } = await import('node:fs/promises');
    text = await readFile(resolve(cwd, path), 'utf8');
  } catch (err) {
    throw new TlsError(`cannot read the CA file ${path} (${where}): ${ioReasonWithCode(err)}`);
  }
  try {
    // Loaded only for a CA file: node:crypto is not otherwise needed at start-up.
    const { certificatesOf } = await import('../api/pem.js');
    certificatesOf(text);
  } catch (err) {
    throw new TlsError(`the CA file ${path} (${where}) ${err instanceof Error ? err.message : String(err)}`, 'give a PEM file of CA certificates');
  }
  return text;
}
