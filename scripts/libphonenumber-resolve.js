// How numintel loads libphonenumber-js, the same in the bundle (scripts/build.js) and in the tests
// (vitest.config.ts), which are where a bulk run validates every number:
// - the package's build for modern engines (es6-modern: native classes and object spreads), which
//   it ships beside the es6 build its `core` entry imports; a quarter faster per number;
// - its helper matchesEntirely replaced by src/core/matches-entirely.ts, which compiles each
//   pattern once where the library compiles it on every call; half the time per number.
// The answers are the library's own (test/core/numbers-oracle.test.ts, matches-entirely.test.ts).
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const LIBRARY = /[\\/]node_modules[\\/]libphonenumber-js[\\/]/;

/** Where an import made inside libphonenumber-js should go instead; undefined: where it says. */
export function libphonenumberPath(specifier, importer) {
  if (importer === undefined || !LIBRARY.test(importer)) return undefined;
  if (/(^|\/)matchesEntirely\.js$/.test(specifier)) return join(root, 'src', 'core', 'matches-entirely.ts');
  if (/[\\/]core[\\/]index\.js$/.test(importer) && specifier.startsWith('../es6/')) {
    return join(dirname(importer), '..', 'es6-modern', specifier.slice('../es6/'.length));
  }
  return undefined;
}

/** The same as an esbuild plugin. */
export const libphonenumberEsbuildPlugin = {
  name: 'faster-phone-numbers',
  setup(build) {
    build.onResolve({ filter: /\.js$/ }, (args) => {
      const path = libphonenumberPath(args.path, args.importer);
      return path === undefined ? undefined : { path };
    });
  },
};
