// The HTTP server: routing, injected latency and faults, the verbose log line, and a close()
// that ends everything, including requests told to hang.
import { isLoopback } from '../core/loopback.js';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import { LOOKUP_KINDS, LOOKUPS, type LookupDescriptor } from '../core/lookups.js';
import { ADMIN_PATHS, handleAdmin } from './admin.js';
import { UNAUTHORIZED_HEADERS, graphqlError, plainError } from './bodies.js';
import { bearerKey } from './keys.js';
import { DEFAULT_API_KEY } from './options.js';
import type { SandboxEngine } from './engine.js';
import { ERROR_TEXT, type FaultKind } from './faults.js';
import { safely, sendJson } from './http.js';
import { handleGraphql } from './routes-graphql.js';
import { handleBulk } from './routes-bulk.js';
import { handleRest, type RequestMeta } from './routes-rest.js';

type Route = { kind: 'rest' | 'bulk'; d: LookupDescriptor } | { kind: 'graphql' } | { kind: 'admin' };
type LookupRoute = Route & { kind: 'rest' | 'bulk' | 'graphql' };

/** Every registered lookup's REST path (and bulk path), GraphQL and the admin paths; made again when a lookup is registered (the registry only grows). */
let routes: { lookups: number; map: Map<string, Route> } | undefined;
function routeOf(path: string): Route | undefined {
  if (routes?.lookups !== LOOKUP_KINDS.length) {
    const map = new Map<string, Route>([
      ...LOOKUP_KINDS.map((k): [string, Route] => [LOOKUPS[k].restPath, { kind: 'rest', d: LOOKUPS[k] }]),
      ...LOOKUP_KINDS.flatMap((k): Array<[string, Route]> => {
        const path = LOOKUPS[k].bulk?.path;
        return path === undefined ? [] : [[path, { kind: 'bulk', d: LOOKUPS[k] }]];
      }),
      ['/graphql', { kind: 'graphql' }],
      ...ADMIN_PATHS.map((p): [string, Route] => [p, { kind: 'admin' }]),
    ]);
    routes = { lookups: LOOKUP_KINDS.length, map };
  }
  return routes.map.get(path);
}

const STATUS_PATH = '/api/v1/status';
const STATUS_BODY = '{"status":"ok"}';

export interface SandboxServer {
  readonly server: Server;
  close(): Promise<void>;
}

