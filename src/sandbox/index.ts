// The sandbox's public face: start an emulator of the whole service on loopback, steer it, read
// what it saw, close it.
import type { AddressInfo } from 'node:net';
import { SandboxEngine } from './engine.js';
import { DEFAULT_OPTIONS, applyPatch, optionProblems, type SandboxOptions } from './options.js';
import { createSandboxServer } from './server.js';
import type { SandboxStats } from './stats.js';

export { DEFAULT_API_KEY, DEFAULT_BULK_LIMITS, DEFAULT_BULK_MAX, DEFAULT_LIMITS, DEFAULT_OPTIONS, optionProblems } from './options.js';
export type { BulkRowStyle, SandboxLimits, SandboxOptions } from './options.js';
export type { SandboxStats } from './stats.js';
export { buildLookupSchema } from './graphql-schema.js';

export interface Sandbox {
  /** Base URL, e.g. http://127.0.0.1:4010, or https://… with `tls` (no trailing slash). */
  readonly url: string;
  /** With `tls`: the PEM text of the certificate served, for a client to trust. */
  readonly ca?: string;
  /** With `tls`: a file holding `ca` (NODE_EXTRA_CA_CERTS=<caFile>, --ca-file <caFile>); removed by close(). */
  readonly caFile?: string;
  /** The first accepted key. */
  readonly apiKey: string;
  stats(): SandboxStats;
  /** Changes options while running (not host/port); throws TypeError on a bad value. */
  configure(patch: Partial<SandboxOptions>): void;
  revokeKey(key: string): void;
  close(): Promise<void>;
}

/** `now`: the sandbox's clock (epoch ms), for tests that step its rate windows; default Date.now. */
export async function startSandbox(options: Partial<SandboxOptions> = {}, { now }: { now?: () => number } = {}): Promise<Sandbox> {
  const problems = optionProblems(options as Record<string, unknown>);
  if (problems.length > 0) throw new TypeError(`invalid sandbox options: ${problems.join('; ')}`);
  const merged = applyPatch({ ...DEFAULT_OPTIONS, limits: { ...DEFAULT_OPTIONS.limits }, bulkLimits: { ...DEFAULT_OPTIONS.bulkLimits } }, options);
  const engine = new SandboxEngine(merged, now);
  // The certificate code (and its X.509 library) loads only for a TLS sandbox.
  const certificates = merged.tls ? await import('./certificate.js') : undefined;
  const tls = merged.tls === true ? await certificates?.makeCertificate(merged.host) : merged.tls || undefined;
  const { server, close } = createSandboxServer(engine, tls);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(merged.port, merged.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const certFile = tls && certificates ? await certificates.writeCertificateFile(tls.cert).catch(async (err: unknown) => {
    await close();
    throw err;
  }) : undefined;
  return {
    url: `${tls ? 'https' : 'http'}://${urlHost(address)}:${address.port}`,
    ...(tls && certFile ? { ca: tls.cert, caFile: certFile.path } : {}),
    apiKey: merged.apiKeys[0] as string,
    stats: () => engine.stats.snapshot(),
    configure: (patch) => engine.configure(patch),
    revokeKey: (key) => void engine.keys.revoke(key),
    close: async () => {
      await close();
      await certFile?.remove();
    },
  };
}

/** Where a client should connect: a wildcard bind is reached through loopback. */
function urlHost(a: AddressInfo): string {
  if (a.address === '0.0.0.0') return '127.0.0.1';
  if (a.address === '::') return '[::1]';
  return a.family === 'IPv6' ? `[${a.address}]` : a.address;
}
