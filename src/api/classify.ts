// The classification shared by every envelope style and both transports: the HTTP status decides
// first (401/403/402/429/408/5xx), then the envelope reads the body, then whatever nobody
// recognised becomes a clear per-number error. Pure: no I/O, no clock beyond `ctx.now`.
import type { LookupDescriptor, LookupOptions } from '../core/lookups.js';
import type { Attempt, RateInfo } from '../core/transport.js';
import { CLI_ADVICE, type Advice } from '../core/advice.js';
import { isObject, type JsonObject } from '../core/json.js';
import { bodyMessage, bodyRetrySeconds, errorMessages, excerpt, looksLikeInvalidNumber, oneLine, parseJson } from './body.js';
import { header, parseRateInfo, rateFields, waitHintMs, type HeaderBag } from './rate-headers.js';
import { reportsInvalidNumber, shapeResult, type Naming } from './result-shape.js';
import { isTransient, type LookupErrorCode } from '../core/records.js';
import { bodyCodeClass } from './service-codes.js';

export interface RawResponse {
  readonly status: number;
  readonly headers: HeaderBag;
  readonly text: string;
}

export interface ClassifyContext {
  /** Epoch ms, for Reset timestamps and HTTP dates. */
  readonly now: number;
  /** The API key, so no quoted body can carry it into a message. */
  readonly secret?: string | undefined;
  /** The user's names for the settings a message tells them to change. Default: the command line's. */
  readonly advice?: Advice | undefined;
  /** The number asked (as sent): a result that echoes another number is not its answer. */
  readonly number?: string | undefined;
}

/** A body as read once: every envelope and every message works from this. */
export interface Reading {
  readonly raw: RawResponse;
  readonly json: unknown;
  /** The rate fields of the headers (see rateFields), and the budget they report. */
  readonly rateFields: HeaderBag | undefined;
  readonly rate: RateInfo | undefined;
  readonly ctx: ClassifyContext;
  /** The service's words about an error, else a short excerpt of the body, else undefined. */
  readonly words: string | undefined;
}

type FailureCode = Exclude<LookupErrorCode, 'network_error' | 'not_attempted'>;

/** What an envelope made of a body. */
export type Verdict =
  /** `words`: errors sent beside the data (CNAM `errors`, GraphQL partial errors). */
  | { readonly kind: 'ok'; readonly source: JsonObject; readonly naming: Naming; readonly words?: string | undefined }
  | { readonly kind: 'fail'; readonly code: FailureCode; readonly words?: string | undefined };

/** Reads an envelope's body; undefined when the body is not in its shape at all. */
export type EnvelopeReader = (json: unknown, r: Reading) => Verdict | undefined;

class BodyReading implements Reading {
  readonly json: unknown;
  readonly rateFields: HeaderBag | undefined;
  readonly rate: RateInfo | undefined;
  #words: string | undefined | null = null;

  constructor(
    readonly raw: RawResponse,
    readonly ctx: ClassifyContext,
  ) {
    this.json = parseJson(raw.text);
    this.rateFields = rateFields(raw.headers);
    this.rate = parseRateInfo(this.rateFields, ctx.now);
  }

  /** Worked out when asked: only failures quote the body, so an answer that is fine never pays for it. */
  get words(): string | undefined {
    if (this.#words === null) {
      this.#words = bodyMessage(this.json, this.ctx.secret) ?? (this.raw.text.trim() === '' ? undefined : excerpt(this.raw.text, this.ctx.secret));
    }
    return this.#words;
  }
}

const read = (raw: RawResponse, ctx: ClassifyContext): Reading => new BodyReading(raw, ctx);

const is2xx = (status: number) => status >= 200 && status < 300;
/** The statuses a service uses for "your input is wrong". */
const isInputStatus = (status: number) => status === 400 || status === 422;

/** The statuses that decide the class whatever the body says. */
function statusCode(status: number): FailureCode | undefined {
  if (status === 401 || status === 403) return 'unauthorized';
  if (status === 402) return 'payment_required';
  if (status === 429) return 'rate_limited';
  if (status === 408 || status === 504) return 'timeout';
  // 501 and 505 say the request can never work: retrying would only bill and wait.
  if (status >= 500 && status <= 599 && status !== 501 && status !== 505) return 'server_error';
  return undefined;
}

