// The sandbox's bulk endpoints over loopback: rows, de-duplication, values equal to the single
// endpoint's, limits and headers, row names, faults, --no-bulk, stats, auth and quota.
import { describe, expect, it } from 'vitest';
import { isObject } from '../../src/core/json.js';
import { CNAM, LRN, type LookupDescriptor } from '../../src/core/lookups.js';
import type { SandboxOptions } from '../../src/sandbox/index.js';
import { steppedClock } from '../support/clock.js';
import { numbersIn } from '../support/numbers.js';
import { sandbox, sandboxStats } from '../support/sandbox.js';
import { cnam, cnamBulk, lrn, lrnBulk, post } from './helpers.js';

const UNLIMITED: Partial<SandboxOptions> = { limits: { lrn: 0, cnam: 0, trust: 0 }, bulkLimits: { lrn: 0, cnam: 0 } };

/** Numbers of several kinds: New York, San Francisco, toll-free, Alaska, an unknown area code. */
const MIXED = [...numbersIn('212', 12), ...numbersIn('415', 12), ...numbersIn('800', 6), ...numbersIn('907', 6), ...numbersIn('999', 4)];

type Row = Record<string, unknown>;

/** A value at a dotted path of a row. */
const at = (row: Row, path: string): unknown => path.split('.').reduce<unknown>((o, k) => (isObject(o) ? o[k] : undefined), row);

/**
 * A row read back into the single endpoint's result fields, the way the descriptor's bulk.rowNames
 * say a client reads it: a field at the first of its names present, else its own name; a sub-field
 * at the first of its names present, else inside the first of its object's names present.
 */
function fromRow(d: LookupDescriptor, row: Row): Row {
  const names = d.bulk?.rowNames ?? {};
  const first = (paths: readonly string[]) => paths.map((p) => at(row, p)).find((v) => v !== undefined);
  const out: Row = {};
  for (const f of d.fields) {
    if (f.type !== 'object') {
      const v = first([...(names[f.name] ?? []), f.name]);
      if (v !== undefined) out[f.name] = v;
      continue;
    }
    const objects = [...(names[f.name] ?? []), f.name].map((p) => at(row, p)).filter(isObject);
    const obj: Row = {};
    for (const sub of f.fields ?? []) {
      const v = first(names[`${f.name}.${sub.name}`] ?? []) ?? objects.map((o) => o[sub.name]).find((x) => x !== undefined);
      if (v !== undefined) obj[sub.name] = v;
    }
    if (Object.keys(obj).length > 0) out[f.name] = obj;
  }
  return out;
}

/** The single endpoint's result without the sub-fields bulk-style rows do not carry (an empty list of names). */
function withoutLacking(d: LookupDescriptor, result: Row): Row {
  const out: Row = structuredClone(result);
  for (const [name, list] of Object.entries(d.bulk?.rowNames ?? {})) {
    if (list.length > 0) continue;
    const [field = '', sub] = name.split('.');
    const obj = out[field];
    if (sub !== undefined && isObject(obj)) delete obj[sub];
    else if (sub === undefined) delete out[field];
  }
  return out;
}

const rowOf = (rows: Row[], number: string): Row => {
  const row = rows.find((r) => r.phone_number === number);
  if (!row) throw new Error(`no row for ${number}`);
  return row;
};

