// How the command-line bundle loads lmdb (the lookup cache's database). Every lookup run opens the
// cache, and loading lmdb from node_modules was most of a one-number run's start-up: its modules and
// their helpers (msgpackr, ordered-binary, the native binding's locator and its libc probe) resolved,
// read and compiled on every run. So the bundle carries lmdb's JavaScript, compiled with the rest
// of the program through the launcher's code cache, and loads only the native binding from disk.
//
// - The carried copy is used only when the installed lmdb is the version it was built from (its
//   JavaScript and its binding are one release); otherwise, or when the installed lmdb cannot be
//   found, the installed lmdb is loaded as usual.
// - The binding is found by lmdb's own locator (node-gyp-build-optional-packages, carried too),
//   pointed at the installed lmdb's directory, as lmdb itself would point it. Its search (package
//   files read, folders listed, the libc probe) was a millisecond of every run, so where it found
//   the binding is kept beside the launcher's code caches (lmdb-binding.json, for this lmdb
//   directory and version, Node ABI, platform and architecture) and loaded from there; a kept path
//   that no longer loads is searched for again and replaced.
// - The libc probe (detect-libc, which the locator asks glibc or musl) reads the first bytes of the
//   program's own file and closes it with an asynchronous close, which starts libuv's thread pool
//   (four threads, joined again at exit) for nothing: the carried copy closes it synchronously.
// - msgpackr's optional native string decoder (msgpackr-extract) is left out: it only speeds up
//   decoding long strings, and loading it is one more binary per run. The stored format is the
//   same with or without it.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const lmdbMain = join(root, 'node_modules', 'lmdb', 'dist', 'index.cjs');
const LMDB_VERSION = JSON.parse(readFileSync(join(root, 'node_modules', 'lmdb', 'package.json'), 'utf8')).version;
const INSIDE_LMDB = /[\\/]node_modules[\\/]lmdb[\\/]/;
const INSIDE_MSGPACKR = /[\\/]node_modules[\\/]msgpackr[\\/]/;
// lmdb, msgpackr and the binding's locator load node:module for its createRequire alone.
const ASKS_MODULE = /[\\/]node_modules[\\/](lmdb|msgpackr|node-gyp-build-optional-packages)[\\/]/;
const LIBC_PROBE_FILES = /[\\/]node_modules[\\/]detect-libc[\\/]lib[\\/]filesystem\.js$/;
const ASYNC_CLOSE = `  const bytesRead = fs.readSync(fd, buffer, 0, MAX_LENGTH, 0);
  fs.close(fd, () => {});`;

// `lmdb` as the program imports it: the carried copy when the installed lmdb matches it.
const entry = `
const { readFileSync, realpathSync } = require('node:fs');
const { join } = require('node:path');
const installed = require('lmdb/installed');
let carried = false;
// Where require('lmdb') would look, read directly: resolving it through lmdb's "exports" would load
// Node's ES module resolver into every run.
for (const modules of require.resolve.paths('lmdb') ?? []) {
  try {
    const version = JSON.parse(readFileSync(join(modules, 'lmdb', 'package.json'), 'utf8')).version;
    installed.dir = realpathSync(join(modules, 'lmdb'));
    carried = version === ${JSON.stringify(LMDB_VERSION)};
    break;
  } catch {
    // not here
  }
}
module.exports = carried && !process.env.NUMINTEL_INSTALLED_LMDB ? require('lmdb/carried') : require('lmdb');
`;

// The binding's locator as lmdb calls it, pointed at the installed lmdb rather than at the bundle,
// and what it found kept in the code cache directory the launcher names (none: no keeping).
const binding = `
const { readFileSync } = require('node:fs');
const { join } = require('node:path');
const { writeFileAtomically } = require(${JSON.stringify(join(root, 'src', 'fs', 'write-file-atomically.ts'))});
// The locator is loaded only to search: setting itself up runs the libc probe.
const locator = () => require('node-gyp-build-optional-packages');
module.exports = () => {
  const dir = require('lmdb/installed').dir;
  const cacheDir = globalThis[Symbol.for('numintel.codeCacheDir')];
  if (typeof cacheDir !== 'string') return locator()(dir);
  const kept = join(cacheDir, 'lmdb-binding.json');
  const key = [dir, ${JSON.stringify(LMDB_VERSION)}, process.versions.modules, process.platform, process.arch].join(' ');
  try {
    const known = JSON.parse(readFileSync(kept, 'utf8'));
    if (known.key === key && typeof known.path === 'string' && known.path.endsWith('.node')) return require(known.path);
  } catch {
    // none kept yet, or it no longer loads: search
  }
  const path = locator().resolve(dir);
  const found = require(path);
  try {
    writeFileAtomically(kept, JSON.stringify({ key, path }));
  } catch {
    // no cache directory yet (the launcher makes it at exit): kept by a later run
  }
  return found;
};
`;

