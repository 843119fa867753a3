import { isObject } from '../../core/json.js';
import { lrnResult } from '../data.js';
import type { SandboxLookupData } from './entry.js';

export const lrnData: SandboxLookupData = {
  kind: 'lrn',
  result: (s, opts) => lrnResult(s, opts.enhanced === true, opts.messaging === true),
  // The LRN page's carrier type code `WRS` for wireless: a client must pass it through.
  realService: (result) =>
    isObject(result.enhanced_lrn_data) && result.enhanced_lrn_data.carrier_type === 'WIRELESS'
      ? { ...result, enhanced_lrn_data: { ...result.enhanced_lrn_data, carrier_type: 'WRS' } }
      : result,
};