describe('bulk endpoints: rows', () => {
  it('one row per distinct number with input_indices, statuses, summary, billing, timing and job_id', async () => {
    const sb = await sandbox();
    const r = await lrnBulk(sb, { phone_numbers: ['12125550100', '2125550101', '12125550100', '14155550100', '2125550101', '12125550100'] });
    expect(r.status).toBe(200);
    expect(typeof r.json.job_id).toBe('string');
    expect(r.json.results.map((x: Row) => [x.phone_number, x.input_indices, x.status])).toEqual([
      ['12125550100', [0, 2, 5], 'success'],
      ['2125550101', [1, 4], 'invalid'],
      ['14155550100', [3], 'success'],
    ]);
    const [ok, bad] = r.json.results as Row[];
    expect(ok).toMatchObject({ e164_phone: '+12125550100' });
    expect(bad).toEqual({
      phone_number: '2125550101',
      original_input: '2125550101',
      input_indices: [1, 4],
      status: 'invalid',
      error: 'Invalid phone number format: phone_number must be 11 digits starting with 1',
    });
    expect(r.json.summary).toEqual({ submitted: 6, unique: 3, succeeded: 4, failed: 2, invalid: 2, cached: 0 });
    expect(r.json.billing).toEqual({ billed: 2, free: { duplicates: 3, invalid: 1, failed: 0 } });
    expect(r.json.timing.received_at).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect(typeof r.json.timing.elapsed_ms).toBe('number');
    const again = await lrnBulk(sb, { phone_numbers: ['14155550100', '14155550101'] });
    expect(again.json.job_id).not.toBe(r.json.job_id);
    // Answered before (by any endpoint): cached, still an answer, still billed.
    expect(again.json.results.map((x: Row) => x.status)).toEqual(['cached', 'success']);
    expect(again.json.summary).toMatchObject({ succeeded: 2, cached: 1 });
    expect(sb.stats().billed).toBe(4);
  });

  it('CNAM de-duplicates 10- and 11-digit forms of one number; both forms are one row', async () => {
    const sb = await sandbox();
    const r = await cnamBulk(sb, { phone_numbers: ['4155550123', '14155550123', 'x'], include_spam: true });
    expect(r.json.results.map((x: Row) => [x.phone_number, x.input_indices, x.status])).toEqual([
      ['14155550123', [0, 1], 'success'],
      ['x', [2], 'invalid'],
    ]);
    expect(r.json.results[1].error).toBe('Invalid phone number format: phone_number must be 10 digits, or 11 digits starting with 1');
  });

  it('a bulk row holds the values of the single endpoint for the same number and options (LRN, each option set)', async () => {
    const sb = await sandbox(UNLIMITED);
    const sets = [{}, { enhanced: true }, { messaging: true }, { enhanced: true, messaging: true }];
    for (const set of sets) {
      const bulkBody: Row = { phone_numbers: MIXED };
      const singleParams: Row = {};
      for (const o of LRN.options) {
        if (!(set as Row)[o.name]) continue;
        bulkBody[LRN.bulk?.params[o.name] ?? ''] = true;
        singleParams[o.restParam] = true;
      }
      const rows = (await lrnBulk(sb, bulkBody)).json.results as Row[];
      expect(rows).toHaveLength(MIXED.length);
      for (const n of MIXED) {
        const single = await lrn(sb, { phone_number: n, ...singleParams });
        expect(fromRow(LRN, rowOf(rows, n)), `${n} ${JSON.stringify(set)}`).toEqual(withoutLacking(LRN, single.json));
      }
    }
  });

  it('a bulk row holds the values of the single endpoint (CNAM, with and without spam)', async () => {
    const sb = await sandbox(UNLIMITED);
    for (const spam of [false, true]) {
      const rows = (await cnamBulk(sb, { phone_numbers: MIXED, include_spam: spam })).json.results as Row[];
      for (const n of MIXED) {
        const single = await cnam(sb, { phone_number: n, include_spam: spam });
        expect(fromRow(CNAM, rowOf(rows, n)), n).toEqual(single.json.data);
      }
    }
  });

  it('with --error-style vri too (its value spellings), and with --bulk-rows single the row carries the single result as it is', async () => {
    for (const options of [{ errorStyle: 'vri' as const }, { bulkRows: 'single' as const }]) {
      const sb = await sandbox({ ...UNLIMITED, ...options });
      const rows = (await lrnBulk(sb, { phone_numbers: MIXED, include_enhanced: true, include_messaging: true })).json.results as Row[];
      const cnamRows = (await cnamBulk(sb, { phone_numbers: MIXED, include_spam: true })).json.results as Row[];
      for (const n of MIXED) {
        const single = (await lrn(sb, { phone_number: n, include_enhanced_lrn: true, messaging_lookup: true })).json as Row;
        const singleCnam = (await cnam(sb, { phone_number: n, include_spam: true })).json.data as Row;
        if (options.bulkRows === 'single') {
          const { phone_number, e164_phone, input_indices, status, ...fields } = rowOf(rows, n);
          expect([phone_number, e164_phone, input_indices, status]).toEqual([n, `+${n}`, [MIXED.indexOf(n)], 'success']);
          expect(fields).toEqual(single);
          const { phone_number: _p, e164_phone: _e, input_indices: _i, status: _s, ...cnamFields } = rowOf(cnamRows, n);
          expect(cnamFields).toEqual(singleCnam);
        } else {
          expect(fromRow(LRN, rowOf(rows, n))).toEqual(withoutLacking(LRN, single));
          expect(fromRow(CNAM, rowOf(cnamRows, n))).toEqual(singleCnam);
        }
      }
    }
  });

  it('bulk-style rows use lrn_value, voice_provider, enhanced_lrn, flat messaging_* and cnam_record', async () => {
    const sb = await sandbox();
    const [row] = (await lrnBulk(sb, { phone_numbers: ['12125550123'], include_enhanced: true, include_messaging: true })).json.results as Row[];
    expect(Object.keys(row ?? {}).sort()).toEqual(
      ['e164_phone', 'enhanced_lrn', 'input_indices', 'lrn_activated_at', 'lrn_value', 'messaging_country', 'messaging_country_code', 'messaging_enabled', 'messaging_provider', 'phone_number', 'status', 'voice_provider'],
    );
    expect(Object.keys(row?.enhanced_lrn as Row).sort()).toEqual(['carrier_type', 'city', 'county', 'lata', 'ocn', 'rate_center', 'state', 'timezone', 'zip_code']);
    const [plain] = (await lrnBulk(sb, { phone_numbers: ['12125550123'] })).json.results as Row[];
    expect(Object.keys(plain ?? {}).sort()).toEqual(['e164_phone', 'input_indices', 'lrn_activated_at', 'lrn_value', 'phone_number', 'status']);
    const [c] = (await cnamBulk(sb, { phone_numbers: ['12125550123'], include_spam: true })).json.results as Row[];
    expect(Object.keys(c ?? {}).sort()).toEqual(['cnam_record', 'e164_phone', 'input_indices', 'phone_number', 'spam_type', 'status']);
  });

  it('--bulk-rows single: the single endpoint names (lrn, enhanced_lrn_data, messaging, cnam, number)', async () => {
    const sb = await sandbox({ bulkRows: 'single' });
    const [row] = (await lrnBulk(sb, { phone_numbers: ['12125550123'], include_enhanced: true, include_messaging: true })).json.results as Row[];
    expect(Object.keys(row ?? {}).sort()).toEqual(['e164_phone', 'enhanced_lrn_data', 'input_indices', 'lrn', 'lrn_activated_at', 'messaging', 'phone_number', 'status']);
    const [c] = (await cnamBulk(sb, { phone_numbers: ['12125550123'] })).json.results as Row[];
    expect(Object.keys(c ?? {}).sort()).toEqual(['cnam', 'e164_phone', 'input_indices', 'number', 'phone_number', 'status']);
  });

  it('reads the bulk option names only: the single endpoint names add nothing', async () => {
    const sb = await sandbox();
    const [row] = (await lrnBulk(sb, { phone_numbers: ['12125550123'], include_enhanced_lrn: true, messaging_lookup: true })).json.results as Row[];
    expect(row).not.toHaveProperty('voice_provider');
    expect(row).not.toHaveProperty('messaging_provider');
    const [c] = (await cnamBulk(sb, { phone_numbers: ['12125550123'], include_spam_check: true })).json.results as Row[];
    expect(c).not.toHaveProperty('spam_type');
  });
});

