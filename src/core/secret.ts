// The API key is a secret: anything that shows it shows this instead.

/** A key goes into an HTTP header: printable ASCII without spaces, nothing else. */
export function isKeyShaped(key: string): boolean {
  return /^[\x21-\x7e]+$/.test(key);
}

/** `sk_live_abcdef123456` → `sk_l…(20 chars)`: enough to tell keys apart, never enough to use one. */
export function maskSecret(secret: string): string {
  if (secret.length < 12) return `…(${secret.length} chars)`;
  return `${secret.slice(0, 4)}…(${secret.length} chars)`;
}

/** Replaces every occurrence of the secret in a text (for messages that quote server bodies). */
export function redact(text: string, secret: string | undefined): string {
  if (!secret) return text;
  return text.split(secret).join(maskSecret(secret));
}
