// The e2e suites' outside view of the service: its REST answers fetched directly, written from the
// service description (not from numintel's code), every lookup command with every combination of
// its options, and how a result flattens to CSV by the contract's rules. The shared helpers (the
// CLI, the sandbox, temporary files) are in test/support/.
import { sandboxFetch, type Kind, type SandboxLike } from '../support/sandbox.js';

/**
 * The service's result for one number straight from its REST API, envelope removed, written from
 * the service description (not from numintel's code) so the CLI is compared with an outside view.
 */
export async function restResult(
  sb: SandboxLike,
  kind: Kind,
  number: string,
  opts: { enhanced?: boolean; messaging?: boolean; spam?: boolean } = {},
): Promise<Record<string, unknown>> {
  const body: Record<string, unknown> = { phone_number: number };
  if (opts.enhanced) body.include_enhanced_lrn = true;
  if (opts.messaging) body.messaging_lookup = true;
  if (opts.spam) body.include_spam = true;
  const res = await sandboxFetch(sb, `/api/v1/${kind}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${sb.apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const json = (await res.json()) as Record<string, unknown>;
  if (res.status !== 200) throw new Error(`direct ${kind} lookup of ${number}: HTTP ${res.status} ${JSON.stringify(json)}`);
  return kind === 'lrn' ? json : (json.data as Record<string, unknown>);
}

export interface LookupCase {
  kind: Kind;
  flags: string[];
  opts: { enhanced?: boolean; messaging?: boolean; spam?: boolean };
}

/** Every lookup command with every combination of its options. */
export const LOOKUP_CASES: LookupCase[] = [
  { kind: 'lrn', flags: [], opts: {} },
  { kind: 'lrn', flags: ['--enhanced'], opts: { enhanced: true } },
  { kind: 'lrn', flags: ['--messaging'], opts: { messaging: true } },
  { kind: 'lrn', flags: ['--enhanced', '--messaging'], opts: { enhanced: true, messaging: true } },
  { kind: 'cnam', flags: [], opts: {} },
  { kind: 'cnam', flags: ['--spam'], opts: { spam: true } },
  { kind: 'trust', flags: [], opts: {} },
];

/** The CSV columns and cells a REST result flattens to, by the contract's rules (not numintel's code). */
export function flattenResult(kind: Kind, result: Record<string, unknown>): Record<string, string> {
  const out: Record<string, string> = {};
  const put = (name: string, v: unknown) => (out[name] = v === null || v === undefined ? '' : String(v));
  for (const [k, v] of Object.entries(result)) {
    if (k === 'enhanced_lrn_data') for (const [sk, sv] of Object.entries(v as object)) put(sk, sv);
    else if (k === 'messaging') for (const [sk, sv] of Object.entries(v as object)) put(`messaging_${sk}`, sv);
    // CNAM's own `number` would collide with the added `number` column.
    else put(kind === 'cnam' && k === 'number' ? 'cnam_number' : k, v);
  }
  return out;
}
