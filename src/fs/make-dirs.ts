// mkdir -p, one level at a time. Node's own `mkdir(…, { recursive: true })` never returns where
// mkdir answers ENOENT for a parent that exists (under /proc, for one): it retries forever on a
// libuv thread, and the process hangs. Here each missing level is made once; any refusal is an error.
import { mkdirSync, statSync } from 'node:fs';
import { dirname } from 'node:path';

/** Creates `dir` and its missing parents with `mode`; throws the first refusal (ENOENT, EACCES, ENOTDIR…). */
export function makeDirs(dir: string, mode = 0o700): void {
  const missing: string[] = [];
  for (let d = dir; ; d = dirname(d)) {
    try {
      if (statSync(d).isDirectory()) break;
      throw Object.assign(new Error(`ENOTDIR: not a directory, mkdir '${d}'`), { code: 'ENOTDIR', path: d });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
    missing.push(d);
    if (dirname(d) === d) break;
  }
  for (const d of missing.reverse()) {
    try {
      mkdirSync(d, { mode });
    } catch (err) {
      // Another process made it in the meantime: that is what we wanted.
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
  }
}
