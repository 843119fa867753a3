// The GraphQL schema as the service description (section 4.2, 2.x) states it, written by hand and
// not from the lookup descriptors, so that queries and servers can be checked against it
// independently of the code they share. Nullability is not documented: sub-object fields are
// nullable here.
import { buildSchema } from 'graphql';

const SPEC_SDL = `
  type Query {
    lookupLrn(phoneNumber: String!, includeEnhancedLrn: Boolean, includeMessaging: Boolean): LrnResult
    lookupCnam(phoneNumber: String!, includeSpam: Boolean): CnamResult
    trustLookup(phoneNumber: String!): TrustResult
  }
  type LrnResult { lrn: String! lrn_activated_at: String enhanced_lrn_data: EnhancedLrnData messaging: MessagingData }
  type EnhancedLrnData { carrier: String carrier_type: String city: String zip_code: String county: String timezone: String state: String rate_center: String lata: String ocn: String }
  type MessagingData { provider: String enabled: Boolean country: String country_code: String reference_id: String }
  type CnamResult { number: String! cnam: String spam_type: String }
  type TrustResult { phoneNumber: String! isSpam: Boolean! isRobocall: Boolean! isScam: Boolean! spamType: String reputationScore: Int! trustLevel: String! lastUpdated: String! }
`;

export const SPEC_SCHEMA = buildSchema(SPEC_SDL);
