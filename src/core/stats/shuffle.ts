/**
 * The seeded Fisher–Yates shuffle (Durstenfeld's in-place form; Knuth, TAOCP vol. 2, §3.4.2, Algorithm P) every
 * seeded order of ReflectEval draws: AnnoMI samples, dedup samples, the prompt search's splits and few-shot picks.
 * With the same generator (seedrandom's ARC4 or Alea, seeded by a string) the same order comes out anywhere.
 */

/**
 * Shuffles `xs` in place: for i from the last index down to 1, swap element i with element ⌊rng()·(i + 1)⌋.
 *
 * @param xs - the array to shuffle (modified)
 * @param rng - uniform draws in [0, 1), e.g. `seedrandom(seed)`; called `xs.length − 1` times
 * @returns `xs`
 */
export function shuffleInPlace<T>(xs: T[], rng: () => number): T[] {
  for (let i = xs.length - 1; i > 0; i--) {
    const j = Math.floor(rng() * (i + 1));
    [xs[i], xs[j]] = [xs[j], xs[i]];
  }
  return xs;
}

/** A shuffled copy of `xs` ({@link shuffleInPlace}); `xs` is left as it is. */
export function shuffled<T>(xs: readonly T[], rng: () => number): T[] {
  return shuffleInPlace(xs.slice(), rng);
}
