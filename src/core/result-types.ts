// Generated from the lookup descriptors (src/core/lookups.ts) by src/core/result-types-source.ts:
// `node scripts/result-types.js` writes it again. Do not edit by hand.

/** LRN: `enhanced_lrn_data` (with --enhanced). */
export type EnhancedLrnData = {
  carrier: string;
  carrier_type: 'WIRELESS' | 'LANDLINE' | 'VOIP' | 'TOLLFREE' | 'WRS' | (string & {});
  city: string;
  zip_code: string;
  county: string;
  timezone: string;
  state: string;
  rate_center: string;
  lata: string;
  ocn: string;
};

/** LRN: `messaging` (with --messaging). */
export type MessagingData = {
  provider: string;
  enabled: boolean;
  country: string;
  country_code: string;
  reference_id: string;
};

/** The result of one LRN lookup, as the service sends it (envelope removed). */
export type LrnResult = {
  lrn: string;
  lrn_activated_at: string | null;
  enhanced_lrn_data?: EnhancedLrnData | null;
  messaging?: MessagingData | null;
};

/** The result of one CNAM lookup, as the service sends it (envelope removed). */
export type CnamResult = {
  number: string;
  cnam: string | null;
  spam_type?: 'NONE' | 'SPAM' | 'ROBOCALL' | 'SCAM' | 'INVALID_NUMBER' | (string & {});
};

/** The result of one Trust lookup, as the service sends it (envelope removed). */
export type TrustResult = {
  phone_number: string;
  is_spam: boolean;
  is_robocall: boolean;
  is_scam: boolean;
  spam_type: 'SPAM' | 'SCAM' | 'ROBOCALL' | 'TELEMARKETER' | 'NONE' | (string & {}) | null;
  reputation_score: number;
  trust_level: 'high' | 'medium' | 'low' | (string & {});
  last_updated: string;
};

/** Each lookup kind's result type. */
export interface ResultOf {
  lrn: LrnResult;
  cnam: CnamResult;
  trust: TrustResult;
}

/** Each lookup kind's options: another lookup's option is a type error. */
export interface OptionsOf {
  lrn: { enhanced?: boolean; messaging?: boolean; };
  cnam: { spam?: boolean; };
  trust: Record<never, never>;
}
