// Sandbox-only endpoints under /__sandbox/ (no key needed): read and clear stats, change faults,
// limits and quota mid-run, revoke a key. They let a test in another process steer the sandbox.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { plainError } from './bodies.js';
import type { SandboxEngine } from './engine.js';
import { isJsonContentType, parseObject, readBody, sendJson } from './http.js';
import { ADMIN_KEYS, optionProblems, type SandboxOptions } from './options.js';

type AdminAction = (engine: SandboxEngine, body: Record<string, unknown>) => { status: number; body: unknown };

const ACTIONS: Record<string, AdminAction> = {
  '/__sandbox/reset': (engine) => {
    engine.resetStats();
    return { status: 200, body: { ok: true } };
  },
  '/__sandbox/config': (engine, patch) => {
    const problems = optionProblems(patch);
    for (const name of Object.keys(patch)) if (!ADMIN_KEYS.includes(name)) problems.push(`${name} cannot be changed here`);
    if (problems.length > 0) return { status: 400, body: { error: 'invalid_config', message: problems.join('; ') } };
    engine.configure(patch as Partial<SandboxOptions>);
    return { status: 200, body: publicConfig(engine.options) };
  },
  '/__sandbox/revoke': (engine, body) => {
    if (typeof body.key !== 'string') return { status: 400, body: { error: 'invalid_request', message: 'send {"key": "<api key>"}' } };
    return { status: 200, body: { ok: true, known: engine.keys.revoke(body.key) } };
  },
};

export const ADMIN_PATHS = ['/__sandbox/stats', ...Object.keys(ACTIONS)];

export function handleAdmin(engine: SandboxEngine, path: string, req: IncomingMessage, res: ServerResponse): void {
  if (path === '/__sandbox/stats') {
    if (req.method !== 'GET') return sendJson(res, 405, plainError('method_not_allowed', 'use GET'), ['Allow', 'GET']);
    return sendJson(res, 200, JSON.stringify(engine.stats.snapshot()));
  }
  const action = ACTIONS[path];
  if (!action) return sendJson(res, 404, plainError('not_found', `no such endpoint: ${path}`));
  if (req.method !== 'POST') return sendJson(res, 405, plainError('method_not_allowed', 'use POST'), ['Allow', 'POST']);
  const typed = isJsonContentType(req.headers['content-type']);
  readBody(req, res, (outcome) => {
    if (!outcome.ok) {
      if (outcome.tooLarge) sendJson(res, 413, plainError('payload_too_large', 'body too large'), ['Connection', 'close']);
      return;
    }
    // reset needs no body; the others need a JSON object.
    const body = outcome.text.trim() === '' && path === '/__sandbox/reset' ? {} : typed ? parseObject(outcome.text) : undefined;
    if (!body) return sendJson(res, 400, plainError('invalid_request', 'send a JSON object with Content-Type: application/json'));
    const answer = action(engine, body);
    sendJson(res, answer.status, JSON.stringify(answer.body));
  });
}

/** The runtime options, without the keys and the log sink. */
function publicConfig(o: SandboxOptions): Record<string, unknown> {
  return {
    seed: o.seed,
    limits: o.limits,
    windowMs: o.windowMs,
    sharedLimit: o.sharedLimit,
    burst: o.burst ?? null,
    hideLimit: o.hideLimit,
    rateHeaders: o.rateHeaders,
    bulk: o.bulk,
    bulkMax: o.bulkMax,
    bulkLimits: o.bulkLimits,
    bulkRows: o.bulkRows,
    bulkFailRate: o.bulkFailRate,
    quota: o.quota ?? null,
    latencyMs: o.latencyMs,
    jitterMs: o.jitterMs,
    failRate: o.failRate,
    resetRate: o.resetRate,
    hangRate: o.hangRate,
    rate429: o.rate429,
    rate429Bare: o.rate429Bare,
    verbose: o.verbose,
  };
}
