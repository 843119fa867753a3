// The real sandbox for tests, on 127.0.0.1 and port 0: one per test (sandbox), one per test file
// (fileSandbox), over HTTPS (startTlsSandbox); what the CLI needs to reach it (sandboxEnv); and
// what it counted (sandboxStats, requestLog).
import { afterAll, beforeAll } from 'vitest';
import { Agent, fetch as undiciFetch } from 'undici';
import { startSandbox, type Sandbox, type SandboxOptions } from '../../src/sandbox/index.js';
import { afterThisFile, afterThisTest } from './cleanup.js';
import { requireBuiltCli } from './cli.js';

/** The sandbox facts the CLI needs in its environment: base URL and key, and with TLS its certificate. */
export interface SandboxLike {
  readonly url: string;
  readonly apiKey: string;
  /** PEM of a TLS sandbox's certificate. */
  readonly ca?: string;
  /** A file holding `ca`. */
  readonly caFile?: string;
}

/** A sandbox on port 0 that is closed after the test. */
export async function sandbox(options: Partial<SandboxOptions> = {}, clock: { now?: () => number } = {}): Promise<Sandbox> {
  const sb = await startSandbox({ port: 0, ...options }, clock);
  afterThisTest(() => sb.close());
  return sb;
}

/**
 * One sandbox for the whole test file: started before its tests (after checking the CLI is
 * built), closed after them. Read `ctx.sb` and `ctx.env` inside the tests. `{ tls: true }`: over
 * HTTPS, trusted through NODE_EXTRA_CA_CERTS in `ctx.env`.
 */
export function fileSandbox(options: Partial<SandboxOptions> = {}): { sb: Sandbox; env: Record<string, string | undefined> } {
  const ctx = {} as { sb: Sandbox; env: Record<string, string | undefined> };
  beforeAll(async () => {
    requireBuiltCli();
    ctx.sb = await startSandbox({ port: 0, ...options });
    ctx.env = sandboxEnv(ctx.sb);
  });
  afterAll(() => ctx.sb.close());
  return ctx;
}

/** A sandbox on a free port that speaks HTTPS with a certificate made at start (see sandboxEnv). */
export function startTlsSandbox(options: Partial<SandboxOptions> = {}): Promise<Sandbox> {
  return startSandbox({ port: 0, tls: true, ...options });
}

/**
 * NUMINTEL_BASE_URL and NUMINTEL_API_KEY pointing at a sandbox; for a TLS sandbox also
 * NODE_EXTRA_CA_CERTS naming its certificate, as a user trusting a private CA would set it.
 */
export function sandboxEnv(sb: SandboxLike, extra: Record<string, string | undefined> = {}): Record<string, string | undefined> {
  return { NUMINTEL_BASE_URL: sb.url, NUMINTEL_API_KEY: sb.apiKey, ...(sb.caFile ? { NODE_EXTRA_CA_CERTS: sb.caFile } : {}), ...extra };
}

// One client per certificate: the test process trusts a TLS sandbox without NODE_EXTRA_CA_CERTS.
const agents = new Map<string, Agent>();

/** fetch() that trusts the sandbox's certificate when it has one. */
export function sandboxFetch(sb: SandboxLike, path: string, init: { method?: string; headers?: Record<string, string>; body?: string } = {}) {
  let dispatcher: Agent | undefined;
  if (sb.ca) {
    const ca = sb.ca;
    dispatcher = agents.get(ca);
    if (!dispatcher) {
      const agent = new Agent({ connect: { ca } });
      agents.set(ca, (dispatcher = agent));
      afterThisFile(() => {
        agents.delete(ca);
        return agent.close();
      });
    }
  }
  return undiciFetch(`${sb.url}${path}`, { ...init, ...(dispatcher ? { dispatcher } : {}) });
}

export type Kind = 'lrn' | 'cnam' | 'trust';

/** The sandbox's admin stats over HTTP, as any client would see them. */
export async function sandboxStats(sb: SandboxLike): Promise<{
  requests: Record<Kind | 'graphql' | 'total', number>;
  byNumber: Record<string, number>;
  invalid: number;
  unauthorized: number;
  paymentRequired: number;
  billed: number;
  rateLimited: number;
}> {
  const res = await sandboxFetch(sb, '/__sandbox/stats');
  return (await res.json()) as Awaited<ReturnType<typeof sandboxStats>>;
}

/** One request as the sandbox answered it, timed in this process (epoch ms). */
export interface LoggedRequest {
  readonly path: string;
  readonly status: string;
  readonly key: string;
  /** When the answer left (or the request was abandoned). */
  readonly answeredAt: number;
  /** When the request arrived: answeredAt minus the time the sandbox reported it took. */
  readonly arrivedAt: number;
}

/** A `log` sink for `startSandbox({verbose: true, log})` that keeps every request line, timed. */
export function requestLog(): { log: (line: string) => void; entries: LoggedRequest[] } {
  const entries: LoggedRequest[] = [];
  const log = (line: string) => {
    const now = Date.now();
    const m = /^\S+ (\S+) (\S+) ([\d.]+)ms key=(\S+)/.exec(line);
    if (!m) return;
    const [, path = '', status = '', ms = '0', key = ''] = m;
    entries.push({ path, status, key, answeredAt: now, arrivedAt: now - Number(ms) });
  };
  return { log, entries };
}
