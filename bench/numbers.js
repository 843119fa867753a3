#!/usr/bin/env node
// Number validation, µs per number: the library's own parse + isValid as published (what
// parseNumber called until it read the library's metadata itself, src/core/nanp-valid.ts), then
// parseNumber from the library build in dist/ (the package's es6 Metadata), then parseNumber as the
// CLI bundles it (the package's modern build: scripts/libphonenumber-resolve.js). The same unique
// valid numbers for all, after a warm-up; all must give the same verdicts.
// Run after `npm run build`: node bench/numbers.js [count=200000]
import { mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { parsePhoneNumberFromString } from 'libphonenumber-js/core';
import { NANP_METADATA } from '../dist/core/nanp-metadata.js';
import { parseNumber as published } from '../dist/core/numbers.js';
import { libphonenumberEsbuildPlugin } from '../scripts/libphonenumber-resolve.js';
import { ROOT, fmt, report, validNumbers } from './lib/harness.js';

const count = Number(process.argv[2] ?? 200_000);

const dir = await mkdtemp(join(tmpdir(), 'numintel-bench-'));
try {
  const outfile = join(dir, 'numbers.cjs');
  await build({
    entryPoints: [join(ROOT, 'src', 'core', 'numbers.ts')],
    outfile,
    bundle: true,
    format: 'cjs',
    platform: 'node',
    logLevel: 'warning',
    plugins: [libphonenumberEsbuildPlugin],
  });
  const { parseNumber: bundled } = createRequire(import.meta.url)(outfile);

  // Valid numbers in their plain 11-digit form, then the same in a common written form.
  const numbers = validNumbers(count / 2, 3).flatMap((n) => [n, `(${n.slice(1, 4)}) ${n.slice(4, 7)}-${n.slice(7)}`]);
  const time = (parse) => {
    for (const n of numbers.slice(0, 20_000)) parse(n);
    const started = process.hrtime.bigint();
    const answers = numbers.map((n) => parse(n));
    return { us: Number(process.hrtime.bigint() - started) / 1e3 / numbers.length, answers };
  };
  // The library's verdict on the national digits, as parseNumber asked for it before.
  const library = (n) => ({ ok: parsePhoneNumberFromString(`+1${n.replace(/\D/g, '').slice(-10)}`, NANP_METADATA)?.isValid() === true });
  const l = time(library);
  const a = time(published);
  const b = time(bundled);
  const differ = a.answers.filter((x, i) => JSON.stringify(x) !== JSON.stringify(b.answers[i]) || x.ok !== l.answers[i].ok).length;
  if (differ > 0) throw new Error(`${differ} numbers answered differently`);
  console.log(`number validation, ${fmt(numbers.length)} numbers (node ${process.version}):`);
  console.log(`  libphonenumber-js parse + isValid, as published: ${l.us.toFixed(2)} µs/number`);
  console.log(`  parseNumber, dist/ build:                        ${a.us.toFixed(2)} µs/number`);
  console.log(`  parseNumber as numintel bundles it:              ${b.us.toFixed(2)} µs/number   (${(l.us / b.us).toFixed(1)}× faster than the library's parse, same verdicts)`);
  report('numbers', { count: numbers.length, libraryUs: l.us, publishedUs: a.us, bundledUs: b.us });
} finally {
  await rm(dir, { recursive: true, force: true });
}
