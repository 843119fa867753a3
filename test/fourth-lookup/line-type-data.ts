// The sandbox's answers for the fourth lookup (line-type.ts): the carrier and its type the LRN
// lookup's enhanced data gives for the same number, so the two lookups agree. Importing this file
// registers it.
import { lrnResult } from '../../src/sandbox/data.js';
import { registerSandboxData } from '../../src/index.js';

const LINE_TYPES: Readonly<Record<string, string>> = { WIRELESS: 'mobile', LANDLINE: 'landline', VOIP: 'voip', TOLLFREE: 'toll-free' };

registerSandboxData({
  kind: 'line_type',
  result: (s) => {
    const e = lrnResult(s, true, false).enhanced_lrn_data as { carrier: string; carrier_type: string };
    return { phone_number: s.number, line_type: LINE_TYPES[e.carrier_type] ?? 'unknown', is_mobile: e.carrier_type === 'WIRELESS', carrier_name: e.carrier || null };
  },
});
