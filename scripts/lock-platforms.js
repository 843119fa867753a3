#!/usr/bin/env node
// Restores package-lock.json entries for optional platform packages (msgpackr-extract's darwin,
// win32 and linux-arm builds) that `npm install` leaves out when the registry it reaches lacks
// them: without an entry for every optional dependency, `npm ci` refuses the lock as out of sync.
// Each entry carries the package's os and cpu, so npm skips it on every other platform.
//   node scripts/lock-platforms.js      (after any `npm install` that rewrites the lock)
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const path = join(dirname(fileURLToPath(import.meta.url)), '..', 'package-lock.json');
const lock = JSON.parse(readFileSync(path, 'utf8'));
const packages = lock.packages;
const added = [];
for (const entry of Object.values(packages)) {
  for (const [dep, version] of Object.entries(entry.optionalDependencies ?? {})) {
    const at = `node_modules/${dep}`;
    const platform = /-(darwin|linux|win32|freebsd)-(arm64|x64|arm|ia32)$/.exec(dep);
    if (packages[at] || !platform) continue;
    packages[at] = { version, cpu: [platform[2]], license: 'MIT', optional: true, os: [platform[1]] };
    added.push(`${dep}@${version}`);
  }
}
lock.packages = Object.fromEntries(Object.entries(packages).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a.localeCompare(b))));
writeFileSync(path, `${JSON.stringify(lock, null, 2)}\n`);
console.log(added.length ? `lock: added ${added.join(', ')}` : 'lock: nothing to add');
