import { describe, expect, it } from 'vitest';
import { cnam, lrn, post, trust } from './helpers.js';
import { sandbox } from '../support/sandbox.js';

describe('REST lookups', () => {
  it('LRN answers at top level with only lrn and lrn_activated_at by default', async () => {
    const sb = await sandbox();
    const r = await lrn(sb, { phone_number: '12125550123' });
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toBe('application/json');
    expect(Object.keys(r.json).sort()).toEqual(['lrn', 'lrn_activated_at']);
    expect(r.json.lrn).toMatch(/^1212\d{7}$/);
    // Seeded: this number has an activation date, in New York's offset.
    expect(r.json.lrn_activated_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d-05:00$/);
  });

  it('LRN adds enhanced_lrn_data and messaging only when asked', async () => {
    const sb = await sandbox();
    const both = await lrn(sb, { phone_number: '12125550123', include_enhanced_lrn: true, messaging_lookup: true });
    expect(Object.keys(both.json).sort()).toEqual(['enhanced_lrn_data', 'lrn', 'lrn_activated_at', 'messaging']);
    expect(Object.keys(both.json.enhanced_lrn_data).sort()).toEqual(
      ['carrier', 'carrier_type', 'city', 'county', 'lata', 'ocn', 'rate_center', 'state', 'timezone', 'zip_code'],
    );
    for (const v of Object.values(both.json.enhanced_lrn_data)) expect(typeof v).toBe('string');
    expect(both.json.messaging).toMatchObject({ country: 'US', country_code: '1' });
    expect(typeof both.json.messaging.enabled).toBe('boolean');
    expect(typeof both.json.messaging.provider).toBe('string');
    const onlyEnhanced = await lrn(sb, { phone_number: '12125550123', include_enhanced_lrn: true, messaging_lookup: false });
    expect(Object.keys(onlyEnhanced.json).sort()).toEqual(['enhanced_lrn_data', 'lrn', 'lrn_activated_at']);
    const onlyMessaging = await lrn(sb, { phone_number: '12125550123', messaging_lookup: true });
    expect(Object.keys(onlyMessaging.json).sort()).toEqual(['lrn', 'lrn_activated_at', 'messaging']);
  });

  it('CNAM answers {data, errors} and accepts 10 or 11 digits', async () => {
    const sb = await sandbox();
    const r11 = await cnam(sb, { phone_number: '14155550123' });
    expect(r11.status).toBe(200);
    expect(r11.json.errors).toEqual([]);
    expect(Object.keys(r11.json.data).sort()).toEqual(['cnam', 'number']);
    expect(r11.json.data.number).toBe('14155550123');
    expect(r11.json.data.cnam).toMatch(/^[A-Z0-9 &.'-]{1,15}$/);
    const r10 = await cnam(sb, { phone_number: '4155550123' });
    expect(r10.json.data).toEqual(r11.json.data);
  });

  it('CNAM adds spam_type with include_spam or its alias include_spam_check', async () => {
    const sb = await sandbox();
    const a = await cnam(sb, { phone_number: '14155550123', include_spam: true });
    const b = await cnam(sb, { phone_number: '14155550123', include_spam_check: true });
    expect(['NONE', 'SPAM', 'ROBOCALL', 'SCAM']).toContain(a.json.data.spam_type);
    expect(b.json).toEqual(a.json);
    const off = await cnam(sb, { phone_number: '14155550123', include_spam: false, include_spam_check: false });
    expect(off.json.data).not.toHaveProperty('spam_type');
  });

  it('trust answers {success, data} with the REST field names', async () => {
    const sb = await sandbox();
    const r = await trust(sb, { phone_number: '13125550199' });
    expect(r.status).toBe(200);
    expect(r.json.success).toBe(true);
    const d = r.json.data;
    expect(Object.keys(d).sort()).toEqual(
      ['is_robocall', 'is_scam', 'is_spam', 'last_updated', 'phone_number', 'reputation_score', 'spam_type', 'trust_level'],
    );
    expect(d.phone_number).toBe('13125550199');
    expect(Number.isInteger(d.reputation_score)).toBe(true);
    expect(['high', 'medium', 'low']).toContain(d.trust_level);
    expect(d.last_updated).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    const r10 = await trust(sb, { phone_number: '3125550199' });
    expect(r10.json).toEqual(r.json);
  });
});

describe('REST validation', () => {
  it('LRN refuses anything but 11 digits starting with 1, with {error, details}', async () => {
    const sb = await sandbox();
    for (const bad of ['2125550123', '22125550123', '1212555012', '1212555012x', '']) {
      const r = await lrn(sb, { phone_number: bad });
      expect(r.status, bad).toBe(400);
      expect(r.json).toEqual({ error: 'Invalid phone number format', details: 'phone_number must be 11 digits starting with 1' });
    }
  });

  it('CNAM refuses a bad number with the invalid-number envelope', async () => {
    const sb = await sandbox();
    const r = await cnam(sb, { phone_number: '555' });
    expect(r.status).toBe(400);
    expect(r.json.data).toEqual({ number: '', cnam: null, spam_type: 'INVALID_NUMBER' });
    expect(r.json.errors.length).toBeGreaterThan(0);
    expect(typeof r.json.errors[0]).toBe('string');
    expect((await cnam(sb, { phone_number: '22125550123' })).status).toBe(400);
  });

  it('trust refuses a bad number with {success:false, error}', async () => {
    const sb = await sandbox();
    const r = await trust(sb, { phone_number: '+1 212 555 0123' });
    expect(r.status).toBe(400);
    expect(r.json.success).toBe(false);
    expect(r.json.error).toMatch(/10 digits, or 11 digits starting with 1/);
  });

  it('refuses wrong types with 400 in the endpoint dialect', async () => {
    const sb = await sandbox();
    expect((await lrn(sb, { phone_number: 12125550123 })).json).toMatchObject({ error: 'Invalid request' });
    expect((await lrn(sb, { phone_number: '12125550123', include_enhanced_lrn: 'yes' })).status).toBe(400);
    const c = await cnam(sb, { phone_number: '12125550123', include_spam_check: 1 });
    expect(c.status).toBe(400);
    expect(c.json).toEqual({ data: null, errors: ['Invalid request: include_spam_check must be true or false'] });
    const t = await trust(sb, {});
    expect(t.status).toBe(400);
    expect(t.json.success).toBe(false);
    expect((await lrn(sb, { phone_number: '12125550123', messaging_lookup: null })).status).toBe(400);
  });

  it('answers malformed JSON, non-object bodies and the wrong content type with clear 4xx', async () => {
    const sb = await sandbox();
    const bad = await post(sb, '/api/v1/lrn', undefined, { raw: '{"phone_number": ' });
    expect(bad.status).toBe(400);
    expect(bad.json.error).toBe('Malformed JSON');
    expect((await post(sb, '/api/v1/cnam', undefined, { raw: '[1,2]' })).json.errors[0]).toMatch(/JSON object/);
    expect((await post(sb, '/api/v1/trust', undefined, { raw: 'null' })).status).toBe(400);
    const ct = await post(sb, '/api/v1/lrn', { phone_number: '12125550123' }, { headers: { 'content-type': 'text/plain' } });
    expect(ct.status).toBe(415);
    expect(ct.json.error).toBe('Unsupported media type');
    const withCharset = await post(sb, '/api/v1/lrn', { phone_number: '12125550123' }, { headers: { 'content-type': 'application/json; charset=utf-8' } });
    expect(withCharset.status).toBe(200);
  });

  it('answers a wrong method with 405 and Allow, an unknown path with 404', async () => {
    const sb = await sandbox();
    const get = await post(sb, '/api/v1/lrn', undefined, { method: 'GET' });
    expect(get.status).toBe(405);
    expect(get.headers.get('allow')).toBe('POST');
    expect(get.json.error).toBe('Method not allowed');
    const put = await post(sb, '/api/v1/trust', { phone_number: '12125550123' }, { method: 'PUT' });
    expect(put.status).toBe(405);
    expect(put.json.success).toBe(false);
    const nf = await post(sb, '/api/v2/lrn', { phone_number: '12125550123' });
    expect(nf.status).toBe(404);
    expect(nf.json.error).toBe('not_found');
    expect((await post(sb, '/api/v1/lrn?x=1', { phone_number: '12125550123' })).status).toBe(200);
  });

  it('ignores unknown body fields', async () => {
    const sb = await sandbox();
    const r = await lrn(sb, { phone_number: '12125550123', extra: { deep: [1] } });
    expect(r.status).toBe(200);
  });
});