describe('bulk endpoints: the request', () => {
  it('400 above the batch limit (default 1,000), in the endpoint error shape, nothing billed', async () => {
    const sb = await sandbox();
    const thousand = numbersIn('212', 1000);
    const ok = await lrnBulk(sb, { phone_numbers: thousand });
    expect(ok.status).toBe(200);
    expect(ok.json.results).toHaveLength(1000);
    const over = await lrnBulk(sb, { phone_numbers: [...thousand, '14155550100'] });
    expect(over.status).toBe(400);
    expect(over.json).toEqual({ error: 'Invalid request', details: 'at most 1000 phone numbers per request (got 1001)' });
    const overCnam = await cnamBulk(sb, { phone_numbers: [...thousand, '14155550100'] });
    expect(overCnam.status).toBe(400);
    expect(overCnam.json).toEqual({ data: null, errors: ['Invalid request: at most 1000 phone numbers per request (got 1001)'] });
    expect(sb.stats().billed).toBe(1000);
  });

  it('bulkMax sets the batch limit, also while running', async () => {
    const sb = await sandbox({ bulkMax: 3 });
    expect((await lrnBulk(sb, { phone_numbers: numbersIn('212', 3) })).status).toBe(200);
    expect((await lrnBulk(sb, { phone_numbers: numbersIn('212', 4) })).status).toBe(400);
    sb.configure({ bulkMax: 4 });
    expect((await lrnBulk(sb, { phone_numbers: numbersIn('212', 4) })).status).toBe(200);
    await expect(sandbox({ bulkMax: 0 })).rejects.toThrow(/bulkMax must be a whole number from 1 to 100000/);
  });

  it('refuses a wrong method, media type, body or option type as the single endpoint does', async () => {
    const sb = await sandbox(UNLIMITED);
    const get = await post(sb, '/api/v1/lrn/bulk', undefined, { method: 'GET' });
    expect(get.status).toBe(405);
    expect(get.headers.get('allow')).toBe('POST');
    expect((await lrnBulk(sb, {}, { headers: { 'content-type': 'text/plain' } })).status).toBe(415);
    const cases: Array<[string, string]> = [
      ['not json', 'the body must be a JSON object'],
      ['{}', 'phone_numbers is required and must be a list of strings'],
      ['{"phone_numbers":"12125550123"}', 'phone_numbers is required and must be a list of strings'],
      ['{"phone_numbers":[12125550123]}', 'phone_numbers is required and must be a list of strings'],
      ['{"phone_numbers":[]}', 'phone_numbers must hold at least one number'],
      ['{"phone_numbers":["12125550123"],"include_enhanced":"yes"}', 'include_enhanced must be true or false'],
    ];
    for (const [raw, details] of cases) {
      const r = await lrnBulk(sb, {}, { raw });
      expect(r.status, raw).toBe(400);
      expect(r.json.details, raw).toBe(details);
    }
    expect(sb.stats().billed).toBe(0);
  });

  it('413 past the body cap, which grows with bulkMax', async () => {
    const sb = await sandbox({ bulkMax: 1 });
    const r = await lrnBulk(sb, { phone_numbers: ['1'.repeat(200_000)] });
    expect(r.status).toBe(413);
  });
});

