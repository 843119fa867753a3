// What the HTTPS clients trust: Node's default (its CA bundle, and NODE_EXTRA_CA_CERTS, which Node
// loads at start and both node:tls and undici use when given no `ca`), plus a private CA given
// as --ca-file. A `ca` option replaces the default trust instead of adding to it, so the extra CA
// goes in one secure context with the default certificates, built once per client.
import { readFileSync } from 'node:fs';
import * as tls from 'node:tls';

export { certificatesOf } from './pem.js';

type Env = Readonly<Record<string, string | undefined>>;

/** The certificates Node trusts by default (Node 22.15+ says which; before, the bundle and NODE_EXTRA_CA_CERTS). */
function defaultCertificates(env: Env): string[] {
  const listed = (tls as { getCACertificates?: (type: 'default') => string[] }).getCACertificates;
  if (listed) return listed('default');
  const extra = env.NODE_EXTRA_CA_CERTS;
  let extraText: string[] = [];
  if (extra) {
    try {
      extraText = [readFileSync(extra, 'utf8')];
    } catch {
      // Node warned about an unreadable NODE_EXTRA_CA_CERTS at start and went on without it.
    }
  }
  return [...tls.rootCertificates, ...extraText];
}

/**
 * A secure context trusting the default certificates and `extra` (PEM texts). Throws when a PEM
 * cannot be read as a certificate (OpenSSL's message).
 */
export function trustContext(extra: readonly string[], env: Env): tls.SecureContext {
  return tls.createSecureContext({ ca: [...defaultCertificates(env), ...extra] });
}
