// Fuzzing what a server can send (fast-check, bounded runs): any status, headers and body give
// one of the known verdicts, never an exception, never the key, one line; the rate-header parser
// never throws and gives finite, non-negative waits.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { classifyRest } from '../../src/api/rest.js';
import { parseRateInfo, rateFields, waitHintMs } from '../../src/api/rate-headers.js';
import { LOOKUP_KINDS, LOOKUPS } from '../../src/core/lookups.js';
import { ctx, KEY, NOW } from './fixtures.js';

const RATE_HEADERS = ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset', 'retry-after', 'ratelimit', 'ratelimit-policy', 'ratelimit-reset', 'ratelimit-remaining', 'ratelimit-limit'];
const headerValue = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.double().map(String),
  fc.integer().map(String),
  fc.constantFrom('1e308', '-1', 'NaN', 'Infinity', '"default";r=0;t=99999999999', 'Wed, 21 Oct 2015 07:28:00 GMT', '9'.repeat(400), ' 5 , 6', ''),
);
const headers = fc.dictionary(fc.constantFrom(...RATE_HEADERS, 'content-type', 'location', 'www-authenticate'), fc.oneof(headerValue, fc.array(headerValue, { maxLength: 3 })), { maxKeys: 6 });
const jsonish = fc.oneof(
  fc.json({ maxDepth: 3 }),
  fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify({ data: v, errors: [v], error: v, retry_after: v, __proto__: v, constructor: v })),
  fc.string({ unit: 'binary', maxLength: 200 }),
  fc.constantFrom(`{"error":"bad key ${KEY}"}`, '<html><body><script>x</script>Bad</body></html>', '{"lrn":12015550123}', '{"data":{"cnam":["a"]}}'),
);

describe('response classification under fuzzing', () => {
  it('any status, headers and body: a known verdict, one line, no key', () => {
    fc.assert(
      fc.property(fc.constantFrom(...LOOKUP_KINDS), fc.integer({ min: 100, max: 599 }), headers, jsonish, (kind, status, hs, text) => {
        const a = classifyRest(LOOKUPS[kind], {}, { status, headers: hs, text }, ctx);
        expect(['ok', 'invalid', 'retry', 'fatal', 'error']).toContain(a.kind);
        if (a.kind !== 'ok') {
          expect(a.error.message).not.toMatch(/[\r\n]/);
          expect(a.error.message).not.toContain(KEY);
        }
        if (a.kind === 'retry' && a.waitMs !== undefined) expect(Number.isFinite(a.waitMs) && a.waitMs >= 0).toBe(true);
        expect(Object.prototype).not.toHaveProperty('polluted');
      }),
      { numRuns: 3000, seed: 42 },
    );
  });

  it('rate headers: never throws, waits finite and not negative', () => {
    fc.assert(
      fc.property(headers, fc.boolean(), (hs, rateLimited) => {
        const fields = rateFields(hs);
        const info = parseRateInfo(fields, NOW);
        for (const v of [info?.limit, info?.remaining, info?.resetAt]) if (v !== undefined) expect(Number.isFinite(v)).toBe(true);
        const wait = waitHintMs({ headers: hs, fields, now: NOW, rateLimited, bodySeconds: [hs['retry-after']] });
        if (wait !== undefined) expect(Number.isFinite(wait) && wait >= 0).toBe(true);
      }),
      { numRuns: 3000, seed: 43 },
    );
  });
});
