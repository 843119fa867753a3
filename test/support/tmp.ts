// Temporary directories and files for tests: each directory is removed when its test (useTempDirs)
// or its test file (tempDir) is done, so no test leaves anything behind or sees another's files.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterThisFile, afterThisTest } from './cleanup.js';
import { until } from './until.js';

/** A fresh temporary directory, removed after the current test file. */
export function tempDir(prefix = 'numintel-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  afterThisFile(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** A maker of fresh temporary directories, each removed after the test that made it. */
export function useTempDirs(prefix = 'numintel-'): () => Promise<string> {
  return async () => {
    const dir = await mkdtemp(join(tmpdir(), prefix));
    afterThisTest(() => rm(dir, { recursive: true, force: true }));
    return dir;
  };
}

/** Writes `lines` (one a line, newline-terminated) to `dir/name`; returns the path. */
export function writeList(dir: string, name: string, lines: readonly string[]): string {
  const path = join(dir, name);
  writeFileSync(path, `${lines.join('\n')}\n`);
  return path;
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Waits (bounded) until the file at `path` holds at least `lines` newline characters. */
export async function waitForLines(path: string, lines: number, timeoutMs = 10_000): Promise<void> {
  await until(`${path} to reach ${lines} lines`, () => (existsSync(path) ? readFileSync(path, 'utf8') : '').split('\n').length > lines, timeoutMs, 20);
}
