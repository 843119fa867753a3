// A fourth lookup, defined here and nowhere else: the line type of a number. Its descriptor is all
// the client, the commands, the settings, the cache and the sandbox's routes and schema need; the
// sandbox's answers are in line-type-data.ts. Importing this file registers it.
import { registerLookup, type LookupDescriptor } from '../../src/index.js';

/** The result, as result-types.ts would have it if this lookup were built in. */
export interface LineTypeResult {
  phone_number: string;
  line_type: string;
  is_mobile: boolean;
  carrier_name: string | null;
}

// The registry of result types widens by declaration merging: `line_type` becomes a LookupKind.
declare module '../../src/core/result-types.js' {
  interface ResultOf {
    line_type: LineTypeResult;
  }
}

export const LINE_TYPE: LookupDescriptor = {
  kind: 'line_type',
  title: 'Line type',
  description: 'Looks up whether each number is a mobile, landline, VoIP or toll-free line, and its carrier.',
  restPath: '/api/v1/line-type',
  envelope: 'success-data',
  numbers: { pattern: /^1?\d{10}$/, rule: 'must be 10 digits, or 11 digits starting with 1' },
  rateReset: 'seconds',
  graphqlField: 'lookupLineType',
  graphqlType: 'LineTypeResult',
  defaultRate: 25,
  sandboxLimit: 30,
  maxAgeMs: 30 * 86_400_000,
  options: [],
  fields: [
    { name: 'phone_number', graphqlName: 'phoneNumber', type: 'string', echo: true },
    { name: 'line_type', graphqlName: 'lineType', type: 'string', label: 'line type', glance: true },
    { name: 'is_mobile', graphqlName: 'isMobile', type: 'boolean', label: 'mobile' },
    { name: 'carrier_name', graphqlName: 'carrierName', type: 'string', nullable: true, label: 'carrier' },
  ],
};

registerLookup(LINE_TYPE);