describe('bulk endpoints: limits', () => {
  it('their own budget per key, 5 requests a second by default, LRN and CNAM rate headers and 429 shapes', async () => {
    const clock = steppedClock(1_700_000_020_250);
    const sb = await sandbox({}, clock);
    const body = { phone_numbers: ['12125550123'] };
    const l = [];
    for (let i = 0; i < 6; i++) l.push(await lrnBulk(sb, body));
    expect(l.map((r) => r.status)).toEqual([200, 200, 200, 200, 200, 429]);
    expect(l.map((r) => r.headers.get('x-ratelimit-remaining'))).toEqual(['4', '3', '2', '1', '0', '0']);
    expect(l[0]?.headers.get('x-ratelimit-limit')).toBe('5');
    expect(l[0]?.headers.get('x-ratelimit-reset')).toBe('1');
    const refused = l[5];
    expect(refused?.headers.get('retry-after')).toBe('1');
    expect(refused?.json).toEqual({ error: 'rate_limit_exceeded', message: 'rate limit of LRN bulk requests per second for this API key exceeded; retry in 1 s', retry_after: 1 });
    // The single endpoint keeps its own budget.
    const single = await lrn(sb, { phone_number: '12125550123' });
    expect(single.status).toBe(200);
    expect(single.headers.get('x-ratelimit-limit')).toBe('200');
    const c = [];
    for (let i = 0; i < 6; i++) c.push(await cnamBulk(sb, body));
    expect(c.map((r) => r.status)).toEqual([200, 200, 200, 200, 200, 429]);
    expect(c[0]?.headers.get('x-ratelimit-reset')).toBe('1700000021');
    expect(c[5]?.json.data).toBeNull();
    expect(c[5]?.json.errors[0]).toMatch(/CNAM bulk requests/);
    clock.advance(1000);
    expect((await lrnBulk(sb, body)).status).toBe(200);
    expect(sb.stats().windows.counts).toMatchObject({ 'lrn-bulk:1700000020000': 5, 'cnam-bulk:1700000020000': 5, 'lrn:1700000020000': 1, 'lrn-bulk:1700000021000': 1 });
  });

  it('--window applies (and --bulk-limit sets the budget per window); --shared-limit does not take bulk requests', async () => {
    const clock = steppedClock(1_700_000_020_000); // 40 s into a minute
    const sb = await sandbox({ windowMs: 60_000, bulkLimits: { lrn: 2 }, sharedLimit: 1 }, clock);
    const body = { phone_numbers: ['12125550123'] };
    const l = [await lrnBulk(sb, body), await lrnBulk(sb, body), await lrnBulk(sb, body)];
    expect(l.map((r) => r.status)).toEqual([200, 200, 429]);
    expect(l[0]?.headers.get('x-ratelimit-limit')).toBe('2');
    expect(l[0]?.headers.get('x-ratelimit-reset')).toBe('20');
    expect(l[2]?.headers.get('retry-after')).toBe('20');
    expect(l[2]?.json.message).toBe('rate limit of LRN bulk requests per 60 s window for this API key exceeded; retry in 20 s');
    // The shared budget of single requests is untouched by the bulk ones.
    expect((await lrn(sb, { phone_number: '12125550123' })).status).toBe(200);
    expect((await lrn(sb, { phone_number: '12125550123' })).status).toBe(429);
    clock.advance(20_000);
    expect((await lrnBulk(sb, body)).status).toBe(200);
  });

  it('a bulk limit of 0 is unlimited and sends no rate headers; the IETF header style applies', async () => {
    const sb = await sandbox({ bulkLimits: { lrn: 0 }, rateHeaders: 'ietf' });
    const r = await lrnBulk(sb, { phone_numbers: ['12125550123'] });
    expect(r.headers.get('x-ratelimit-limit')).toBeNull();
    expect(r.headers.get('ratelimit')).toBeNull();
    const c = await cnamBulk(sb, { phone_numbers: ['12125550123'] });
    expect(c.headers.get('ratelimit-policy')).toBe('"window";q=5;w=1');
    expect(c.headers.get('ratelimit')).toMatch(/^"window";r=4;t=1$/);
  });
});

