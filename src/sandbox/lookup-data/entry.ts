// What the sandbox knows of one lookup beyond its descriptor: how it makes up an answer.
import type { LookupKind, LookupOptions } from '../../core/lookups.js';
import type { Subject } from '../data.js';

export interface SandboxLookupData {
  readonly kind: LookupKind;
  /** The result (REST field names, no envelope) for an accepted number, a pure function of it. */
  result(s: Subject, opts: LookupOptions): Record<string, unknown>;
  /** With --error-style vri: the real service's values where they differ from the description's. */
  realService?(result: Record<string, unknown>): Record<string, unknown>;
}
