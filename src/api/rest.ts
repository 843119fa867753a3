// The REST side: one request body per lookup, and one envelope reader per envelope style.
import type { Envelope, LookupDescriptor, LookupOptions } from '../core/lookups.js';
import { restBody } from '../core/lookups.js';
import type { Attempt } from '../core/transport.js';
import { isObject } from '../core/json.js';
import { errorMessages, oneLine } from './body.js';
import { classifyWith, refusal, type ClassifyContext, type EnvelopeReader, type RawResponse } from './classify.js';

const str = (v: unknown) => (typeof v === 'string' ? v : undefined);

/** LRN: the result at top level; an error is `{error, details}`, `{error, message}` or `{error: {code, message}}`. */
const topLevel: EnvelopeReader = (json, r) => {
  if (!isObject(json)) return undefined;
  if (str(json.error) !== undefined || isObject(json.error)) return refusal(r.words, r);
  return { kind: 'ok', source: json, naming: 'rest' };
};

/** CNAM: `{data, errors}`; the envelope, not the status, says whether the number was refused. */
const dataErrors: EnvelopeReader = (json, r) => {
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
};

/** Trust: `{success, data}`; `success:false` with any status is an error the body explains. */
const successData: EnvelopeReader = (json, r) => {
  if (!isObject(json)) return undefined;
  if (json.success === false) return refusal(r.words, r);
  if (isObject(json.data) && json.success !== false) return { kind: 'ok', source: json.data, naming: 'rest' };
  return undefined;
};

const READERS: Readonly<Record<Envelope, EnvelopeReader>> = {
  none: topLevel,
  'data-errors': dataErrors,
  'success-data': successData,
};

export interface RestRequest {
  readonly path: string;
  readonly body: Record<string, unknown>;
}

export function restRequest(d: LookupDescriptor, number: string, opts: LookupOptions): RestRequest {
  return { path: d.restPath, body: restBody(d, number, opts) };
}

/** Classifies one REST response. Never throws. */
export function classifyRest(d: LookupDescriptor, opts: LookupOptions, raw: RawResponse, ctx: ClassifyContext): Attempt {
  return classifyWith(d, opts, raw, ctx, READERS[d.envelope]);
}
