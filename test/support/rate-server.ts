// A service that is not numintel's sandbox: the three REST lookups with a fixed plausible body,
// behind a fixed-window counter of its own, advertising its budget in one chosen header style
// (or none). Written from the service description and the IETF RateLimit drafts, sharing no code
// with src/, so the pacer is judged by an outside view. Every request's arrival time, kind and
// status is recorded, and `windowStats` reads them per server window.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type HeaderStyle =
  /** X-RateLimit-Limit/-Remaining/-Reset, the reset as seconds from now (the LRN style). */
  | 'x-delta'
  /** The same, the reset as a Unix timestamp (the CNAM style). */
  | 'x-unix'
  /** IETF draft (early): RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset (seconds). */
  | 'draft'
  /** IETF draft (structured): `RateLimit: limit=L, remaining=R, reset=T` and `RateLimit-Policy: L;w=W`. */
  | 'structured'
  /** IETF draft (latest): `RateLimit-Policy: "default";q=L;w=W` and `RateLimit: "default";r=R;t=T`. */
  | 'latest'
  /** X-RateLimit-Remaining and -Reset (seconds) only: the limit itself is not told. */
  | 'x-hidden'
  /** No rate field at all; a 429 carries only Retry-After. */
  | 'none';

export type RestKind = 'lrn' | 'cnam' | 'trust';

export interface RateServerOptions {
  /** Requests allowed per window (per budget). */
  readonly limit: number;
  readonly windowMs: number;
  readonly style: HeaderStyle;
  /** Retry-After on a 429 as delta seconds or as an HTTP date. */
  readonly retryAfter?: 'seconds' | 'date';
  /** One budget for all three lookups (else one each). */
  readonly shared?: boolean;
  /**
   * Windows start on the clock's whole windows unless this is set: then they are placed at the
   * first request, which arrives this many ms before its window's end (however long the client
   * took to start).
   */
  readonly firstRequestBeforeEndMs?: number;
  /** Requests already counted in the window of the client's first request (someone else spent them). */
  readonly spent?: number;
}

export interface Arrival {
  readonly at: number;
  readonly kind: RestKind;
  readonly status: number;
  /** Index of the server window it was counted in. */
  readonly window: number;
}

export interface RateServer {
  readonly url: string;
  readonly apiKey: string;
  readonly arrivals: Arrival[];
  close(): Promise<void>;
}

const KINDS = new Set<string>(['lrn', 'cnam', 'trust']);

function body(kind: RestKind, phone: string): unknown {
  if (kind === 'lrn') return { lrn: phone, lrn_activated_at: null };
  if (kind === 'cnam') return { data: { number: phone, cnam: 'OUTSIDE TEST' }, errors: [] };
  return {
    success: true,
    data: {
      phone_number: phone,
      is_spam: false,
      is_robocall: false,
      is_scam: false,
      spam_type: null,
      reputation_score: 80,
      trust_level: 'high',
      last_updated: '2026-01-01T00:00:00Z',
    },
  };
}

function rateHeaders(o: RateServerOptions, remaining: number, end: number, now: number): Record<string, string> {
  const delta = String(Math.max(0, Math.ceil((end - now) / 1000)));
  const w = String(Math.max(1, Math.round(o.windowMs / 1000)));
  const L = String(o.limit);
  const R = String(remaining);
  switch (o.style) {
    case 'x-delta':
      return { 'X-RateLimit-Limit': L, 'X-RateLimit-Remaining': R, 'X-RateLimit-Reset': delta };
    case 'x-hidden':
      return { 'X-RateLimit-Remaining': R, 'X-RateLimit-Reset': delta };
    case 'x-unix':
      return { 'X-RateLimit-Limit': L, 'X-RateLimit-Remaining': R, 'X-RateLimit-Reset': String(Math.ceil(end / 1000)) };
    case 'draft':
      return { 'RateLimit-Limit': L, 'RateLimit-Remaining': R, 'RateLimit-Reset': delta };
    case 'structured':
      return { RateLimit: `limit=${L}, remaining=${R}, reset=${delta}`, 'RateLimit-Policy': `${L};w=${w}` };
    case 'latest':
      return { 'RateLimit-Policy': `"default";q=${L};w=${w}`, RateLimit: `"default";r=${R};t=${delta}` };
    case 'none':
      return {};
  }
}

