// Trust's envelope: `{success, data}`; `success:false` with any status is an error the body explains.
import { isObject } from '../../core/json.js';
import { refusal } from '../classify.js';
import type { EnvelopeStyle } from './envelope.js';

export const successData: EnvelopeStyle = {
  read: (json, r) => {
    if (!isObject(json)) return undefined;
    if (json.success === false) return refusal(r.words, r);
    if (isObject(json.data) && json.success !== false) return { kind: 'ok', source: json.data, naming: 'rest' };
    return undefined;
  },
  wrap: (result) => `{"success":true,"data":${result}}`,
  error: (short, detail) => JSON.stringify({ success: false, error: `${short}: ${detail}` }),
  rateLimited: (message) => JSON.stringify({ success: false, error: message }),
  invalidNumber: (rule) => JSON.stringify({ success: false, error: `Invalid phone number format: phone_number ${rule}` }),
  shapes: { rateLimited: '{"success":false,"error":...}', invalidNumber: '{"success":false,"error":...}' },
};
