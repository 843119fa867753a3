import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

describe('src/core/nanp-metadata.ts', () => {
  it('is what scripts/nanp-metadata.js makes of the installed libphonenumber-js (regenerate after an upgrade)', async () => {
    const script = '../../scripts/nanp-metadata.js';
    const { nanpMetadataSource } = (await import(script)) as { nanpMetadataSource: () => string };
    const committed = readFileSync(new URL('../../src/core/nanp-metadata.ts', import.meta.url), 'utf8');
    expect(committed).toBe(nanpMetadataSource());
  });
});
