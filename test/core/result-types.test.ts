// The library's result types are generated from the descriptors: the committed file must be what
// the descriptors give today, and the client's records carry them (checked by the type-checker).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { resultTypesSource } from '../../src/core/result-types-source.js';
import type { CnamResult, LrnResult, NumintelClient, TrustResult, TypedEnrichRecord, TypedLookupRecord } from '../../src/index.js';

describe('result types', () => {
  it('src/core/result-types.ts is up to date with the descriptors (node scripts/result-types.js)', () => {
    const committed = readFileSync(join(import.meta.dirname, '..', '..', 'src', 'core', 'result-types.ts'), 'utf8');
    expect(committed).toBe(resultTypesSource());
  });

  it('lookup(), bulk() and enrich() give records typed by their lookup', () => {
    expectTypeOf<Awaited<ReturnType<NumintelClient['lookup']>>>().toEqualTypeOf<TypedLookupRecord>();
    expectTypeOf<TypedLookupRecord<'lrn'>['result']>().toEqualTypeOf<LrnResult | null>();
    expectTypeOf<TypedLookupRecord<'cnam'>['result']>().toEqualTypeOf<CnamResult | null>();
    expectTypeOf<NonNullable<TypedLookupRecord<'trust'>['result']>['reputation_score']>().toEqualTypeOf<number>();
    expectTypeOf<NonNullable<LrnResult['enhanced_lrn_data']>['carrier']>().toEqualTypeOf<string>();
    expectTypeOf<TypedEnrichRecord<'lrn' | 'trust'>['results']>().toEqualTypeOf<{ lrn?: LrnResult | null; trust?: TrustResult | null }>();
  });
});
