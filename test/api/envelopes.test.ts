// Each envelope module is both sides of the wire: what the sandbox writes with it, the client reads
// with it, for every built-in lookup's answer, refused number, 429 and other errors.
import { describe, it } from 'vitest';
import { classifyRest } from '../../src/api/rest.js';
import { LOOKUP_KINDS, LOOKUPS } from '../../src/core/lookups.js';
import { SandboxEngine } from '../../src/sandbox/engine.js';
import { errorBody, invalidNumberBody, perSecond, rateLimitedBody } from '../../src/sandbox/bodies.js';
import { DEFAULT_OPTIONS } from '../../src/sandbox/options.js';
import { ENVELOPES } from '../../src/api/envelopes/index.js';
import { ctx } from './fixtures.js';
import { check, res } from './responses.js';

const engine = new SandboxEngine({ ...DEFAULT_OPTIONS });

describe.each(LOOKUP_KINDS.map((k) => [k, LOOKUPS[k]] as const))('the %s envelope, written by the sandbox, read by the client', (_kind, d) => {
  it('an answer: the result, unwrapped', () => {
    const result = engine.result(d.kind, '12015550123', {});
    check(classifyRest(d, {}, res(200, ENVELOPES[d.envelope].wrap(JSON.stringify(result))), ctx), { kind: 'ok', result });
  });

  it('a refused number: invalid, with the rule the descriptor words', () => {
    check(classifyRest(d, {}, res(400, invalidNumberBody(d)), ctx), { kind: 'invalid', code: 'invalid_number', status: 400, says: [d.numbers.rule] });
  });

  it('a 429: rate limited, the wait from the body or its headers', () => {
    check(classifyRest(d, {}, res(429, rateLimitedBody(d, perSecond(2)), { 'retry-after': '2' }), ctx), { kind: 'retry', code: 'rate_limited', waitMs: 2000, says: [`${d.title} lookups`] });
  });

  it('a server error: retried, its words quoted', () => {
    check(classifyRest(d, {}, res(503, errorBody(d, 'Server error', 'upstream down')), ctx), { kind: 'retry', code: 'server_error', says: ['upstream down'] });
  });
});
