import { defineConfig } from 'vitest/config';
import { libphonenumberPath } from './scripts/libphonenumber-resolve.js';

export default defineConfig({
  // libphonenumber-js loaded as the bundle loads it (scripts/libphonenumber-resolve.js); vite
  // processes the library so that its own imports can be redirected.
  plugins: [{ name: 'faster-phone-numbers', enforce: 'pre', resolveId: (source, importer) => libphonenumberPath(source, importer) }],
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 20_000,
    hookTimeout: 20_000,
    server: { deps: { inline: ['libphonenumber-js'] } },
  },
});
