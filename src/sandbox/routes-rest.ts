// POST /api/v1/<lookup>: one handler for every lookup, driven by its descriptor.
// Order of checks: method, key, rate window, content type, body, number, quota; so a refused
// request never costs a lookup and an invalid number is never billed.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ENVELOPES } from '../api/envelopes/index.js';
import type { LookupDescriptor, OptionName, OptionSpec } from '../core/lookups.js';
import { UNAUTHORIZED_HEADERS } from './bodies.js';
import { acceptNumber, type SandboxEngine } from './engine.js';
import { MAX_BODY, isJsonContentType, parseObject, readBody, sendJson } from './http.js';
import { rateHeaders } from './rate-window.js';

/** Request-body names the service also accepts for an option (spec 4.1: include_spam_check). */
const REST_ALIASES: Partial<Record<OptionName, readonly string[]>> = { spam: ['include_spam_check'] };

/** What the server learns while handling a request, for its log line. */
export interface RequestMeta {
  key?: string;
}

export function handleRest(
  engine: SandboxEngine,
  d: LookupDescriptor,
  req: IncomingMessage,
  res: ServerResponse,
  spurious429: boolean,
  meta: RequestMeta,
): void {
  const kind = d.kind;
  if (req.method !== 'POST') {
    const h = engine.uncountedRateHeaders(kind, req.headers.authorization);
    sendJson(res, 405, engine.bodies.request(d, 'Method not allowed', `use POST ${d.restPath}`), ['Allow', 'POST', ...h]);
    return;
  }
  const key = engine.authenticate(req.headers.authorization);
  if (!key) {
    const h = engine.uncountedRateHeaders(kind);
    sendJson(res, 401, engine.bodies.unauthorized(), [...UNAUTHORIZED_HEADERS, ...h]);
    return;
  }
  meta.key = key.label;
  engine.arrived(kind, key);
  const verdict = engine.admit(kind, key, spurious429);
  if (!verdict.allowed) {
    sendJson(res, 429, engine.bodies.rateLimited(d, engine.refusal(verdict)), rateHeaders(kind, verdict, true));
    return;
  }
  const rh = rateHeaders(kind, verdict, false);
  if (!isJsonContentType(req.headers['content-type'])) {
    sendJson(res, 415, engine.bodies.request(d, 'Unsupported media type', 'send the body as Content-Type: application/json'), rh);
    return;
  }
  readBody(req, res, (outcome) => {
    if (!outcome.ok) {
      if (outcome.tooLarge) {
        sendJson(res, 413, engine.bodies.request(d, 'Payload too large', `the body may be at most ${MAX_BODY} bytes`), ['Connection', 'close', ...rh]);
      }
      return;
    }
    const body = parseObject(outcome.text);
    if (!body) {
      sendJson(res, 400, engine.bodies.request(d, 'Malformed JSON', 'the body must be a JSON object'), rh);
      return;
    }
    const phone = body.phone_number;
    if (typeof phone !== 'string') {
      sendJson(res, 400, engine.bodies.request(d, 'Invalid request', 'phone_number is required and must be a string'), rh);
      return;
    }
    const opts = bodyOptions(d, body, (o) => [o.restParam, ...(REST_ALIASES[o.name] ?? [])]);
    if ('bad' in opts) {
      sendJson(res, 400, engine.bodies.request(d, 'Invalid request', `${opts.bad} must be true or false`), rh);
      return;
    }
    const number = acceptNumber(kind, phone);
    if (number === undefined) {
      engine.stats.count('invalid');
      sendJson(res, 400, engine.bodies.invalidNumber(d, phone), rh);
      return;
    }
    if (!engine.bill(kind, key, number)) {
      sendJson(res, 402, engine.bodies.paymentRequired(), rh);
      return;
    }
    sendJson(res, 200, ENVELOPES[d.envelope].wrap(JSON.stringify(engine.result(kind, number, opts))), rh);
  });
}

/** The options a request body turns on, each under any of its names; `bad`: a name whose value is not a boolean. */
export function bodyOptions(d: LookupDescriptor, body: Readonly<Record<string, unknown>>, names: (o: OptionSpec) => readonly string[]): Partial<Record<OptionName, boolean>> | { readonly bad: string } {
  const opts: Partial<Record<OptionName, boolean>> = {};
  for (const o of d.options) {
    for (const name of names(o)) {
      const v = body[name];
      if (v === undefined) continue;
      if (typeof v !== 'boolean') return { bad: name };
      if (v) opts[o.name] = true;
    }
  }
  return opts;
}
