/**
 * Ranks 1..n with ties given their average rank — scipy.stats.rankdata(method='average') (scipy 1.10).
 *
 * @param values - finite numbers, any order
 * @returns ranks in input order; e.g. [10, 20, 20, 30] → [1, 2.5, 2.5, 4]
 */
export function rankAverage(values: readonly number[]): number[] {
  const order = values.map((v, i) => i).sort((a, b) => values[a] - values[b]);
  const ranks = new Array<number>(values.length);
  for (let i = 0; i < order.length; ) {
    let j = i;
    while (j + 1 < order.length && values[order[j + 1]] === values[order[i]]) j++;
    const avg = (i + j) / 2 + 1; // ranks i+1 .. j+1
    for (let k = i; k <= j; k++) ranks[order[k]] = avg;
    i = j + 1;
  }
  return ranks;
}
