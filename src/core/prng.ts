// mulberry32: a tiny seeded PRNG giving floats in [0, 1). The sandbox's fault draws, the tests'
// jitter and the benchmarks' numbers all need a sequence that is the same on every run.
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
