#!/usr/bin/env node
// Builds dist/: the library and its types with tsc, and the command-line program as CommonJS
// bundles in dist/bundle/, which bin/numintel.js compiles through a V8 code cache kept in the
// user's cache directory. A script may start numintel once per number, so start-up is most of such
// a run: one bundled file loads several times faster than hundreds of modules from node_modules,
// and compiled code from the cache skips V8's compiler.
import { execFile } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { libphonenumberEsbuildPlugin as fasterPhoneNumbers } from './libphonenumber-resolve.js';
import { lmdbEsbuildPlugin as carriedLmdb } from './lmdb-bundle.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
// tsc, incremental, beside esbuild. Its record of what it emitted lives outside dist/, and tsc
// trusts it without looking at dist/: with the library's entry gone, the record goes too.
const tsBuildInfo = join(root, 'node_modules', '.cache', 'numintel-build', 'tsconfig.build.tsbuildinfo');
if (!existsSync(join(root, 'dist', 'index.js')) || !existsSync(join(root, 'dist', 'index.d.ts'))) rmSync(tsBuildInfo, { force: true });
const tsc = promisify(execFile)(process.execPath, [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.build.json', '--incremental', '--tsBuildInfoFile', tsBuildInfo], { cwd: root }).catch(
  (err) => Promise.reject(new Error(`build: tsc failed\n${err.stdout ?? ''}`)),
);
// The bundle is written beside the old one and swapped in, so a program already running from
// dist/ (a test, a second build) never sees a half-written or missing bundle.
const bundle = join(root, 'dist', 'bundle');
const fresh = `${bundle}.${process.pid}.tmp`;
const stale = `${bundle}.${process.pid}.old`;
// Parts only some commands need get files of their own, which a lookup of a few numbers never reads:
// the sandbox (with graphql), undici (bulk runs) and the workbook library. The main program requires them when needed.
// Each file bundles its own copy of what it shares with the main program, so nothing may cross
// the boundary that the other side tests with instanceof (neither part throws NumintelError).
// The sandbox's certificate maker (an X.509 library) is a part of its own, read only by `sandbox --tls`.
const PARTS = {
  [join(root, 'src', 'sandbox', 'index.ts')]: 'sandbox.cjs',
  [join(root, 'src', 'sandbox', 'certificate.ts')]: 'sandbox-certificate.cjs',
  [join(root, 'src', 'api', 'undici-wire.ts')]: 'undici-wire.cjs',
  // The workbook library (.xlsx in and out): a megabyte no other run reads.
  [join(root, 'src', 'core', 'xlsx-library.ts')]: 'xlsx-library.cjs',
};
const options = {
  bundle: true,
  // CommonJS, not ES modules: the launcher compiles the main program with vm.Script, which takes a
  // code cache (Node 20 has none for ES modules), and skipping the ES module loader saves more.
  // Whatever else a command loads lazily (tables, CSV) stays in the file, neither compiled nor run
  // until needed.
  format: 'cjs',
  platform: 'node',
  target: 'node20.18',
  // --no-minify keeps the names (what a `node --cpu-prof` profile needs) but still drops the
  // whitespace and with it the comments: kept, undici's JSDoc reads `{import('net').Socket}` and the
  // sources' comments hold non-ASCII, and both checks below would fail the build.
  ...(process.argv[2] === '--no-minify' ? { minifyWhitespace: true, minifySyntax: true } : { minify: true }),
  legalComments: 'linked',
  logLevel: 'warning',
  // import() becomes require(): the launcher's vm.Script has no loader for dynamic imports, so an
  // import() left in a bundle (node:https, node:readline) would fail only on the path that reaches it.
  supported: { 'dynamic-import': false },
};
const separateParts = {
  name: 'separate-parts',
  setup(b) {
    b.onResolve({ filter: /\.js$/ }, (args) => {
      const part = PARTS[join(args.resolveDir, args.path).replace(/\.js$/, '.ts')];
      return part ? { path: part, namespace: 'part' } : undefined;
    });
    b.onResolve({ filter: /^\.\/.*\.cjs$/, namespace: 'part' }, (args) => ({ path: args.path, external: true }));
    b.onLoad({ filter: /.*/, namespace: 'part' }, (args) => ({ contents: `module.exports = require('./${args.path}');`, loader: 'js' }));
  },
};
// commander loads child_process (and with it dgram and more) for executable subcommands, which
// numintel has none of, and lmdb's libc probe (detect-libc) for a last resort that reading the
// program's own ELF header makes needless on every system lmdb has binaries for: each gets the
// module on first use instead, which is never or next to never.
const lazyChildProcess = {
  name: 'lazy-child-process',
  setup(b) {
    b.onResolve({ filter: /^(node:)?child_process$/ }, (args) =>
      /[\\/](commander|detect-libc)[\\/]/.test(args.importer) ? { path: 'child_process', namespace: 'lazy' } : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: 'lazy' }, () => ({
      contents: "let m; module.exports = new Proxy({}, { get: (_, key) => (m ??= require('node:child_process'))[key] });",
      loader: 'js',
    }));
  },
};
const steps = await Promise.allSettled([
  tsc,
  // What the launcher needs before it loads the program (src/cli/launcher-files.ts).
  build({ ...options, entryPoints: [join(root, 'src', 'cli', 'launcher-files.ts')], outfile: join(fresh, 'launcher-files.cjs') }),
  build({ ...options, entryPoints: [join(root, 'src', 'cli', 'main.ts')], outfile: join(fresh, 'main.cjs'), plugins: [separateParts, lazyChildProcess, fasterPhoneNumbers, carriedLmdb] }),
  // A part may load another (the sandbox its certificate maker) the way the main program loads one.
  ...Object.entries(PARTS).map(([entry, file]) => build({ ...options, entryPoints: [entry], outfile: join(fresh, file), plugins: [separateParts, fasterPhoneNumbers, carriedLmdb] })),
]);
const failed = steps.find((step) => step.status === 'rejected');
if (failed) {
  // Every step is done, so nothing writes into the unfinished bundle after it is gone.
  rmSync(fresh, { recursive: true, force: true });
  console.error(failed.reason instanceof Error ? failed.reason.message : failed.reason);
  process.exit(1);
}
assertNoDynamicImport(fresh);
assertAscii(join(fresh, 'main.cjs'));
wrapAsFunction(join(fresh, 'main.cjs'));
rmSync(stale, { recursive: true, force: true });
try {
  renameSync(bundle, stale);
} catch {
  // first build: nothing to move aside
}
renameSync(fresh, bundle);
rmSync(stale, { recursive: true, force: true });

