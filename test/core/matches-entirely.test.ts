import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { parsePhoneNumberFromString } from 'libphonenumber-js/core';
import { describe, expect, it } from 'vitest';
import matchesEntirely, { compiledPatterns } from '../../src/core/matches-entirely.js';
import { NANP_METADATA } from '../../src/core/nanp-metadata.js';
import { prng } from '../../src/core/prng.js';
import { libphonenumberPath } from '../../scripts/libphonenumber-resolve.js';

/** Every string in the metadata that could be a pattern: national, type and leading-digit ones. */
function patterns(value: unknown, out = new Set<string>()): Set<string> {
  if (typeof value === 'string') out.add(value);
  else if (Array.isArray(value)) for (const v of value) patterns(v, out);
  else if (value && typeof value === 'object') for (const v of Object.values(value)) patterns(v, out);
  return out;
}

describe('matchesEntirely, compiled once', () => {
  it('is what libphonenumber-js uses here, as in the bundle', () => {
    // parseNumber reads the library's metadata itself (nanp-valid.ts); its parser still uses this.
    parsePhoneNumberFromString('+12015550123', NANP_METADATA)?.isValid();
    parsePhoneNumberFromString('+1 (684) 733-1234', NANP_METADATA)?.isValid();
    expect(compiledPatterns()).toBeGreaterThan(1);
  });

  it('answers as a fresh RegExp does, for every metadata string and many numbers, twice over', () => {
    const random = prng(11);
    const numbers = ['', '2015550123', '3052012345', '6847331234', '8005550100'];
    for (let i = 0; i < 300; i++) numbers.push(String(Math.floor(random() * 1e10)).padStart(10, '0'));
    const regexes = [...patterns(NANP_METADATA)].flatMap((p) => {
      try {
        return [[p, new RegExp(`^(?:${p})$`)] as const];
      } catch {
        return []; // not a pattern (a name, a prefix with no regex meaning)
      }
    });
    expect(regexes.length).toBeGreaterThan(50);
    for (let round = 0; round < 2; round++) {
      for (const [p, re] of regexes) for (const n of numbers) expect(matchesEntirely(n, p)).toBe(re.test(n));
    }
  });
});

describe('libphonenumber-js as the bundle loads it', () => {
  const core = createRequire(import.meta.url).resolve('libphonenumber-js/core').replace(/index\.cjs$/, 'index.js');

  it('takes every module of the core entry from the modern build, which has each of them', () => {
    const imports = [...readFileSync(core, 'utf8').matchAll(/from '(\.\.\/es6\/[^']+)'/g)].map((m) => m[1]!);
    expect(imports.length).toBeGreaterThan(10);
    for (const specifier of imports) {
      const path = libphonenumberPath(specifier, core);
      expect(path).toMatch(/[\\/]es6-modern[\\/]/);
      expect(existsSync(path!)).toBe(true);
    }
  });

  it('leaves imports from anywhere else alone', () => {
    expect(libphonenumberPath('../es6/parse.js', '/work/src/core/numbers.ts')).toBeUndefined();
    expect(libphonenumberPath('./helpers/matchesEntirely.js', undefined)).toBeUndefined();
  });
});
