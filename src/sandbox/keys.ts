// The accepted API keys and what each has used: its rate windows and its billed lookups.
import type { LookupKind } from '../core/lookups.js';
import { maskSecret } from '../core/secret.js';
import { newWindow, type RateWindow } from './rate-window.js';

export interface KeyState {
  /** The key as stats and logs show it: masked, plus a number when two keys mask alike. */
  readonly label: string;
  /** Its window per lookup, made at the lookup's first request. */
  readonly windows: Partial<Record<LookupKind, RateWindow>>;
  /** Its window per bulk endpoint, made at the endpoint's first request. */
  readonly bulkWindows: Partial<Record<LookupKind, RateWindow>>;
  /** The window every lookup counts in when the limit is shared (sandbox --shared-limit). */
  readonly shared: RateWindow;
  /** Per endpoint: the last hinted 429's hold (when the first of its run left, and until when). */
  readonly holds: Partial<Record<string, { from: number; until: number }>>;
  billed: number;
}

export class KeyRing {
  private readonly keys = new Map<string, KeyState>();
  private readonly revoked = new Set<string>();

  constructor(keys: readonly string[]) {
    this.replace(keys);
  }

  /** Sets the accepted keys; keys that stay keep their windows and usage. */
  replace(keys: readonly string[]): void {
    const old = new Map(this.keys);
    this.keys.clear();
    const labels = new Set<string>();
    for (const key of keys) {
      const kept = old.get(key);
      let label = kept?.label ?? maskSecret(key);
      for (let n = 2; labels.has(label); n++) label = `${maskSecret(key)} #${n}`;
      labels.add(label);
      this.keys.set(key, kept ?? { label, windows: {}, bulkWindows: {}, shared: newWindow(), holds: {}, billed: 0 });
    }
  }

  /** The key's state, or undefined when it is unknown or revoked. */
  find(key: string): KeyState | undefined {
    return this.revoked.has(key) ? undefined : this.keys.get(key);
  }

  revoke(key: string): boolean {
    this.revoked.add(key);
    return this.keys.has(key);
  }

  /** Forgets usage (windows and billing), as POST /__sandbox/reset does. */
  resetUsage(): void {
    for (const state of this.keys.values()) {
      state.billed = 0;
      for (const w of [...Object.values(state.windows), ...Object.values(state.bulkWindows), state.shared]) if (w) w.count = 0;
    }
  }
}

/** The key of an `Authorization: Bearer <key>` header, or undefined when malformed/missing. */
export function bearerKey(header: string | undefined): string | undefined {
  if (header === undefined || header.length < 8) return undefined;
  if (header.charCodeAt(6) !== 32 || header.slice(0, 6).toLowerCase() !== 'bearer') return undefined;
  const key = header.slice(7).trim();
  return key === '' || key.includes(' ') ? undefined : key;
}
