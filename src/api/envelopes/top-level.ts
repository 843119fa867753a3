// LRN's envelope: the result at top level; an error is `{error, details}` (the service also sends
// `{error, message}` and `{error: {code, message}}`).
import { isObject } from '../../core/json.js';
import { refusal } from '../classify.js';
import type { EnvelopeStyle } from './envelope.js';

export const topLevel: EnvelopeStyle = {
  read: (json, r) => {
    if (!isObject(json)) return undefined;
    if (typeof json.error === 'string' || isObject(json.error)) return refusal(r.words, r);
    return { kind: 'ok', source: json, naming: 'rest' };
  },
  wrap: (result) => result,
  error: (short, detail) => JSON.stringify({ error: short, details: detail }),
  rateLimited: (message, retryAfter) => JSON.stringify({ error: 'rate_limit_exceeded', message, retry_after: retryAfter }),
  invalidNumber: (rule) => JSON.stringify({ error: 'Invalid phone number format', details: `phone_number ${rule}` }),
  shapes: { rateLimited: '{"error","message","retry_after"}', invalidNumber: '{"error","details"}' },
};