// node:module for lmdb and its helpers, who ask it only for createRequire: the CommonJS loader's
// own (the class of the program's main module) when there is one. Loading node:module pulls parts
// of the ES module loader in, a third of a millisecond of every run that opens the cache.
const loaderModule = `
const Module = require.main && require.main.constructor;
module.exports = Module && typeof Module.createRequire === 'function' ? { createRequire: Module.createRequire } : require('node:module');
`;

// src/store/lmdb-module.ts as the bundle has it: lmdb required when first asked for (the require
// becomes a call into the bundle, which runs lmdb's carried modules then).
const lmdbModule = `let lmdb;
exports.loadLmdb = () => (lmdb ??= require('lmdb'));`;

export const lmdbEsbuildPlugin = {
  name: 'carried-lmdb',
  setup(b) {
    b.onResolve({ filter: /^\.\/lmdb-module\.js$/ }, () => ({ path: 'lmdb-module', namespace: 'lmdb-module' }));
    b.onLoad({ filter: /.*/, namespace: 'lmdb-module' }, () => ({ contents: lmdbModule, loader: 'js', resolveDir: root }));
    b.onResolve({ filter: /^lmdb$/ }, (args) => (args.namespace === 'lmdb' ? { path: 'lmdb', external: true } : { path: 'lmdb', namespace: 'lmdb' }));
    b.onResolve({ filter: /^lmdb\/carried$/, namespace: 'lmdb' }, () => ({ path: lmdbMain }));
    // Where the installed lmdb is, found once by the entry and read by the binding's locator.
    b.onResolve({ filter: /^lmdb\/installed$/ }, () => ({ path: 'installed', namespace: 'lmdb-installed' }));
    b.onLoad({ filter: /.*/, namespace: 'lmdb-installed' }, () => ({ contents: 'module.exports = { dir: undefined };', loader: 'js' }));
    b.onLoad({ filter: /^lmdb$/, namespace: 'lmdb' }, () => ({ contents: entry, loader: 'js', resolveDir: root }));
    b.onResolve({ filter: /^node-gyp-build-optional-packages$/ }, (args) =>
      INSIDE_LMDB.test(args.importer) ? { path: 'binding', namespace: 'lmdb-binding' } : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: 'lmdb-binding' }, () => ({ contents: binding, loader: 'js', resolveDir: dirname(lmdbMain) }));
    b.onLoad({ filter: LIBC_PROBE_FILES }, (args) => {
      const source = readFileSync(args.path, 'utf8');
      // Checked, so that a new detect-libc that reads differently fails the build rather than this going unnoticed.
      if (!source.includes(ASYNC_CLOSE)) throw new Error(`build: ${args.path} no longer reads as scripts/lmdb-bundle.js expects`);
      return { contents: source.replace(ASYNC_CLOSE, ASYNC_CLOSE.replace('fs.close(fd, () => {});', 'fs.closeSync(fd);')), loader: 'js' };
    });
    b.onResolve({ filter: /^msgpackr-extract$/ }, (args) => (INSIDE_MSGPACKR.test(args.importer) ? { path: 'none', namespace: 'no-extract' } : undefined));
    b.onResolve({ filter: /^(node:)?module$/ }, (args) => (ASKS_MODULE.test(args.importer) ? { path: 'module', namespace: 'loader-module' } : undefined));
    b.onLoad({ filter: /.*/, namespace: 'loader-module' }, () => ({ contents: loaderModule, loader: 'js' }));
    b.onLoad({ filter: /.*/, namespace: 'no-extract' }, () => ({ contents: 'module.exports = undefined;', loader: 'js' }));
  },
};
