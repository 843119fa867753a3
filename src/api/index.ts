// The service client: REST and GraphQL transports on undici or Node's http client, and the classification of answers.
export { createTransport, type ClientOptions } from './transport.js';
