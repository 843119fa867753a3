#!/usr/bin/env node
// Builds dist/: the library and its types with tsc, and the command-line program as one esbuild
// bundle (with lazily loaded chunks). A script may start numintel once per number, and loading
// one bundled file is several times faster than resolving hundreds of modules in node_modules.
import { execFileSync } from 'node:child_process';
import { renameSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
execFileSync(process.execPath, [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.build.json'], {
  cwd: root,
  stdio: 'inherit',
});
// The bundle is written beside the old one and swapped in, so a program already running from
// dist/ (a test, a second build) never sees a half-written or missing bundle.
const bundle = join(root, 'dist', 'bundle');
const fresh = `${bundle}.${process.pid}.tmp`;
const stale = `${bundle}.${process.pid}.old`;
await build({
  entryPoints: [join(root, 'src', 'cli', 'main.ts')],
  outdir: fresh,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20.18',
  minify: true,
  legalComments: 'linked',
  chunkNames: 'chunks/[name]-[hash]',
  // CommonJS dependencies inside an ES module bundle still call require() for Node's built-ins.
  banner: { js: "import{createRequire as __cr}from'node:module';const require=__cr(import.meta.url);" },
  logLevel: 'warning',
});
rmSync(stale, { recursive: true, force: true });
try {
  renameSync(bundle, stale);
} catch {
  // first build: nothing to move aside
}
renameSync(fresh, bundle);
rmSync(stale, { recursive: true, force: true });
