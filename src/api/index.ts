// The service client: REST and GraphQL transports on Node's http client and undici's pool (wire-choice.ts), and the classification of answers.
export { createTransport, type ClientOptions } from './transport.js';
