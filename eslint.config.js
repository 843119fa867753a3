import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', 'coverage/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: { process: 'readonly', console: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly', setInterval: 'readonly', clearInterval: 'readonly', setImmediate: 'readonly', URL: 'readonly', Buffer: 'readonly', AbortController: 'readonly', AbortSignal: 'readonly', performance: 'readonly', TextDecoder: 'readonly', TextEncoder: 'readonly' },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      // process.* belongs to src/cli only: everything else takes its world as arguments.
      'no-restricted-globals': ['error', { name: 'process', message: 'Take the world as an argument; only src/cli/ may touch process.' }],
    },
  },
  {
    // The CLI's bundle loads every static import at start-up: node:fs/promises (and the readline
    // parts it pulls in) costs a one-number run a millisecond it never needs. fs.promises loads on use.
    files: ['src/**'],
    ignores: ['src/sandbox/**'],
    rules: { 'no-restricted-imports': ['error', { paths: [{ name: 'node:fs/promises', message: "Use `promises as fs` from 'node:fs': it loads on first use, not at start-up." }] }] },
  },
  {
    files: ['src/cli/**', 'bin/**', 'bench/**', 'test/**', 'scripts/**', 'vitest.config.ts'],
    rules: { 'no-restricted-globals': 'off' },
  },
  {
    // The launcher is CommonJS (bin/package.json): see bin/numintel.js for why.
    files: ['bin/**'],
    languageOptions: { sourceType: 'commonjs', globals: { require: 'readonly', __dirname: 'readonly' } },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
);
