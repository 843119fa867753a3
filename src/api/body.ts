// Reading what the service sent, whatever it sent: JSON or not, an error body of any shape, an
// HTML page from a proxy. Everything here is total: no input makes it throw.
import { isObject } from '../core/json.js';
import { htmlText } from '../core/text.js';
import { redact } from '../core/secret.js';

/** The parsed body, or undefined when it is empty or not JSON. */
export function parseJson(text: string): unknown {
  if (!/\S/.test(text)) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

const MAX_EXCERPT = 120;

/** A run of this many characters of the key in a server's text is the key leaking. */
const KEY_RUN = 12;

/** The forms a server may echo the key in: as is, base64 (any alignment), URL-encoded. */
function keyForms(secret: string): string[] {
  const forms = [secret, encodeURIComponent(secret)];
  for (const offset of [0, 1, 2]) {
    const b64 = Buffer.from(secret.slice(offset)).toString('base64');
    // The last block depends on what follows the key in the encoded text: drop it.
    const stable = b64.slice(0, Math.max(0, b64.length - 4));
    forms.push(stable, stable.replace(/\+/g, '-').replace(/\//g, '_'));
  }
  return forms.filter((f) => f.length >= Math.min(KEY_RUN, secret.length));
}

/**
 * True when `text` quotes the key, whole or any run of KEY_RUN characters of it, plainly, split
 * by tags or blanks, base64-encoded or URL-encoded. Such text is never shown, not even masked:
 * masking catches only the verbatim key.
 */
export function quotesKey(text: string, secret: string | undefined): boolean {
  if (!secret || text === '') return false;
  const squeezed = text.replace(/<[^<>]*>/g, '').replace(/\s+/g, '');
  for (const form of keyForms(secret)) {
    const run = Math.min(KEY_RUN, form.length);
    for (let i = 0; i + run <= form.length; i++) {
      const part = form.slice(i, i + run);
      if (text.includes(part) || squeezed.includes(part)) return true;
    }
  }
  return false;
}

const WITHHELD = "(the server's text is withheld: it quotes the API key)";

/** One printable line: no control or bidi characters, no runs of blanks, never the key. */
export function oneLine(text: string, secret: string | undefined, max = MAX_EXCERPT): string {
  if (quotesKey(text, secret)) return WITHHELD;
  // oxlint-disable-next-line no-control-regex
  const clean = redact(text, secret).replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]+/g, ' ');
  const line = clean.replace(/\s+/g, ' ').trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

/** A short, safe quotation of a body for a message: HTML reduced to its text. */
export function excerpt(text: string, secret: string | undefined): string {
  if (text.trim() === '') return 'an empty body';
  const looksHtml = /^\s*<(!doctype|html|head|body|\?xml|[a-z]+[\s>])/i.test(text);
  const plain = looksHtml
    ? htmlText(text).replace(/&nbsp;/g, ' ')
    : text;
  return `"${oneLine(plain, secret)}"`;
}

const str = (v: unknown): string | undefined => (typeof v === 'string' && v.trim() !== '' ? v.trim() : undefined);

/** Messages of an `errors` array: strings, or objects with a `message` (GraphQL, CNAM). */
export function errorMessages(errors: unknown): string[] {
  if (!Array.isArray(errors)) return [];
  return errors.flatMap((e) => {
    const m = str(e) ?? (isObject(e) ? str(e.message) : undefined);
    return m === undefined ? [] : [m];
  });
}

/**
 * The service's own words from an error body of any common shape: `{error, details|message}`,
 * `{error: {message}}`, `{message}`, `{errors: [...]}`, problem+json `{title, detail}`.
 */
export function bodyMessage(json: unknown, secret: string | undefined): string | undefined {
  const raw = rawMessage(json);
  return raw === undefined ? undefined : oneLine(raw, secret);
}

function rawMessage(json: unknown): string | undefined {
  if (typeof json === 'string') return str(json);
  if (!isObject(json)) return undefined;
  if (isObject(json.error)) return rawMessage(json.error);
  const head = str(json.error) ?? str(json.title);
  const tail = str(json.details) ?? str(json.detail) ?? str(json.message);
  const fromErrors = errorMessages(json.errors);
  const parts = [head, tail].filter((p): p is string => p !== undefined);
  if (parts.length === 2 && parts[0] === parts[1]) parts.pop();
  if (parts.length > 0) return parts.join(': ');
  return fromErrors.length > 0 ? fromErrors.join('; ') : undefined;
}

/** The words a service uses when it refuses a phone number as such. */
export function looksLikeInvalidNumber(message: string | undefined): boolean {
  if (message === undefined) return false;
  return (
    /invalid[\s_-]*(phone|number|tn|msisdn)/i.test(message) ||
    refusalNearNumberWord(message) ||
    /\b(must be|should be|expected) \d+ digits\b/i.test(message) ||
    // The real service's refusal of a non-U.S. number, in words or by its code.
    /\binternational (phone )?numbers? (is |are )?not supported\b/i.test(message) ||
    /\b(INVALID_PHONE_NUMBER|INTERNATIONAL_NOT_SUPPORTED)\b/.test(message)
  );
}

const NUMBER_WORD = /\b(?:phone|number)\b/gi;
const REFUSAL_WORD = /\b(?:invalid|malformed|not valid|format|must be|digits?)\b/i;
const LINE_END = /[\n\r\u2028\u2029]/;

/**
 * "phone" or "number", then a word of refusal within 40 characters of the same line: what
 * /\b(phone|number)\b.{0,40}\b(invalid|…)\b/i says, without a bounded repetition that a ReDoS
 * checker can only fuzz (and, under load, once mistook for polynomial). The window after each
 * word holds 40 characters, the longest refusal word and the one that decides its boundary.
 */
export function refusalNearNumberWord(message: string): boolean {
  for (const m of message.matchAll(NUMBER_WORD)) {
    const after = m.index + m[0].length;
    const window = message.slice(after, after + 40 + 'malformed'.length + 1).split(LINE_END)[0]!;
    const hit = REFUSAL_WORD.exec(window);
    if (hit && hit.index <= 40) return true;
  }
  return false;
}

/** Wait hints in seconds carried by a body: LRN `retry_after`, GraphQL `extensions.retryAfter`. */
export function bodyRetrySeconds(json: unknown): unknown[] {
  if (!isObject(json)) return [];
  const hints: unknown[] = [json.retry_after, json.retryAfter];
  if (isObject(json.error)) hints.push(json.error.retry_after, json.error.retryAfter);
  if (Array.isArray(json.errors)) {
    for (const e of json.errors) {
      if (isObject(e) && isObject(e.extensions)) hints.push(e.extensions.retryAfter, e.extensions.retry_after);
    }
  }
  return hints.filter((h) => h !== undefined);
}
