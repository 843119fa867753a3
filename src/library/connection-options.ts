// `ca` and `env`, checked where createClient is called: a `ca` that is no PEM certificate failed
// only at the first lookup (as a TlsError, or a TypeError for a number), and an `env` that is not
// an object of strings was either ignored (no proxy) or failed with a TypeError.
import { BadOptionError } from '../core/errors.js';
import { isObject } from '../core/json.js';
import { certificatesOf } from '../api/pem.js';
import { expected } from './expected.js';

const PEM = 'PEM text (a string or a Buffer)';

/**
 * The PEM texts of `ca`, each checked to hold readable certificates. A Buffer (readFileSync without
 * an encoding) is taken as Node's own `ca` option takes it.
 */
export function caTexts(ca: unknown): string[] | undefined {
  if (ca === undefined) return undefined;
  const many = Array.isArray(ca);
  if (!many && typeof ca !== 'string' && !(ca instanceof Uint8Array)) throw expected('ca', `${PEM} or an array of them`, ca);
  return (many ? (ca as unknown[]) : [ca]).map((one, i) => {
    const name = many ? `ca[${i}]` : 'ca';
    if (typeof one !== 'string' && !(one instanceof Uint8Array)) throw expected(name, PEM, one);
    const text = typeof one === 'string' ? one : new TextDecoder().decode(one);
    try {
      certificatesOf(text);
    } catch (err) {
      throw new BadOptionError(`\`${name}\` ${err instanceof Error ? err.message : String(err)}`, 'give the PEM text of the CA certificates to trust (-----BEGIN CERTIFICATE-----…)');
    }
    return text;
  });
}

/** `env` is an environment: an object whose values are strings (or undefined), as process.env. */
export function checkEnv(env: unknown): void {
  if (env === undefined) return;
  if (!isObject(env)) throw expected('env', 'an object of strings (process.env)', env);
  for (const [name, value] of Object.entries(env)) {
    if (value !== undefined && typeof value !== 'string') throw expected(`env.${name}`, 'a string', value);
  }
}
