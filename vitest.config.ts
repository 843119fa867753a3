import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';
import { libphonenumberPath } from './scripts/libphonenumber-resolve.js';

export default defineConfig({
  // libphonenumber-js loaded as the bundle loads it (scripts/libphonenumber-resolve.js); vite
  // processes the library so that its own imports can be redirected.
  plugins: [{ name: 'faster-phone-numbers', enforce: 'pre', resolveId: (source, importer) => libphonenumberPath(source, importer) }],
  test: {
    include: ['test/**/*.test.ts'],
    // Three test files per two cores: most e2e files wait on a sandbox or a child process more than
    // they compute, so a third file fills the idle time. Measured on two cores (cold caches, the
    // type-check and lint beside the suite): npm test 95 s with one file per core, 84 s with 1.5,
    // 80 s with 2, where the timing tests start to feel the crowding; 1.5 is the margin kept.
    maxWorkers: Math.ceil(availableParallelism() * 1.5),
    testTimeout: 20_000,
    hookTimeout: 20_000,
    server: { deps: { inline: ['libphonenumber-js'] } },
  },
});
