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
    include: ['test/**/*.test.ts'],
    // Support modules schedule their cleanup through test/support/cleanup.ts, which setup.ts runs.
    setupFiles: ['test/support/setup.ts'],
  },
});