export async function startRateServer(o: RateServerOptions): Promise<RateServer> {
  let origin = 0;
  const arrivals: Arrival[] = [];
  /** Per budget: the window index counted and its count. */
  const counters = new Map<string, { window: number; count: number }>();
  const windowOf = (now: number) => Math.floor((now - origin) / o.windowMs);
  /** The window of the first request, where `spent` applies. */
  let startWindow = Number.NaN;

  const handle = (req: IncomingMessage, res: ServerResponse, raw: string) => {
    // The monotonic clock, as epoch ms: a step back of the wall clock at a window's edge put a
    // request in the window before, restarted both windows' counts and let 51 of 50 through (CI).
    const now = performance.timeOrigin + performance.now();
    if (arrivals.length === 0) {
      if (o.firstRequestBeforeEndMs !== undefined) origin = now + o.firstRequestBeforeEndMs - o.windowMs;
      startWindow = windowOf(now);
    }
    const kind = /^\/api\/v1\/(\w+)$/.exec(req.url ?? '')?.[1] ?? '';
    const send = (status: number, json: unknown, headers: Record<string, string> = {}) => {
      res.writeHead(status, { 'content-type': 'application/json', ...headers });
      res.end(JSON.stringify(json));
    };
    if (req.method !== 'POST' || !KINDS.has(kind)) return send(404, { error: 'not found' });
    if (!/^Bearer \S+/.test(req.headers.authorization ?? '')) return send(401, { error: 'unauthorized' });
    let phone = '';
    try {
      phone = String((JSON.parse(raw) as { phone_number?: unknown }).phone_number ?? '');
    } catch {
      return send(400, { error: 'bad json' });
    }
    const k = kind as RestKind;
    const budget = o.shared ? 'all' : k;
    const window = windowOf(now);
    let c = counters.get(budget);
    if (!c || c.window !== window) counters.set(budget, (c = { window, count: window === startWindow ? (o.spent ?? 0) : 0 }));
    const end = origin + (window + 1) * o.windowMs;
    if (c.count >= o.limit) {
      arrivals.push({ at: now, kind: k, status: 429, window });
      const retrySeconds = Math.max(1, Math.ceil((end - now) / 1000));
      const retryAfter = o.retryAfter === 'date' ? new Date(Math.ceil(end / 1000) * 1000).toUTCString() : String(retrySeconds);
      const json = k === 'lrn' ? { error: 'rate_limited', message: 'Too many requests', retry_after: retrySeconds } : { error: 'rate_limited' };
      return send(429, json, { ...rateHeaders(o, 0, end, now), 'Retry-After': retryAfter });
    }
    c.count += 1;
    arrivals.push({ at: now, kind: k, status: 200, window });
    return send(200, body(k, phone), rateHeaders(o, o.limit - c.count, end, now));
  };

  const server = createServer({ keepAliveTimeout: 10_000 }, (req, res) => {
    let raw = '';
    req.setEncoding('utf8');
    req.on('data', (d: string) => (raw += d));
    req.on('end', () => handle(req, res, raw));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    apiKey: 'outside-test-key',
    arrivals,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export interface WindowStats {
  readonly requests: number;
  readonly refused: number;
  /** The most requests (any status) that arrived in one server window. */
  readonly maxPerWindow: number;
  /** Requests let through over the full windows strictly inside the run, over their limit. */
  readonly fraction: number;
  /** How many full windows that fraction covers. */
  readonly fullWindows: number;
  /**
   * The same over the full windows after the first: with a reset in whole seconds from now, the
   * phase of a 1 s window is unknown until the client has seen one end (see the README, Pacing).
   */
  readonly steady: number;
  /** Requests let through in each window of the run, first to last. */
  readonly perWindow: number[];
}

/** Counts per server window; the first and last windows of the run (start-up, tail) are left out of the fraction. */
export function windowStats(arrivals: readonly Arrival[], limit: number): WindowStats {
  const per = new Map<number, { all: number; ok: number }>();
  for (const a of arrivals) {
    const w = per.get(a.window) ?? { all: 0, ok: 0 };
    w.all += 1;
    if (a.status === 200) w.ok += 1;
    per.set(a.window, w);
  }
  const windows = [...per.keys()];
  const first = Math.min(...windows);
  const last = Math.max(...windows);
  let ok = 0;
  for (let w = first + 1; w < last; w += 1) ok += per.get(w)?.ok ?? 0;
  const fullWindows = Math.max(0, last - first - 1);
  let steadyOk = 0;
  for (let w = first + 2; w < last; w += 1) steadyOk += per.get(w)?.ok ?? 0;
  return {
    requests: arrivals.length,
    refused: arrivals.filter((a) => a.status === 429).length,
    maxPerWindow: Math.max(...[...per.values()].map((w) => w.all)),
    fraction: fullWindows > 0 ? ok / (fullWindows * limit) : Number.NaN,
    fullWindows,
    steady: fullWindows > 1 ? steadyOk / ((fullWindows - 1) * limit) : Number.NaN,
    perWindow: Array.from({ length: last - first + 1 }, (_, i) => per.get(first + i)?.ok ?? 0),
  };
}
