// The answer store of one lookup command, as its flags and settings say: the persistent cache for
// a run against a real service, nothing for --no-cache or the in-process --sandbox (whose made-up
// answers must never reach the cache a real run reads). Its one warning goes to stderr.
import type { Settings } from '../settings/resolve.js';
import { NO_STORE, type AnswerStore } from '../store/answer-store.js';
import { openAnswerStore, type CacheMode } from '../store/open.js';
import type { RunRequest } from './run-request.js';
import type { World } from './world.js';

export interface RunStore {
  readonly store: AnswerStore;
  /** What the run does with the cache; `unavailable`: no base URL, or the cache cannot be used. */
  readonly cache: CacheMode | 'unavailable';
}

/** Never throws; `readOnly` for --dry-run (reads only, creates nothing). */
export async function openRunStore(
  req: Pick<RunRequest, 'sandbox' | 'cache'>,
  settings: Pick<Settings, 'baseUrl' | 'maxAge'>,
  world: Pick<World, 'env' | 'home' | 'clock' | 'stderr' | 'processes'>,
  opts: { readOnly?: boolean } = {},
): Promise<RunStore> {
  const mode: CacheMode = req.sandbox ? 'off' : req.cache;
  if (mode === 'off') return { store: NO_STORE, cache: 'off' };
  if (!settings.baseUrl) return { store: NO_STORE, cache: 'unavailable' };
  let broken = false;
  const store = await openAnswerStore({
    mode,
    env: world.env,
    home: world.home,
    baseUrl: settings.baseUrl,
    clock: world.clock,
    ...(world.processes ? { processes: world.processes } : {}),
    ...(settings.maxAge ? { maxAge: settings.maxAge } : {}),
    ...(opts.readOnly ? { readOnly: true } : {}),
    warn: (message) => {
      broken = true;
      world.stderr.write(`numintel: warning: ${message}\n`);
    },
  });
  return { store, cache: broken ? 'unavailable' : mode };
}
