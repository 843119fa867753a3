// Where requests go: the configured service, or the built-in sandbox started in-process.
import type { Transport } from '../core/transport.js';
import { createTransport } from '../api/index.js';
import { requireApiKey, requireBaseUrl, type Settings } from '../settings/resolve.js';
import type { RunRequest } from './run-request.js';
import type { World } from './world.js';

export interface Connection {
  readonly transport: Transport;
  close(): Promise<void>;
}

export async function connect(
  req: RunRequest,
  settings: Settings,
  world: World,
  trace: ((line: string) => void) | undefined,
): Promise<Connection> {
  let baseUrl: string;
  let apiKey: string;
  let closeSandbox = async () => {};
  if (req.sandbox) {
    const { startSandbox } = await import('../sandbox/index.js');
    const sandbox = await startSandbox({ port: 0 });
    baseUrl = sandbox.url;
    apiKey = sandbox.apiKey;
    closeSandbox = () => sandbox.close();
    trace?.(`using the built-in sandbox at ${baseUrl}`);
  } else {
    baseUrl = requireBaseUrl(settings);
    apiKey = requireApiKey(settings);
  }
  const transport = createTransport({
    baseUrl,
    apiKey,
    transport: settings.transport,
    timeoutMs: settings.timeout * 1000,
    connections: settings.concurrency,
    // Numbers given as arguments are a handful, often one per process (a script's loop): Node's own
    // HTTP client loads in a few milliseconds, undici in about thirty (see node-wire.ts), which is
    // more than such a run spends on the wire. Files and stdin may hold millions: undici's pool
    // carries those.
    httpClient: req.numbers.length > 0 ? 'node' : 'undici',
    clock: world.clock,
    trace,
  });
  return {
    transport,
    close: async () => {
      await transport.close();
      await closeSandbox();
    },
  };
}
