// `numintel cache …` at work on the persistent lookup cache (src/store). Every entry of every
// service is counted and pruned; freshness is judged by max-age (--max-age, the config's max-age,
// else the defaults).
import { rmSync, statSync } from 'node:fs';
import { UsageError } from '../core/errors.js';
import { ioReason } from '../core/io-errors.js';
import type { LookupKind } from '../core/lookups.js';
import { defaultMaxAge, parseMaxAge, type MaxAge } from '../settings/max-age.js';
import { cacheDir, configFilePath } from '../settings/user-dirs.js';
import { effectiveValues, loadConfig } from '../settings/config-file.js';
import { chooseProfile, requireProfile } from '../settings/resolve.js';
import { cacheFilePath, lockFilePath } from '../store/cache-files.js';
import { checkedFilePath } from '../store/lmdb-file.js';
import type { LmdbAnswerStore } from '../store/lmdb-store.js';
import type { FiguresFormat } from './figures.js';
import { statsFigures, statsJson } from './cache-stats.js';
import type { World } from './world.js';

/** How fresh an entry must be: --max-age, else the --profile's max-age. */
export interface CacheFreshnessOptions {
  readonly maxAge?: string;
  readonly profile?: string;
}

export interface CacheStatsOptions extends CacheFreshnessOptions {
  /** undefined = a table on a terminal, else text. */
  readonly format?: FiguresFormat;
}

export interface CacheClearOptions {
  /** Only this lookup's entries; undefined = the whole cache. */
  readonly lookup?: LookupKind;
}

// The report helpers (and cli-table3) load when a cache command runs, not with every command.
const figures = () => import('./figures.js');

export async function runCacheStats(opts: CacheStatsOptions, world: World): Promise<void> {
  const store = await open(world, await maxAgeOf(opts, world), true);
  const stats = await store.stats();
  await store.close();
  const f = await figures();
  const format = f.figuresFormat(opts.format, world.stdout);
  if (format === 'json') out(world, `${JSON.stringify(statsJson(stats), null, 2)}\n`);
  else out(world, f.renderFigures(statsFigures(stats, f), format));
}

export async function runCachePrune(opts: CacheFreshnessOptions, world: World): Promise<void> {
  const maxAge = await maxAgeOf(opts, world);
  const path = cachePath(world);
  if (!cacheExists(path)) return nothingTo(world, 'prune', path);
  const store = await open(world, maxAge, false);
  const { removed, left } = await store.prune();
  await store.close();
  const { count } = await figures();
  out(world, `removed ${count(removed)} expired ${removed === 1 ? 'entry' : 'entries'}; ${count(left)} left\n`);
}

export async function runCacheClear(opts: CacheClearOptions, world: World): Promise<void> {
  const kind = opts.lookup;
  const path = cachePath(world);
  if (!cacheExists(path)) return nothingTo(world, 'clear', path);
  // Without --lookup a damaged cache is removed whole; one lookup's entries need it readable.
  const store = await open(world, defaultMaxAge(), kind === undefined, kind === undefined);
  const failure = store.failure;
  if (kind !== undefined) {
    const removed = await store.clear(kind);
    await store.close();
    const { count } = await figures();
    out(world, `removed ${count(removed)} ${kind} ${removed === 1 ? 'entry' : 'entries'} from ${path}\n`);
    return;
  }
  // LMDB never gives a file's pages back to the disk, so clearing all removes the files. A
  // process that has them open keeps its own (unlinked) copy; the next run starts a new one.
  const removed = failure ? 0 : (await store.stats()).entries;
  await store.close();
  for (const file of [path, lockFilePath(path), checkedFilePath(path)]) {
    try {
      rmSync(file, { force: true });
    } catch (err) {
      // NUMINTEL_CACHE_DIR naming a file, a directory nobody may write: the user's to fix.
      throw new UsageError(`cannot remove ${file}: ${ioReason(err)}`, 'the cache is in NUMINTEL_CACHE_DIR, else $XDG_CACHE_HOME/numintel, else ~/.cache/numintel');
    }
  }
  const { count } = await figures();
  out(world, failure ? `removed the cache ${path}, which could not be used (${failure.reason})\n` : `removed ${count(removed)} ${removed === 1 ? 'entry' : 'entries'} from ${path}\n`);
}

export function runCachePath(world: World): void {
  out(world, `${cachePath(world)}\n`);
}

const out = (world: World, text: string) => void world.stdout.write(text);
const cachePath = (world: World) => cacheFilePath(cacheDir(world.env, world.home));
const nothingTo = (world: World, verb: string, path: string) => out(world, `nothing to ${verb}: there is no cache at ${path} yet\n`);

/** --max-age, else the profile's max-age (or the one it inherits from default), else the defaults. */
async function maxAgeOf(opts: CacheFreshnessOptions, world: World): Promise<MaxAge> {
  if (opts.maxAge !== undefined) return parseMaxAge(opts.maxAge, '--max-age');
  const profile = chooseProfile(opts.profile, world.env);
  const configPath = configFilePath(world.env, world.home);
  const config = await loadConfig(configPath);
  requireProfile(config, profile, configPath);
  const { values, from } = effectiveValues(config, profile.name);
  const stored = values['max-age'];
  return stored === undefined ? defaultMaxAge() : parseMaxAge(String(stored), `profile ${from['max-age']} of the config file`);
}

/**
 * False only when the cache file is plainly not there yet (ENOENT): then clear and prune have
 * nothing to do and must not create it. Any other failure (a file in the directory's place:
 * ENOTDIR, which `throwIfNoEntry: false` also hides on newer Nodes) is left to the command,
 * which reports it.
 */
function cacheExists(path: string): boolean {
  try {
    statSync(path);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code !== 'ENOENT';
  }
}

/**
 * `maxAge` only matters to commands that judge freshness (stats, prune); clear needs none. A
 * cache that cannot be used fails the command with one line (a run goes on without it, but a
 * command about the cache has nothing else to do), unless `whatever` (clear, which removes it).
 */
async function open(world: World, maxAge: MaxAge, readOnly: boolean, whatever = false): Promise<LmdbAnswerStore> {
  // The database (a native module) loads only when a cache command runs.
  const { LmdbAnswerStore } = await import('../store/lmdb-store.js');
  // A failure later on (a write refused) still warns; one at opening is dealt with here.
  let opened = false;
  const store = await LmdbAnswerStore.open({
    dir: cacheDir(world.env, world.home),
    service: '',
    clock: world.clock,
    maxAge,
    readOnly,
    warn: (m) => opened && void world.stderr.write(`numintel: warning: ${m}\n`),
    ...(world.processes ? { processes: world.processes } : {}),
  });
  opened = true;
  if (store.failure && !whatever) {
    await store.close();
    throw new UsageError(`the lookup cache cannot be used (${store.failure.reason}): ${store.failure.remedy}`);
  }
  return store;
}
