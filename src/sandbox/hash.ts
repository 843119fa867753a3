// Cheap deterministic hashing for the synthetic data (the seeded PRNG for fault injection is
// core/prng.ts). 32-bit integer arithmetic: no allocation, no crypto, fast enough for the hot path.

/** FNV-1a over a string, starting from a seed, so the seed changes every derived value. */
export function fnv1a(text: string, seed: number): number {
  let h = (0x811c9dc5 ^ seed) >>> 0;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** A well-mixed 32-bit value for facet `i` of a base hash (a splitmix/murmur finaliser). */
export function facet(base: number, i: number): number {
  let z = (base + Math.imul(i + 1, 0x9e3779b9)) | 0;
  z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
  z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
  return (z ^ (z >>> 16)) >>> 0;
}

/** Seeds may be numbers or strings; both become one 32-bit value. */
export function seedValue(seed: number | string): number {
  return typeof seed === 'number' ? fnv1a(`n:${seed}`, 0) : fnv1a(`s:${seed}`, 0);
}
