// POST <lookup's bulk.path>: many numbers in one request, one row per distinct number, each row's
// values the single endpoint's for the same number and options (the same engine.result).
// Order of checks: method, key, rate window (the bulk endpoint's own), content type, body, batch
// size, quota (the request's distinct valid numbers reserved first, only the answered ones billed).
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { LookupDescriptor, LookupOptions } from '../core/lookups.js';
import { UNAUTHORIZED_HEADERS } from './bodies.js';
import { addResultFields } from './bulk-rows.js';
import { acceptNumber, type SandboxEngine } from './engine.js';
import { ROW_FAILURE_TEXT } from './faults.js';
import type { KeyState } from './keys.js';
import { MAX_BODY, isJsonContentType, parseObject, readBody, sendJson } from './http.js';
import { rateHeaders } from './rate-window.js';
import { bodyOptions, type RequestMeta } from './routes-rest.js';

/** Body bytes a bulk request may take: room for each number it may carry, formatted. */
const BYTES_PER_NUMBER = 64;

/** The inputs one row answers: a distinct accepted number, or a distinct unacceptable input. */
interface Group {
  readonly input: string;
  /** The 11-digit form; undefined: invalid. */
  readonly number: string | undefined;
  readonly indices: number[];
}

export function handleBulk(
  engine: SandboxEngine,
  d: LookupDescriptor,
  req: IncomingMessage,
  res: ServerResponse,
  spurious429: boolean,
  meta: RequestMeta,
): void {
  const bulk = d.bulk;
  if (!bulk) throw new TypeError(`the lookup ${d.kind} has no bulk endpoint`);
  const kind = d.kind;
  if (req.method !== 'POST') {
    const h = engine.uncountedRateHeaders(kind, req.headers.authorization, true);
    sendJson(res, 405, engine.bodies.request(d, 'Method not allowed', `use POST ${bulk.path}`), ['Allow', 'POST', ...h]);
    return;
  }
  const key = engine.authenticate(req.headers.authorization);
  if (!key) {
    sendJson(res, 401, engine.bodies.unauthorized(), [...UNAUTHORIZED_HEADERS, ...engine.uncountedRateHeaders(kind, undefined, true)]);
    return;
  }
  meta.key = key.label;
  // The bulk endpoint is an endpoint of its own: a hint on it holds it, not the single one.
  const endpoint = `${kind}-bulk`;
  engine.arrived(endpoint, key);
  const verdict = engine.admit(kind, key, spurious429, endpoint, true);
  if (!verdict.allowed) {
    sendJson(res, 429, engine.bodies.rateLimited(d, engine.refusal(verdict, true)), rateHeaders(kind, verdict, true));
    return;
  }
  const rh = rateHeaders(kind, verdict, false);
  if (!isJsonContentType(req.headers['content-type'])) {
    sendJson(res, 415, engine.bodies.request(d, 'Unsupported media type', 'send the body as Content-Type: application/json'), rh);
    return;
  }
  const started = performance.now();
  const receivedAt = engine.now();
  const max = engine.options.bulkMax;
  const maxBytes = MAX_BODY + max * BYTES_PER_NUMBER;
  readBody(
    req,
    res,
    (outcome) => {
      if (!outcome.ok) {
        if (outcome.tooLarge) sendJson(res, 413, engine.bodies.request(d, 'Payload too large', `the body may be at most ${maxBytes} bytes`), ['Connection', 'close', ...rh]);
        return;
      }
      const body = parseObject(outcome.text);
      if (!body) {
        sendJson(res, 400, engine.bodies.request(d, 'Malformed JSON', 'the body must be a JSON object'), rh);
        return;
      }
      const inputs = body[bulk.numbersParam];
      if (!Array.isArray(inputs) || !inputs.every((n): n is string => typeof n === 'string')) {
        sendJson(res, 400, engine.bodies.request(d, 'Invalid request', `${bulk.numbersParam} is required and must be a list of strings`), rh);
        return;
      }
      if (inputs.length === 0) {
        sendJson(res, 400, engine.bodies.request(d, 'Invalid request', `${bulk.numbersParam} must hold at least one number`), rh);
        return;
      }
      if (inputs.length > max) {
        sendJson(res, 400, engine.bodies.request(d, 'Invalid request', `at most ${max} phone numbers per request (got ${inputs.length})`), rh);
        return;
      }
      const opts = bodyOptions(d, body, (o) => (bulk.params[o.name] === undefined ? [] : [bulk.params[o.name] as string]));
      if ('bad' in opts) {
        sendJson(res, 400, engine.bodies.request(d, 'Invalid request', `${opts.bad} must be true or false`), rh);
        return;
      }
      const groups = groupInputs(kind, inputs);
      let valid = 0;
      for (const g of groups) if (g.number !== undefined) valid++;
      // Two-phase billing: the request's distinct valid numbers are reserved, the answered billed.
      if (!engine.covers(key, valid)) {
        sendJson(res, 402, engine.bodies.paymentRequired(), rh);
        return;
      }
      sendJson(res, 200, answer(engine, d, key, groups, opts, inputs.length, { receivedAt, started }), rh);
    },
    maxBytes,
  );
}