/** An error body the service sent about a request: about the number, or about something else. */
export function refusal(words: string | undefined, r: Reading, assumeInvalid = false): Verdict {
  return { kind: 'fail', code: refusalCode(words, r, assumeInvalid), words };
}

function refusalCode(words: string | undefined, r: Reading, assumeInvalid = false): FailureCode {
  return assumeInvalid || isInputStatus(r.raw.status) || looksLikeInvalidNumber(words) ? 'invalid_number' : 'http_error';
}

const fmtWait = (ms: number) => (ms < 1000 ? `${Math.round(ms)}ms` : `${Math.round(ms / 100) / 10}s`);

function message(code: FailureCode, r: Reading, words: string | undefined, waitMs?: number): string {
  const status = r.raw.status;
  const said = `HTTP ${status}${words ? `: ${words}` : ''}`;
  const advice = r.ctx.advice ?? CLI_ADVICE;
  switch (code) {
    case 'unauthorized':
      return `the service refused the API key (${said}); check ${advice.apiKey}`;
    case 'payment_required':
      return `payment required (${said}); fund the account's wallet or upgrade the plan, then run again`;
    case 'rate_limited':
      return `rate limited (${said}); ${waitMs === undefined ? 'no wait hint given' : `the service asks to wait ${fmtWait(waitMs)}`}`;
    case 'timeout':
      return `the service timed out (${said}); try again later or raise ${advice.timeout}`;
    case 'server_error':
      return `server error (${said}); try again later`;
    case 'invalid_number':
      return words ?? `the service refused the number as invalid (HTTP ${status})`;
    case 'http_error':
      if (status >= 300 && status < 400) {
        const to = header(r.raw.headers, 'location');
        return `the service redirected (HTTP ${status}${to ? ` to ${excerpt(to, r.ctx.secret)}` : ''}); check the base URL`;
      }
      return `the service refused the request (${said})`;
    case 'bad_response':
      return `unreadable response (${said})`;
  }
}

/** Builds the Attempt for a failure: the code decides the class. */
function failure(code: FailureCode, r: Reading, words: string | undefined): Attempt {
  const status = r.raw.status;
  const rate = r.rate ? { rate: r.rate } : {};
  if (isTransient(code)) {
    const rateLimited = code === 'rate_limited';
    const waitMs = waitHintMs({ headers: r.raw.headers, fields: r.rateFields, now: r.ctx.now, bodySeconds: bodyRetrySeconds(r.json), rateLimited });
    const error = { code, message: message(code, r, words, waitMs), status };
    return { kind: 'retry', error, rateLimited, ...(waitMs === undefined ? {} : { waitMs }), ...rate };
  }
  const error = { code, message: message(code, r, words), status };
  if (code === 'unauthorized' || code === 'payment_required') return { kind: 'fatal', error, ...rate };
  if (code === 'invalid_number') return { kind: 'invalid', error, ...rate };
  return { kind: 'error', error, ...rate };
}

/**
 * The messages of a body's `errors` list (the real service's format A, `{"data","errors":[…]}`,
 * which it uses on trust too), or undefined when it has none.
 */
function errorsListed(r: Reading): string | undefined {
  const listed = isObject(r.json) ? errorMessages(r.json.errors) : [];
  return listed.length > 0 ? oneLine(listed.join('; '), r.ctx.secret) : undefined;
}

/** A 2xx body that is only an error (`{error}`, `{errors:[…]}` without data, `success:false`): the service's words, else undefined. */
function errorOnly(r: Reading): string | undefined {
  const json = r.json;
  if (!isObject(json) || isObject(json.data)) return undefined;
  const says = json.success === false || (typeof json.error === 'string' && json.error.trim() !== '') || isObject(json.error) || errorsListed(r) !== undefined;
  return says ? r.words : undefined;
}

