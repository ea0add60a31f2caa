/**
 * Seeded shuffling, so that "random" orders (samples, blind-mode candidate orders) are the same on every machine
 * for the same seed.
 */

/**
 * Fisher–Yates shuffle of a copy of `xs` with the generator `rng` (uniform in [0, 1), e.g. seedrandom's ARC4
 * `seedrandom(seed)`); the input is not modified.
 */
export function shuffled<T>(xs: readonly T[], rng: () => number): T[] {
  const a = xs.slice();
  for (let i = a.length - 1; i > 0; i--) {
    const j = Math.floor(rng() * (i + 1));
    [a[i], a[j]] = [a[j], a[i]];
  }
  return a;
}
