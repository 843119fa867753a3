// What one envelope style is, for both sides of the wire: how the client reads a body in it, and
// how the sandbox writes one. One module per style, so the two cannot drift apart.
import type { EnvelopeReader } from '../classify.js';

export interface EnvelopeStyle {
  /** The client's reader of a response in this envelope. */
  readonly read: EnvelopeReader;
  /** A result (its JSON text) as the service sends it. */
  wrap(result: string): string;
  /** A 4xx/5xx body other than 401/402/429. */
  error(short: string, detail: string): string;
  /** A 429 body. */
  rateLimited(message: string, retryAfter: number | undefined): string;
  /** The answer to a refused number; `invalidResult`: the result the envelope carries with it, if any. */
  invalidNumber(rule: string, invalidResult: Readonly<Record<string, unknown>> | undefined): string;
  /** How its bodies look, for the sandbox's help: a 429, a 400 for a refused number. */
  readonly shapes: { readonly rateLimited: string; readonly invalidNumber: string };
}