describe('bulk endpoints: faults', () => {
  it('bulkFailRate marks rows failed, with an error; they are not billed', async () => {
    const sb = await sandbox({ bulkFailRate: 1 });
    const r = await lrnBulk(sb, { phone_numbers: ['12125550100', '12125550100', '12125550101', 'bad'] });
    expect(r.status).toBe(200);
    expect(r.json.results.map((x: Row) => x.status)).toEqual(['failed', 'failed', 'invalid']);
    expect(r.json.results[0]).toEqual({
      phone_number: '12125550100',
      e164_phone: '+12125550100',
      input_indices: [0, 1],
      status: 'failed',
      error: 'upstream provider timeout (injected fault): retry the number later',
    });
    expect(r.json.summary).toMatchObject({ submitted: 4, succeeded: 0, failed: 4 });
    expect(r.json.billing).toEqual({ billed: 0, free: { duplicates: 1, invalid: 1, failed: 2 } });
    expect(sb.stats().billed).toBe(0);
  });

  it('bulkFailRate at a rate fails about that share of rows; the others keep their values', async () => {
    const sb = await sandbox({ bulkFailRate: 0.3, bulkLimits: { lrn: 0 } });
    const numbers = numbersIn('212', 1000);
    const rows = (await lrnBulk(sb, { phone_numbers: numbers })).json.results as Row[];
    const failed = rows.filter((x) => x.status === 'failed').length;
    expect(failed).toBeGreaterThan(200);
    expect(failed).toBeLessThan(400);
    expect(sb.stats().bulk.billed.lrn).toBe(1000 - failed);
    sb.configure({ bulkFailRate: 0 });
    const again = (await lrnBulk(sb, { phone_numbers: numbers })).json.results as Row[];
    for (const [i, row] of rows.entries()) if (row.status === 'success') expect(again[i]?.lrn_value).toBe(row.lrn_value);
  });

  it('whole-request faults as for single requests: 5xx in the endpoint shape, reset, spurious 429', async () => {
    const failing = await sandbox({ failRate: 1 });
    const e = await lrnBulk(failing, { phone_numbers: ['12125550123'] });
    expect([500, 502, 503]).toContain(e.status);
    expect(e.json.error).toBe('Server error');
    expect(e.headers.get('x-ratelimit-limit')).toBe('5');
    const ec = await cnamBulk(failing, { phone_numbers: ['12125550123'] });
    expect(ec.json.data).toBeNull();
    expect(failing.stats().faults.error).toBe(2);
    expect(failing.stats().billed).toBe(0);
    const resetting = await sandbox({ resetRate: 1 });
    await expect(lrnBulk(resetting, { phone_numbers: ['12125550123'] })).rejects.toThrow();
    expect(resetting.stats().faults.reset).toBe(1);
    const limited = await sandbox({ rate429: 1 });
    const s = await lrnBulk(limited, { phone_numbers: ['12125550123'] });
    expect(s.status).toBe(429);
    expect(s.json.retry_after).toBeGreaterThanOrEqual(1);
    expect(s.headers.get('x-ratelimit-remaining')).toBe('5');
    expect(limited.stats().faults.rate429).toBe(1);
  });
});

