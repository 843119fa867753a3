// `--report <file.html>` of the lookup commands, kept apart so run-lookups.ts only calls it.
import { basename, resolve } from 'node:path';
import { reportObserver, type ReportObserver } from '../report/observer.js';
import type { World } from './world.js';
import type { Prices } from '../settings/prices.js';
import type { LookupKind } from '../core/lookups.js';

/** `prices`: --price or config price.<lookup>, so the page shows what the run cost. */
export function reportHook(path: string, input: string | undefined, world: World, lookups: readonly LookupKind[], prices?: Prices): ReportObserver {
  const name = input === undefined || input === '-' ? undefined : basename(input);
  return reportObserver(resolve(world.cwd, path), path, world.clock.now(), name, lookups, prices);
}