/**
 * Fails the build if the main bundle holds a byte beyond ASCII (esbuild escapes them by default):
 * the launcher reads it as Latin-1, which takes half the time of UTF-8 and is the same text only
 * for ASCII.
 */
function assertAscii(file) {
  const at = readFileSync(file).findIndex((byte) => byte > 0x7f);
  if (at !== -1) throw new Error(`build: ${file} holds a non-ASCII byte at ${at}, which the launcher would misread`);
}

/**
 * Puts the main bundle inside the function Node wraps a CommonJS module in (on its first line, so
 * line numbers hold), which the launcher compiles as it stands: wrapping it there joined the text
 * to a copy of all of it at every start (a third of a millisecond). The file is no longer a module
 * that `require` could load; only the launcher runs it.
 */
function wrapAsFunction(file) {
  writeFileSync(file, `(function (exports, require, module, __filename, __dirname) {${readFileSync(file, 'latin1')}\n})`, 'latin1');
}

/** Fails the build if any bundle still holds an import(), which the launcher cannot serve. */
function assertNoDynamicImport(dir) {
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.cjs'))) {
    const found = /\bimport\(\s*["'`]/.exec(readFileSync(join(dir, file), 'utf8'));
    if (found) throw new Error(`build: ${file} holds a dynamic import (${found[0]}…), which the launcher cannot load`);
  }
}