describe('bulk endpoints: hints', () => {
  it('a hinted 429 of a bulk endpoint holds that endpoint only: a bulk request before the hint is early, a single one is not', async () => {
    const clock = steppedClock(1_700_000_000_000);
    const sb = await sandbox({ bulkLimits: { lrn: 1 } }, clock);
    const body = { phone_numbers: ['12125550123'] };
    expect((await lrnBulk(sb, body)).status).toBe(200);
    const refused = await lrnBulk(sb, body);
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('1');
    clock.advance(100);
    expect((await lrn(sb, { phone_number: '12125550123' })).status).toBe(200);
    expect((await cnamBulk(sb, body)).status).toBe(200);
    expect(sb.stats().early).toBe(0);
    expect((await lrnBulk(sb, body)).status).toBe(429);
    expect(sb.stats().early).toBe(1);
    clock.advance(1000);
    expect((await lrnBulk(sb, body)).status).toBe(200);
    expect(sb.stats().early).toBe(1);
  });

  it('rate429Bare: a spurious 429 of a bulk endpoint gives no hint', async () => {
    const sb = await sandbox({ rate429: 1, rate429Bare: true });
    const r = await lrnBulk(sb, { phone_numbers: ['12125550123'] });
    expect(r.status).toBe(429);
    expect(r.json.retry_after).toBeUndefined();
    expect(r.headers.get('retry-after')).toBeNull();
    await lrnBulk(sb, { phone_numbers: ['12125550123'] });
    expect(sb.stats().early).toBe(0);
  });
});