/** What nobody recognised: a per-number error that quotes the body. */
function unrecognised(r: Reading): Attempt {
  const status = r.raw.status;
  // An error body in another endpoint's style is still the service refusing, not an unreadable answer.
  const said = is2xx(status) ? errorOnly(r) : undefined;
  if (said !== undefined) return failure(refusalCode(said, r), r, said);
  if (is2xx(status)) {
    const what = r.json === undefined ? 'expected JSON, got' : 'unexpected JSON shape';
    return failure('bad_response', r, `${what} ${excerpt(r.raw.text, r.ctx.secret)}`);
  }
  return failure(isInputStatus(status) && looksLikeInvalidNumber(r.words) ? 'invalid_number' : 'http_error', r, r.words);
}

/** Status first, then the envelope, then the fallback. */
export function classifyWith(
  d: LookupDescriptor,
  opts: LookupOptions,
  raw: RawResponse,
  ctx: ClassifyContext,
  envelope: EnvelopeReader,
): Attempt {
  const r = read(raw, ctx);
  const byStatus = statusCode(raw.status);
  if (byStatus) return failure(byStatus, r, r.words);
  // A documented code in an error body decides next, on any endpoint and with any status: a
  // gateway may turn the service's 429 or 503 into a 200 or a 400, but the body still says it.
  const byCode = bodyCodeClass(r.json);
  if (byCode) return failure(byCode, r, r.words);
  const verdict = envelope(r.json, r);
  if (verdict === undefined) return unrecognised(r);
  if (verdict.kind === 'fail') return failure(verdict.code, r, verdict.words);
  // CNAM's invalid-number case is a well-formed result, with any status: the envelope decides.
  if (reportsInvalidNumber(d, verdict.source, verdict.naming)) {
    return failure('invalid_number', r, verdict.words ?? 'the service reports INVALID_NUMBER for this number');
  }
  if (!is2xx(raw.status)) return unrecognised(r);
  const shaped = shapeResult(d, opts, verdict.source, verdict.naming);
  if ('missing' in shaped) {
    // Format A: errors beside an incomplete result are why it is incomplete.
    const said = verdict.words ?? errorsListed(r);
    if (said !== undefined) return failure(refusalCode(said, r), r, said);
    return failure('bad_response', r, `the result lacks ${shaped.missing.join(', ')}: ${excerpt(raw.text, ctx.secret)}`);
  }
  if ('wrong' in shaped) {
    return failure('bad_response', r, `the result has ${shaped.wrong.join(', ')} of the wrong type: ${excerpt(raw.text, ctx.secret)}`);
  }
  const other = ctx.number === undefined ? undefined : echoOfAnother(d, shaped.result, ctx.number);
  if (other !== undefined) {
    // An answer meant for another request (a desynchronised connection): never this number's.
    return failure('bad_response', r, `the answer names another number (${oneLine(other, ctx.secret, 40)}) than the one asked (${ctx.number})`);
  }
  return { kind: 'ok', result: shaped.result, ...(r.rate ? { rate: r.rate } : {}) };
}

/** The echoed number of a result when it is not `asked` (compared as 11 digits); else undefined. */
export function echoOfAnother(d: LookupDescriptor, result: Readonly<Record<string, unknown>>, asked: string): string | undefined {
  for (const f of d.fields) {
    if (!f.echo) continue;
    const echoed = result[f.name];
    if (typeof echoed !== 'string' || !/\d/.test(echoed)) continue;
    if (elevenDigits(echoed) !== elevenDigits(asked)) return echoed;
  }
  return undefined;
}

/** A number as 11 digits, whatever its punctuation (a 10-digit one gets its leading 1). */
export const elevenDigits = (s: string): string => {
  const digits = s.replace(/\D/g, '');
  return digits.length === 10 ? `1${digits}` : digits;
};

/** A body over the size cap: never parsed; the status still decides, else `bad_response`. */
export function oversize(status: number, headers: HeaderBag, limitBytes: number, ctx: ClassifyContext): Attempt {
  const r = read({ status, headers, text: '' }, ctx);
  const words = `the body exceeds ${limitBytes} bytes (maxResponseBytes)`;
  // A 429 or a 503 stays what it is, however big the proxy's error page.
  return failure(statusCode(status) ?? 'bad_response', r, words);
}
