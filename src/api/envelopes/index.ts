// Every envelope style by the name a descriptor gives (LookupDescriptor.envelope).
import type { Envelope } from '../../core/lookups.js';
import { dataErrors } from './data-errors.js';
import type { EnvelopeStyle } from './envelope.js';
import { successData } from './success-data.js';
import { topLevel } from './top-level.js';

export type { EnvelopeStyle } from './envelope.js';

export const ENVELOPES: Readonly<Record<Envelope, EnvelopeStyle>> = {
  none: topLevel,
  'data-errors': dataErrors,
  'success-data': successData,
};
