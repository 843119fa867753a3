// Small fetch wrappers for talking to a sandbox under test (started by test/support/sandbox.ts).
import type { Sandbox } from '../../src/sandbox/index.js';

export interface Reply {
  status: number;
  headers: Headers;
  text: string;
  json: any; // oxlint-disable-line typescript/no-explicit-any
}

export interface PostOptions {
  key?: string | null;
  headers?: Record<string, string>;
  method?: string;
  raw?: string;
}

export async function post(sb: Sandbox, path: string, body: unknown = {}, opts: PostOptions = {}): Promise<Reply> {
  const headers: Record<string, string> = { 'content-type': 'application/json', ...opts.headers };
  const key = opts.key === undefined ? sb.apiKey : opts.key;
  if (key !== null) headers.authorization = `Bearer ${key}`;
  const res = await fetch(`${sb.url}${path}`, {
    method: opts.method ?? 'POST',
    headers,
    body: opts.method === 'GET' ? undefined : (opts.raw ?? JSON.stringify(body)),
  });
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, text, json };
}

export const lrn = (sb: Sandbox, body: Record<string, unknown>, opts?: PostOptions) => post(sb, '/api/v1/lrn', body, opts);
export const cnam = (sb: Sandbox, body: Record<string, unknown>, opts?: PostOptions) => post(sb, '/api/v1/cnam', body, opts);
export const trust = (sb: Sandbox, body: Record<string, unknown>, opts?: PostOptions) => post(sb, '/api/v1/trust', body, opts);
export const gql = (sb: Sandbox, query: string, variables?: Record<string, unknown>, opts?: PostOptions) =>
  post(sb, '/graphql', variables ? { query, variables } : { query }, opts);
export const lrnBulk = (sb: Sandbox, body: Record<string, unknown>, opts?: PostOptions) => post(sb, '/api/v1/lrn/bulk', body, opts);
export const cnamBulk = (sb: Sandbox, body: Record<string, unknown>, opts?: PostOptions) => post(sb, '/api/v1/cnam/bulk', body, opts);
