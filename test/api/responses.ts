// Building responses and checking attempts, for the classification tables.
import { expect } from 'vitest';
import type { RawResponse } from '../../src/api/classify.js';
import type { Attempt } from '../../src/core/transport.js';

export type Headers = Record<string, string | string[]>;

export const res = (status: number, body: unknown, headers: Headers = {}): RawResponse => ({
  status,
  headers,
  text: typeof body === 'string' ? body : JSON.stringify(body),
});

/** What a table row expects; only the keys given are checked. */
export interface Expect {
  kind: Attempt['kind'];
  code?: string;
  status?: number;
  /** Substrings the message must contain. */
  says?: string[];
  waitMs?: number | null;
  result?: Record<string, unknown>;
}

export function check(a: Attempt, e: Expect): void {
  expect(a.kind).toBe(e.kind);
  if (a.kind === 'ok') {
    if (e.result) expect(a.result).toEqual(e.result);
    return;
  }
  if (e.code) expect(a.error.code).toBe(e.code);
  if (e.status !== undefined) expect(a.error.status).toBe(e.status);
  for (const s of e.says ?? []) expect(a.error.message).toContain(s);
  // One line a person can act on.
  expect(a.error.message).not.toMatch(/[\r\n]/);
  expect(a.error.message.length).toBeLessThan(400);
  if (e.waitMs !== undefined) {
    expect(a.kind).toBe('retry');
    if (a.kind === 'retry') expect(a.waitMs).toBe(e.waitMs === null ? undefined : e.waitMs);
  }
}
