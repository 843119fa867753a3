// --verbose lines: one per request, one per response. The key shows only masked, and every line
// goes through `oneLine` (which redacts) as well, in case a server echoes it back.
import { maskSecret } from '../core/secret.js';
import type { Attempt, RateInfo } from '../core/transport.js';
import { oneLine } from './body.js';

export type TraceSink = (line: string) => void;

const MAX_LINE = 300;

export function requestLine(href: string, label: string | undefined, payload: unknown, secret: string | undefined): string {
  const auth = secret ? `authorization: Bearer ${maskSecret(secret)}` : 'no authorization';
  const tag = label ? ` [${label}]` : '';
  return oneLine(`→ POST ${href}${tag} ${JSON.stringify(payload)} (${auth})`, secret, MAX_LINE);
}

function rateText(rate: RateInfo | undefined, now: number): string {
  if (!rate) return '';
  const parts: string[] = [];
  if (rate.remaining !== undefined) parts.push(`remaining=${rate.remaining}`);
  if (rate.limit !== undefined) parts.push(`limit=${rate.limit}`);
  if (rate.resetAt !== undefined) parts.push(`reset=${Math.max(0, Math.round((rate.resetAt - now) / 1000))}s`);
  return parts.length ? ` ${parts.join(' ')}` : '';
}

function outcomeText(a: Attempt): string {
  if (a.kind === 'ok') return '';
  const wait = a.kind === 'retry' && a.waitMs !== undefined ? ` wait=${Math.round(a.waitMs)}ms` : '';
  return ` ${a.kind} ${a.error.code}${wait}`;
}

export interface ResponseTrace {
  readonly status: number | undefined;
  readonly path: string;
  readonly label: string | undefined;
  readonly elapsedMs: number;
  readonly now: number;
  readonly attempt: Attempt;
}

/** `← 200 /api/v1/lrn 3ms remaining=199`; failures on the wire show `✗` and the message. */
export function responseLine(t: ResponseTrace, secret: string | undefined): string {
  const tag = t.label ? ` [${t.label}]` : '';
  const head = `← ${t.status ?? '✗'} ${t.path}${tag} ${Math.round(t.elapsedMs)}ms`;
  const tail = t.status === undefined && t.attempt.kind !== 'ok' ? `: ${t.attempt.error.message}` : '';
  return oneLine(`${head}${rateText(t.attempt.rate, t.now)}${outcomeText(t.attempt)}${tail}`, secret, MAX_LINE);
}
