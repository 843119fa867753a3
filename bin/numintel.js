#!/usr/bin/env node
// Launcher. The program is one CommonJS bundle, dist/bundle/main.cjs, built by `npm install`
// (through the prepare script) or `npm run build`. A script may start numintel once per number, so
// start-up is most of such a run: the bundle is compiled with V8's code cache, kept beside it per V8
// version and architecture (written by the build's warm-up run, or rewritten here at exit when it is
// missing or V8 rejects it). This file is CommonJS (see bin/package.json): the ES module loader
// would add a few milliseconds to every run.
'use strict';
const { readFileSync, renameSync, rmSync, writeFileSync } = require('node:fs');
const { createRequire } = require('node:module');
const { dirname, join } = require('node:path');
const { Script } = require('node:vm');

const file = join(__dirname, '..', 'dist', 'bundle', 'main.cjs');
const cacheFile = join(dirname(file), `main.v8-${process.versions.v8}-${process.arch}.cache`);

let cachedData;
try {
  cachedData = readFileSync(cacheFile);
} catch {
  // no cache yet
}
// The same wrapper Node gives a CommonJS module, on the first line so line numbers hold.
const script = new Script(`(function (exports, require, module, __filename, __dirname) {${readFileSync(file, 'utf8')}\n})`, {
  filename: file,
  cachedData,
});
if (cachedData === undefined || script.cachedDataRejected) process.once('exit', () => saveCache(script.createCachedData()));

const bundle = { exports: {} };
script.runInThisContext()(bundle.exports, createRequire(file), bundle, file, dirname(file));
bundle.exports.main();

function saveCache(data) {
  // Written aside and renamed, so concurrent runs never read half a cache.
  const partial = `${cacheFile}.${process.pid}.tmp`;
  try {
    writeFileSync(partial, data);
    renameSync(partial, cacheFile);
  } catch {
    // A read-only install: every run compiles from source, which works, only slower.
    rmSync(partial, { force: true });
  }
}
