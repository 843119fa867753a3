#!/usr/bin/env node
// Launcher. The program is one CommonJS bundle, dist/bundle/main.cjs, built by `npm install`
// (through the prepare script) or `npm run build`. A script may start numintel once per number, so
// start-up is most of such a run: the bundle is compiled through V8's code cache, made at exit
// (after the run, so it holds the functions the run compiled, not only the top level). It lives in
// the user's cache directory (never in the install directory, which may be read-only or shared):
// one file per bundle (its size and time), V8 version and architecture.
//
// A code cache holds only what its writers compiled. A run that requires a module none of them
// required took a path they did not (the HTTP client, LMDB's binding, a terminal's table, undici):
// it writes the cache again, holding what it held and what this run compiled. So the cache grows
// by each path once and then stays as it is; the file begins with the line of modules its writers
// required.
//
// Node's compile cache (module.enableCompileCache, Node 22.1 and later) is made as a module is
// compiled, before it runs, and would hold a fraction of the bundle; it serves the program's other
// bundles (undici, the sandbox), which the program requires.
//
// This file is CommonJS (see bin/package.json): the ES module loader would add a few milliseconds
// to every run. The bundle holds no import(): a vm.Script has no loader for it (the build checks).
'use strict';
const { readdirSync, readFileSync, rmSync, statSync } = require('node:fs');
const { homedir } = require('node:os');
const { dirname, join } = require('node:path');
const { Script } = require('node:vm');
// The program's own resolver and file helpers (src/cli/launcher-files.ts).
const { codeCacheDir, makeDirs, writeFileAtomically } = require('../dist/bundle/launcher-files.cjs');

const file = join(__dirname, '..', 'dist', 'bundle', 'main.cjs');
// Latin-1: the bundle is ASCII (the build checks), and reading it so skips UTF-8's decoding.
const source = readFileSync(file, 'latin1');
const cacheDir = codeCacheDir(process.env, homedir());
const stat = statSync(file);
const cacheName = `main-${stat.size}-${Math.trunc(stat.mtimeMs)}-v8-${process.versions.v8}-${process.arch}.cache`;
const { cachedData, known } = readCache(join(cacheDir, cacheName));
// The bundle is a function expression, the one Node wraps a CommonJS module in (the build puts it
// around the program, so the text is compiled as read, never copied).
const script = new Script(source, { filename: file, cachedData });
const required = new Set();
process.once('exit', () => {
  const accepted = cachedData !== undefined && !script.cachedDataRejected;
  if (accepted && [...required].every((id) => known.has(id))) return;
  saveCache(script.createCachedData(), accepted ? new Set([...known, ...required]) : required);
});

// The bundle keeps a fact or two of its own beside the code cache (where lmdb's binding is).
globalThis[Symbol.for('numintel.codeCacheDir')] = cacheDir;
// The loader's own createRequire: require('node:module') would load the public module (and the ES
// module loader's parts it pulls in) only for this.
const load = module.constructor.createRequire(file);
let compileCacheAsked = Number(process.versions.node.split('.')[0]) < 22;
const bundleRequire = Object.assign((id) => {
  required.add(id);
  // Another bundle of the program: Node compiles it, through its own cache where it has one.
  if (!compileCacheAsked && id.startsWith('./')) {
    compileCacheAsked = true;
    try {
      // Made here first, so that it is ours (0700), and Node is not asked where no directory can be.
      makeDirs(cacheDir);
      require('node:module').enableCompileCache?.(join(cacheDir, 'node'));
    } catch {
      // no cache directory: compiled from source
    }
  }
  return load(id);
}, load);
const bundle = { exports: {} };
script.runInThisContext()(bundle.exports, bundleRequire, bundle, file, dirname(file));
bundle.exports.main();

/** The cache's V8 data and the modules its writers required; none for a file missing or not of this form. */
function readCache(path) {
  try {
    const data = readFileSync(path);
    const end = data.indexOf(10);
    const ids = JSON.parse(data.toString('utf8', 0, end));
    if (end > 0 && Array.isArray(ids)) return { cachedData: data.subarray(end + 1), known: new Set(ids) };
  } catch {
    // none yet, or not one of ours: compiled from source, and written at exit
  }
  return { cachedData: undefined, known: new Set() };
}

/** Writes the cache and removes those of other builds (an upgrade, another V8): of no more use. */
function saveCache(data, ids) {
  try {
    // Written aside and renamed, so concurrent runs never read half a cache.
    writeFileAtomically(join(cacheDir, cacheName), Buffer.concat([Buffer.from(`${JSON.stringify([...ids])}\n`), data]), { makeDir: true });
    for (const old of readdirSync(cacheDir)) {
      if (old !== cacheName && /^main-.*\.cache$/.test(old)) rmSync(join(cacheDir, old), { force: true });
    }
  } catch {
    // No writable cache directory: every run compiles from source, which works, only slower.
  }
}
