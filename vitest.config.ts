import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';
import { libphonenumberPath } from './scripts/libphonenumber-resolve.js';

export default defineConfig({
  // libphonenumber-js loaded as the bundle loads it (scripts/libphonenumber-resolve.js); vite
  // processes the library so that its own imports can be redirected.
  plugins: [{ name: 'faster-phone-numbers', enforce: 'pre', resolveId: (source, importer) => libphonenumberPath(source, importer) }],
  test: {
    // Three test files per two cores: most e2e files wait on a sandbox or a child process more than
    // they compute, so a third file fills the idle time.
    maxWorkers: Math.ceil(availableParallelism() * 1.5),
    testTimeout: 20_000,
    hookTimeout: 20_000,
    server: { deps: { inline: ['libphonenumber-js'] } },
    // Transformed modules kept on disk between runs (node_modules/.experimental-vitest-cache): a
    // second run transforms only what changed.
    experimental: { fsModuleCache: true },
    projects: [
      {
        extends: true,
        test: {
          name: 'shared',
          include: ['test/**/*.test.ts'],
          exclude: ['test/fourth-lookup/**'],
          // The files of a worker share their modules: each is imported once, not once a file. No
          // test file changes what it shares (the lookup registry, process.env, globals); support
          // modules schedule their cleanup through cleanup.ts, which setup.ts runs.
          isolate: false,
          setupFiles: ['test/support/setup.ts', 'test/support/preload.ts'],
        },
      },
      {
        extends: true,
        // Registers a fourth lookup, which every file sharing its modules would then see, and
        // before the program loads (so no preload.ts).
        test: { name: 'fourth-lookup', include: ['test/fourth-lookup/**/*.test.ts'], setupFiles: ['test/support/setup.ts'] },
      },
    ],
  },
});
