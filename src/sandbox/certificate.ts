// The sandbox's TLS certificate: made at start for the names a loopback client uses, or read from
// the caller. Generation is ECDSA P-256 (a few milliseconds, where RSA takes a second), with no
// openssl binary to depend on; the library loads only when a certificate is made.
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface TlsMaterial {
  /** PEM of the certificate served: what a client trusts (NODE_EXTRA_CA_CERTS, --ca-file). */
  readonly cert: string;
  /** PEM of its private key. */
  readonly key: string;
}

/** The names a client on this machine reaches the sandbox by. */
const LOOPBACK_NAMES = [
  { type: 2 as const, value: 'localhost' },
  { type: 7 as const, ip: '127.0.0.1' },
  { type: 7 as const, ip: '::1' },
];

/**
 * A self-signed certificate for localhost, 127.0.0.1 and ::1 (plus `host` when it is another name
 * or address), valid from a minute ago for 30 days.
 */
export async function makeCertificate(host: string): Promise<TlsMaterial> {
  const { generate } = await import('selfsigned');
  const names: { type: 2 | 7; value?: string; ip?: string }[] = [...LOOPBACK_NAMES];
  if (!names.some((n) => n.value === host || n.ip === host) && host !== '0.0.0.0' && host !== '::') {
    names.push(/^[\d.]+$|:/.test(host) ? { type: 7, ip: host } : { type: 2, value: host });
  }
  const notBeforeDate = new Date(Date.now() - 60_000);
  // A name of its own: OpenSSL finds an issuer by name, so two sandboxes' certificates trusted at
  // once (NODE_EXTRA_CA_CERTS and --ca-file) must not share one.
  const commonName = `numintel sandbox ${randomBytes(6).toString('hex')}`;
  const pems = await generate([{ name: 'commonName', value: commonName }], {
    keyType: 'ec',
    curve: 'P-256',
    algorithm: 'sha256',
    notBeforeDate,
    notAfterDate: new Date(notBeforeDate.getTime() + 30 * 86_400_000),
    extensions: [
      { name: 'basicConstraints', cA: false, critical: true },
      { name: 'keyUsage', digitalSignature: true, critical: true },
      { name: 'extKeyUsage', serverAuth: true },
      { name: 'subjectAltName', altNames: names },
    ],
  });
  return { cert: pems.cert, key: pems.private };
}

/** The certificate written to a file of its own (for NODE_EXTRA_CA_CERTS), removed by `remove`. */
export async function writeCertificateFile(cert: string): Promise<{ path: string; remove(): Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'numintel-sandbox-'));
  const path = join(dir, 'sandbox-cert.pem');
  await writeFile(path, cert, { mode: 0o644 });
  return { path, remove: () => rm(dir, { recursive: true, force: true }) };
}
