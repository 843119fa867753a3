#!/usr/bin/env node
// Builds dist/: the library and its types with tsc, and the command-line program as one esbuild
// bundle (with lazily loaded chunks). A script may start numintel once per number, and loading
// one bundled file is several times faster than resolving hundreds of modules in node_modules.
import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
rmSync(join(root, 'dist'), { recursive: true, force: true });
execFileSync(process.execPath, [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.build.json'], {
  cwd: root,
  stdio: 'inherit',
});
await build({
  entryPoints: [join(root, 'src', 'cli', 'main.ts')],
  outdir: join(root, 'dist', 'bundle'),
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
