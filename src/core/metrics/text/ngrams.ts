/**
 * N-gram counting shared by the BLEU implementations. Tokens never contain a space (every tokenizer here splits
 * on whitespace), so an n-gram's key is its tokens joined by single spaces.
 */

/** Counts of the n-grams of one order (`n`) in `tokens`; empty when `tokens.length < n`. */
export function ngramCounts(tokens: readonly string[], n: number): Map<string, number> {
  const counts = new Map<string, number>();
  for (let i = 0; i + n <= tokens.length; i++) {
    let key = tokens[i];
    for (let k = 1; k < n; k++) key += ' ' + tokens[i + k];
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return counts;
}

/**
 * Clipped matches and total n-grams of order `n`: Σ min(count in hypothesis, count in reference) over the
 * hypothesis n-grams, and the number of hypothesis n-grams.
 */
export function clippedMatches(hyp: readonly string[], ref: readonly string[], n: number): { matches: number; total: number } {
  const total = Math.max(0, hyp.length - n + 1);
  if (total === 0 || ref.length < n) return { matches: 0, total };
  const refCounts = ngramCounts(ref, n);
  const hypCounts = ngramCounts(hyp, n);
  let matches = 0;
  for (const [g, c] of hypCounts) {
    const r = refCounts.get(g);
    if (r !== undefined) matches += Math.min(c, r);
  }
  return { matches, total };
}