/** One group per distinct accepted number (its 11-digit form) or distinct invalid input, in first-seen order. */
function groupInputs(kind: LookupDescriptor['kind'], inputs: readonly string[]): Group[] {
  const byId = new Map<string, Group>();
  for (let i = 0; i < inputs.length; i++) {
    const input = inputs[i] as string;
    const number = acceptNumber(kind, input);
    // An invalid input is its own id, kept apart from every accepted number.
    const id = number ?? ` ${input}`;
    const g = byId.get(id);
    if (g) g.indices.push(i);
    else byId.set(id, { input, number, indices: [i] });
  }
  return [...byId.values()];
}

function answer(
  engine: SandboxEngine,
  d: LookupDescriptor,
  key: KeyState,
  groups: readonly Group[],
  opts: LookupOptions,
  submitted: number,
  time: { receivedAt: number; started: number },
): string {
  const kind = d.kind;
  const o = engine.options;
  const positions = { succeeded: 0, failed: 0, invalid: 0, cached: 0 };
  const free = { duplicates: submitted - groups.length, invalid: 0, failed: 0 };
  let billed = 0;
  const results = groups.map((g): Record<string, unknown> => {
    if (g.number === undefined) {
      engine.stats.count('invalid');
      engine.stats.bulkRow('invalid');
      positions.failed += g.indices.length;
      positions.invalid += g.indices.length;
      free.invalid++;
      return { phone_number: g.input, original_input: g.input, input_indices: g.indices, status: 'invalid', error: `Invalid phone number format: phone_number ${d.numbers.rule}` };
    }
    const row: Record<string, unknown> = { phone_number: g.number, e164_phone: `+${g.number}`, input_indices: g.indices };
    if (engine.faults.rowFails(o)) {
      engine.stats.bulkRow('failed');
      positions.failed += g.indices.length;
      free.failed++;
      row.status = 'failed';
      row.error = ROW_FAILURE_TEXT;
      return row;
    }
    const status = engine.billBulk(kind, key, g.number);
    billed++;
    engine.stats.bulkRow(status);
    positions.succeeded += g.indices.length;
    if (status === 'cached') positions.cached += g.indices.length;
    row.status = status;
    addResultFields(d, engine.result(kind, g.number, opts), o.bulkRows, row);
    return row;
  });
  engine.stats.bulkAnswered(kind, submitted);
  return JSON.stringify({
    job_id: engine.jobId(kind),
    results,
    summary: { submitted, unique: groups.length, succeeded: positions.succeeded, failed: positions.failed, invalid: positions.invalid, cached: positions.cached },
    billing: { billed, free },
    timing: { received_at: new Date(time.receivedAt).toISOString(), elapsed_ms: Math.round((performance.now() - time.started) * 10) / 10 },
  });
}
