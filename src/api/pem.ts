// The certificates of a PEM text, checked one by one: cheap (node:crypto, no TLS), so a bad CA file
// is refused before anything is sent.
import { X509Certificate } from 'node:crypto';

const BEGIN = '-----BEGIN CERTIFICATE-----';
const END = '-----END CERTIFICATE-----';

/** The BEGIN…END blocks, found by indexOf: linear on any input (a lazy regex is not). */
function pemBlocks(pem: string): string[] {
  const blocks: string[] = [];
  for (let at = pem.indexOf(BEGIN); at !== -1; ) {
    const end = pem.indexOf(END, at + BEGIN.length);
    if (end === -1) break;
    blocks.push(pem.slice(at, end + END.length));
    at = pem.indexOf(BEGIN, end + END.length);
  }
  return blocks;
}

/**
 * The certificates of a PEM text, each checked (OpenSSL would silently skip a bad one, leaving a
 * trust that fails later with a misleading "not trusted"). Throws an Error saying what is wrong.
 */
export function certificatesOf(pem: string): string[] {
  const blocks = pemBlocks(pem);
  if (blocks.length === 0) throw new Error('holds no PEM certificate (-----BEGIN CERTIFICATE-----)');
  blocks.forEach((block, i) => {
    try {
      new X509Certificate(block);
    } catch (err) {
      throw new Error(`holds a certificate that cannot be read (number ${i + 1}: ${err instanceof Error ? err.message : String(err)})`);
    }
  });
  return blocks;
}
