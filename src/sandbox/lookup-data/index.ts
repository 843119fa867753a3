// The sandbox's data per lookup, by name: one entry per lookup (its descriptor says the rest), so
// a lookup added with registerLookup needs one registerSandboxData beside it.
import type { LookupKind } from '../../core/lookups.js';
import { cnamData } from './cnam.js';
import type { SandboxLookupData } from './entry.js';
import { lrnData } from './lrn.js';
import { trustData } from './trust.js';

export type { SandboxLookupData } from './entry.js';

const DATA = new Map<string, SandboxLookupData>([lrnData, cnamData, trustData].map((e) => [e.kind, e]));

/** Adds a lookup's sandbox data; its name must be new. */
export function registerSandboxData(entry: SandboxLookupData): void {
  if (DATA.has(entry.kind)) throw new TypeError(`sandbox data for ${JSON.stringify(entry.kind)} is already registered`);
  DATA.set(entry.kind, entry);
}

export function sandboxData(kind: LookupKind): SandboxLookupData {
  const entry = DATA.get(kind);
  if (!entry) throw new TypeError(`the sandbox has no data for the lookup ${JSON.stringify(kind)}: registerSandboxData it`);
  return entry;
}
