// Waiting (bounded) for something a test cannot await directly: a line on a child's stderr, a file
// growing. On the monotonic clock, and `test` is tried once more after the deadline: a wait that
// checked before its last sleep and then gave up took one long stall of a loaded machine (or a
// step of its wall clock) for a timeout.
import { setTimeout as sleep } from 'node:timers/promises';

/** Resolves once `test` holds; rejects, naming `what`, when it still does not after `timeoutMs`. */
export async function until(what: string, test: () => boolean | Promise<boolean>, timeoutMs = 10_000, stepMs = 10): Promise<void> {
  const end = performance.now() + timeoutMs;
  for (;;) {
    if (await test()) return;
    if (performance.now() >= end) throw new Error(`timed out waiting for ${what}`);
    await sleep(stepMs);
  }
}
