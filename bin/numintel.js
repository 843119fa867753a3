#!/usr/bin/env node
// Launcher. The program is one CommonJS bundle, dist/bundle/main.cjs, built by `npm install`
// (through the prepare script) or `npm run build`. A script may start numintel once per number, so
// start-up is most of such a run: the bundle is compiled with V8's code cache. The cache lives in
// the user's cache directory (never in the install directory, which may be read-only or shared),
// one file per bundle (its size and time), V8 version and kind of run, written at exit by the first
// run that finds none or finds it rejected, and again by a run that compiled a part the one it read
// lacks (see PARTS). This file is CommonJS (see bin/package.json): the ES module loader would add a
// few milliseconds to every run.
//
// The bundle holds no import(): a vm.Script has no loader for dynamic imports (the build checks).
'use strict';
const { readdirSync, readFileSync, rmSync, statSync } = require('node:fs');
const { homedir } = require('node:os');
const { dirname, join } = require('node:path');
const { Script } = require('node:vm');
// The program's own resolver and writer (src/cli/launcher-files.ts).
const { codeCacheDir, writeFileAtomically } = require('../dist/bundle/launcher-files.cjs');

const file = join(__dirname, '..', 'dist', 'bundle', 'main.cjs');
// Latin-1: the bundle is ASCII (the build checks), and reading it so skips UTF-8's decoding.
const source = readFileSync(file, 'latin1');
const cacheDir = codeCacheDir(process.env, homedir());
const stat = statSync(file);
const build = `main-${stat.size}-${Math.trunc(stat.mtimeMs)}-v8-${process.versions.v8}-${process.arch}-`;
const kind = `${build}${runKind(process.argv.slice(2))}`;
// A code cache holds only what its writer compiled, and a later run compiles from source whatever
// else it uses (milliseconds of a one-number run per part below). Runs of one kind differ in parts: a
// number given as an argument is sent (Node's client), numbers on stdin or in a file go through
// the streaming readers and undici's glue, a table is drawn only for a terminal (or -f table), and
// a run with the lookup cache opens LMDB (src/store/lmdb-store.ts). The
// program notes each part it used (src/cli/code-cache-hint.ts, scripts/lmdb-bundle.js); the
// kind's cache is named for the parts its writer had compiled, the fullest read first, and is
// written again, holding what it held and the new part, only by a run that used a part it lacks:
// at most once per part. A cache that is read stays in what it already holds.
const PARTS = ['sent', 'stream', 'table', 'lmdb'];
const cacheName = (parts) => `${kind}${parts.map((part) => `-${part}`).join('')}.cache`;
let cachedData;
let loaded = [];
// The directory is listed once rather than each name tried in turn: a name not there fails with an
// error thrown and caught, which costs more than the listing.
let present = [];
try {
  present = readdirSync(cacheDir);
} catch {
  // no cache directory yet
}
const candidates = present
  .map((name) => ({ name, parts: partsOf(name) }))
  .filter((c) => c.parts !== undefined)
  .sort((a, b) => b.parts.length - a.parts.length);
for (const { name, parts } of candidates) {
  try {
    cachedData = readFileSync(join(cacheDir, name));
    loaded = parts;
    break;
  } catch {
    // removed since the listing (another run at exit)
  }
}
// The bundle is a function expression, the one Node wraps a CommonJS module in (the build puts it
// around the program, so the text is compiled as read, never copied).
const script = new Script(source, { filename: file, cachedData });
process.once('exit', () => {
  const had = cachedData !== undefined && !script.cachedDataRejected ? loaded : undefined;
  const parts = PARTS.filter((part) => had?.includes(part) || globalThis[Symbol.for(`numintel.compiled.${part}`)] === true);
  if (had !== undefined && parts.length === had.length) return;
  saveCache(script.createCachedData(), cacheName(parts));
});

// The bundle keeps a fact or two of its own beside the code caches (where lmdb's binding is).
globalThis[Symbol.for('numintel.codeCacheDir')] = cacheDir;
const bundle = { exports: {} };
// The loader's own createRequire: require('node:module') would load the public module (and the ES
// module loader's parts it pulls in) only for this.
script.runInThisContext()(bundle.exports, module.constructor.createRequire(file), bundle, file, dirname(file));
bundle.exports.main();

/**
 * A code cache holds only the functions compiled by the run that wrote it, and a run that finds
 * one compiles the rest from source every time: a lookup's cache written by `--version` would
 * leave the whole lookup to compile. So lookups (with the lookup cache, or without it: `--no-cache`,
 * `--sandbox`) and everything else keep caches of their own, and so do lookups of numbers given as
 * arguments (a script's loop: Node's client) and of numbers read from a file or
 * stdin (the streaming readers): a run of one kind uses little of the other's code, and in one
 * cache the first kind's left the other's to compile in every run (bench/startup.js's cache hit,
 * which follows a run of stdin: 162.6 → 159.7 M instructions). Only a guess from the words: a
 * wrong one costs time, never a result.
 */
function runKind(args) {
  if (!['lrn', 'cnam', 'trust', 'enrich'].includes(args[0])) return 'other';
  const kind = args.includes('--no-cache') || args.includes('--sandbox') ? 'lookup-nostore' : 'lookup';
  return args.some(isNumberWord) ? `${kind}-args` : kind;
}

/** A word that reads as a phone number: seven digits or more, and nothing but + ( ) . - and spaces beside them. */
function isNumberWord(word) {
  let digits = 0;
  for (const c of word) {
    if (c >= '0' && c <= '9') digits++;
    else if (!'+(). -'.includes(c)) return false;
  }
  return digits >= 7;
}

/** The parts a cache of this run's kind holds, from its name; undefined for any other file. */
function partsOf(name) {
  if (!name.startsWith(kind) || !name.endsWith('.cache')) return undefined;
  const parts = name.slice(kind.length, -'.cache'.length).split('-').slice(1);
  return parts.every((part) => PARTS.includes(part)) && cacheName(PARTS.filter((part) => parts.includes(part))) === name ? parts : undefined;
}

/** Writes the cache `name` and removes the kind's others (one that was rejected, or holds less). */
function saveCache(data, name) {
  try {
    // Written aside and renamed, so concurrent runs never read half a cache.
    writeFileAtomically(join(cacheDir, name), data, { makeDir: true });
    // The kind's other caches, and those of other builds (an upgrade, another V8): of no more use.
    for (const old of readdirSync(cacheDir)) {
      if (old !== name && (partsOf(old) !== undefined || (!old.startsWith(build) && /^main-.*\.cache$/.test(old)))) rmSync(join(cacheDir, old), { force: true });
    }
  } catch {
    // No writable cache directory: every run compiles from source, which works, only slower.
  }
}
