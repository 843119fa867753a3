// The service client: REST and GraphQL transports on undici or Node's http client, and the classification of answers.
export { createTransport, type ClientOptions } from './transport.js';
export { checkBaseUrl, isLoopback } from './base-url.js';
export { classifyRest } from './rest.js';
export { buildQuery, classifyGraphql, graphqlRequest } from './graphql.js';
export type { ClassifyContext, RawResponse } from './classify.js';
export { parseRateInfo, waitHintMs } from './rate-headers.js';
export type { TraceSink } from './trace.js';
