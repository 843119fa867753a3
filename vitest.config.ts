import { defineConfig } from 'vitest/config';
import { libphonenumberPath } from './scripts/libphonenumber-resolve.js';

export default defineConfig({
  // libphonenumber-js loaded as the bundle loads it (scripts/libphonenumber-resolve.js); vite
  // processes the library so that its own imports can be redirected.
  plugins: [{ name: 'faster-phone-numbers', enforce: 'pre', resolveId: (source, importer) => libphonenumberPath(source, importer) }],
  test: {
    include: ['test/**/*.test.ts'],
    // One test file per core (vitest's default leaves one core to its own process, which sits idle
    // in a run): most e2e files wait on the sandbox and the CLI more than they compute. Measured on
    // two cores, a set of wait-bound e2e files took 78 s instead of 100 s, for the same CPU time.
    maxWorkers: '100%',
    testTimeout: 20_000,
    hookTimeout: 20_000,
    server: { deps: { inline: ['libphonenumber-js'] } },
  },
});