/** `tls`: serve HTTPS with this certificate and key. */
export function createSandboxServer(engine: SandboxEngine, tls?: { cert: string; key: string }): SandboxServer {
  const timers = new Set<NodeJS.Timeout>();
  let closing = false;
  const adminNeedsKey = !isLoopback(engine.options.host);

  const serve = (route: LookupRoute, fault: FaultKind | undefined, req: IncomingMessage, res: ServerResponse, meta: RequestMeta) => {
    if (fault === 'reset') {
      engine.stats.fault('reset');
      req.socket.destroy();
      return;
    }
    if (fault === 'hang') {
      // Never answered; close() (or the client giving up) ends it.
      engine.stats.fault('hang');
      req.resume();
      return;
    }
    if (fault === 'error') {
      engine.stats.fault('error');
      const status = engine.faults.errorStatus();
      const text = ERROR_TEXT[status] ?? 'server error';
      if (route.kind === 'graphql') sendJson(res, status, graphqlError(engine.bodies.graphqlCode('INTERNAL_SERVER_ERROR'), text));
      else sendJson(res, status, engine.bodies.serverError(route.d, status), engine.uncountedRateHeaders(route.d.kind, req.headers.authorization, route.kind === 'bulk'));
      return;
    }
    if (route.kind === 'graphql') handleGraphql(engine, req, res, fault === 'rate429', meta);
    else if (route.kind === 'bulk') handleBulk(engine, route.d, req, res, fault === 'rate429', meta);
    else handleRest(engine, route.d, req, res, fault === 'rate429', meta);
  };

  const handle = (req: IncomingMessage, res: ServerResponse) => {
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    const path = q === -1 ? url : url.slice(0, q);
    if (path === STATUS_PATH) {
      // As the real service: no key, never billed, outside every count and limit.
      if (req.method === 'GET' || req.method === 'HEAD') sendJson(res, 200, STATUS_BODY);
      else sendJson(res, 405, plainError('method_not_allowed', `${STATUS_PATH} answers GET only`), ['Allow', 'GET, HEAD']);
      return;
    }
    const route = routeOf(path);
    const meta: RequestMeta = {};
    if (engine.options.verbose) logWhenDone(engine, req, res, path, meta);
    // --no-bulk: a server without bulk endpoints, whose bulk paths are unknown paths.
    if (!route || (route.kind === 'bulk' && !engine.options.bulk)) {
      engine.stats.stray();
      sendJson(res, 404, plainError('not_found', `no such endpoint: ${req.method ?? ''} ${path.slice(0, 200)}`));
      return;
    }
    if (route.kind === 'admin') {
      // The admin endpoints change limits and faults and read every key's traffic: open to anyone
      // only on loopback. Listening on another interface, they want an accepted key like the API,
      // and not the published one, which anyone who read the docs has.
      const key = bearerKey(req.headers.authorization) ?? '';
      if (adminNeedsKey && key === DEFAULT_API_KEY) {
        const message = `the sandbox listens beyond loopback: its admin endpoints refuse the published key ${DEFAULT_API_KEY}; start it with --api-key <a key of your own> and send that`;
        sendJson(res, 403, plainError('forbidden', message));
        return;
      }
      if (adminNeedsKey && !engine.keys.find(key)) {
        sendJson(res, 401, plainError('unauthorized', 'the sandbox listens beyond loopback: its admin endpoints need "Authorization: Bearer <key>"'), UNAUTHORIZED_HEADERS);
        return;
      }
      handleAdmin(engine, path, req, res);
      return;
    }
    if (route.kind === 'bulk') engine.stats.bulkRequest(route.d.kind);
    else engine.stats.request(route.kind === 'rest' ? route.d.kind : 'graphql');
    const o = engine.options;
    const delay = o.latencyMs > 0 || o.jitterMs > 0 ? engine.faults.delay(o) : 0;
    const fault = engine.faults.draw(o);
    if (delay === 0) {
      serve(route, fault, req, res, meta);
      return;
    }
    engine.stats.fault('delayed');
    const timer = setTimeout(() => {
      timers.delete(timer);
      safely(res, () => serve(route, fault, req, res, meta));
    }, delay);
    timers.add(timer);
  };

  const listener = (req: IncomingMessage, res: ServerResponse) => safely(res, () => handle(req, res));
  const server: Server = tls ? createTlsServer({ cert: tls.cert, key: tls.key }, listener) : createServer(listener);
  // A client that refuses the certificate never sends a request: counted, so a test can see how
  // often it tried.
  if (tls) server.on('tlsClientError', () => engine.stats.count('tlsFailures'));
  // A keep-alive client (autocannon, undici pools) reuses sockets longer than node's default 5 s.
  server.keepAliveTimeout = 30_000;

  return {
    server,
    close: () =>
      new Promise<void>((resolve) => {
        if (closing) return resolve();
        closing = true;
        for (const t of timers) clearTimeout(t);
        timers.clear();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

function logWhenDone(engine: SandboxEngine, req: IncomingMessage, res: ServerResponse, path: string, meta: RequestMeta): void {
  const started = performance.now();
  res.on('close', () => {
    const ms = (performance.now() - started).toFixed(1);
    const status = res.writableFinished ? String(res.statusCode) : 'no-answer';
    const line = `${req.method ?? '?'} ${path.slice(0, 200)} ${status} ${ms}ms key=${meta.key ?? '-'}`;
    try {
      (engine.options.log ?? console.error)(line);
    } catch {
      // A failing log sink must not fail the request.
    }
  });
}

