// What the launcher (bin/numintel.js) learns from the run for its V8 code cache: a run that sent a
// request compiled the HTTP client and the reading of answers, which a run answered from the lookup
// cache never did, so its code cache is the one worth keeping.

export function noteRequestSent(): void {
  (globalThis as Record<symbol, unknown>)[Symbol.for('numintel.sentRequest')] = true;
}
