// The service client: REST and GraphQL transports on undici or a plain socket (socket-wire.ts), and the classification of answers.
export { createTransport, type ClientOptions } from './transport.js';
