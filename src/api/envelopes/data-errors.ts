// CNAM's envelope: `{data, errors}`; the envelope, not the status, says whether the number was
// refused, and a refused number may still come with a result (spam_type INVALID_NUMBER, spec 7.3).
import { isObject } from '../../core/json.js';
import { errorMessages, oneLine } from '../body.js';
import { refusal } from '../classify.js';
import type { EnvelopeStyle } from './envelope.js';

export const dataErrors: EnvelopeStyle = {
  read: (json, r) => {
    if (!isObject(json)) return undefined;
    const data = json.data;
    const errors = errorMessages(json.errors);
    const words = errors.length > 0 ? oneLine(errors.join('; '), r.ctx.secret) : undefined;
    if (isObject(data)) return { kind: 'ok', source: data, naming: 'rest', words };
    if (errors.length > 0 && (data === null || data === undefined)) {
      // A 2xx or 400 envelope with errors and no data is the service refusing the number.
      return refusal(words, r, r.raw.status < 300);
    }
    return undefined;
  },
  wrap: (result) => `{"data":${result},"errors":[]}`,
  error: (short, detail) => JSON.stringify({ data: null, errors: [`${short}: ${detail}`] }),
  rateLimited: (message) => JSON.stringify({ data: null, errors: [message] }),
  invalidNumber: (rule, invalidResult) => JSON.stringify({ data: invalidResult ?? null, errors: [`Invalid phone number format: phone_number ${rule}`] }),
  shapes: { rateLimited: '{"data":null,"errors":[...]}', invalidNumber: '{"data","errors":[...]}' },
};
