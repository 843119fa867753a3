// The REST side: one request body per lookup, and the reader of its envelope style (envelopes/).
import type { LookupDescriptor, LookupOptions } from '../core/lookups.js';
import { restBody } from '../core/lookups.js';
import type { Attempt } from '../core/transport.js';
import { classifyWith, type ClassifyContext, type RawResponse } from './classify.js';
import { ENVELOPES } from './envelopes/index.js';

export interface RestRequest {
  readonly path: string;
  readonly body: Record<string, unknown>;
}

export function restRequest(d: LookupDescriptor, number: string, opts: LookupOptions): RestRequest {
  return { path: d.restPath, body: restBody(d, number, opts) };
}

/** Classifies one REST response. Never throws. */
export function classifyRest(d: LookupDescriptor, opts: LookupOptions, raw: RawResponse, ctx: ClassifyContext): Attempt {
  return classifyWith(d, opts, raw, ctx, ENVELOPES[d.envelope].read);
}