describe('bulk endpoints: steering', () => {
  it('POST /__sandbox/config changes the bulk options and refuses bad ones', async () => {
    const sb = await sandbox();
    const config = (body: unknown) => fetch(`${sb.url}/__sandbox/config`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const ok = await config({ bulkLimits: { lrn: 1 }, bulkRows: 'single', bulkMax: 2, bulkFailRate: 0 });
    expect(ok.status).toBe(200);
    expect(await ok.json()).toMatchObject({ bulk: true, bulkMax: 2, bulkLimits: { lrn: 1, cnam: 5 }, bulkRows: 'single', bulkFailRate: 0 });
    const r = await lrnBulk(sb, { phone_numbers: ['12125550123'] });
    expect(r.headers.get('x-ratelimit-limit')).toBe('1');
    expect(r.json.results[0]).toHaveProperty('lrn');
    for (const bad of [{ bulkLimits: { trust: 1 } }, { bulkLimits: { lrn: -1 } }, { bulkRows: 'flat' }, { bulkMax: 0 }, { bulkFailRate: 2 }, { bulk: 'no' }]) {
      const res = await config(bad);
      expect(res.status, JSON.stringify(bad)).toBe(400);
    }
    expect(((await (await config({ bulk: false })).json()) as { bulk: boolean }).bulk).toBe(false);
    expect((await lrnBulk(sb, { phone_numbers: ['12125550123'] })).status).toBe(404);
  });
});

describe('bulk endpoints: --no-bulk, stats, auth and quota', () => {
  it('bulk: false answers 404 on the bulk paths, as a server without them; the single endpoints stay', async () => {
    const sb = await sandbox({ bulk: false });
    for (const r of [await lrnBulk(sb, { phone_numbers: ['12125550123'] }), await cnamBulk(sb, { phone_numbers: ['12125550123'] })]) {
      expect(r.status).toBe(404);
      expect(r.json.error).toBe('not_found');
    }
    expect((await lrn(sb, { phone_number: '12125550123' })).status).toBe(200);
    sb.configure({ bulk: true });
    expect((await lrnBulk(sb, { phone_numbers: ['12125550123'] })).status).toBe(200);
    expect(sb.stats().bulk.requests).toEqual({ lrn: 1, cnam: 0 });
    expect(sb.stats().requests.total).toBe(4);
  });

  it('stats count bulk requests, numbers and billed numbers per lookup and rows per status, also on the admin endpoint', async () => {
    const sb = await sandbox();
    await lrnBulk(sb, { phone_numbers: ['12125550100', '12125550100', '12125550101', 'x'] });
    await lrnBulk(sb, { phone_numbers: ['12125550101'] });
    await cnamBulk(sb, { phone_numbers: ['4155550100', '14155550100'] });
    await lrnBulk(sb, { phone_numbers: ['12125550100'] }, { key: 'wrong-key-00000' });
    const expected = {
      requests: { lrn: 3, cnam: 1 },
      numbers: { lrn: 5, cnam: 2 },
      billed: { lrn: 3, cnam: 1 },
      rows: { success: 3, cached: 1, failed: 0, invalid: 1 },
    };
    expect(sb.stats().bulk).toEqual(expected);
    const overHttp = (await sandboxStats(sb)) as unknown as { bulk: unknown; billed: number; lookups: unknown; byNumber: unknown; requests: { total: number } };
    expect(overHttp.bulk).toEqual(expected);
    expect(overHttp.billed).toBe(4);
    expect(overHttp.byNumber).toEqual({ 'lrn:12125550100': 1, 'lrn:12125550101': 2, 'cnam:14155550100': 1 });
    expect(overHttp.requests.total).toBe(4);
    await fetch(`${sb.url}/__sandbox/reset`, { method: 'POST' });
    expect(sb.stats().bulk.requests).toEqual({ lrn: 0, cnam: 0 });
  });

  it('401 for a missing or unknown key, with WWW-Authenticate and the endpoint room', async () => {
    const sb = await sandbox();
    for (const key of [null, 'not-a-known-key-0']) {
      const r = await lrnBulk(sb, { phone_numbers: ['12125550123'] }, { key });
      expect(r.status).toBe(401);
      expect(r.json.error).toBe('unauthorized');
      expect(r.headers.get('www-authenticate')).toMatch(/^Bearer/);
      expect(r.headers.get('x-ratelimit-limit')).toBe('5');
    }
    expect(sb.stats().unauthorized).toBe(2);
  });

  it('402 when the quota cannot cover the distinct valid numbers; duplicates, invalid and failed numbers cost nothing', async () => {
    const sb = await sandbox({ quota: 3 });
    // Two distinct valid numbers (one twice) and an invalid one: 2 billed.
    const first = await lrnBulk(sb, { phone_numbers: ['12125550100', '12125550100', '12125550101', 'x'] });
    expect(first.status).toBe(200);
    expect(first.json.billing.billed).toBe(2);
    const tooMany = await lrnBulk(sb, { phone_numbers: ['12125550102', '12125550103'] });
    expect(tooMany.status).toBe(402);
    expect(tooMany.json.error).toBe('payment_required');
    expect(sb.stats().paymentRequired).toBe(1);
    expect(sb.stats().billed).toBe(2);
    const fits = await cnamBulk(sb, { phone_numbers: ['12125550102', 'y', '2125550102'] });
    expect(fits.status).toBe(200);
    expect(fits.json.billing.billed).toBe(1);
    expect((await lrn(sb, { phone_number: '12125550104' })).status).toBe(402);
    expect(sb.stats().billed).toBe(3);
  });

  it('never echoes the key', async () => {
    const sb = await sandbox({ apiKeys: ['super-secret-key-123'] });
    const r = await lrnBulk(sb, { phone_numbers: ['x', '12125550123'] });
    const wrong = await lrnBulk(sb, { phone_numbers: ['x'] }, { key: 'super-secret-key-124' });
    expect(r.text).not.toContain('super-secret-key');
    expect(wrong.text).not.toContain('super-secret-key');
  });
});
