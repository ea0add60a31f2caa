/**
 * Reliability data (Krippendorff 2004, §11.2): a units × coders matrix of values, `null` where a coder did not
 * rate a unit. Every coefficient in this folder reads this shape, so the same labels give Fleiss' kappa,
 * Krippendorff's alpha, Gwet's AC1, pairwise Cohen's kappa and ICCs.
 */

/** A category (nominal/ordinal label) or a rating. */
export type RatingValue = string | number | boolean;

/** `data[u][c]`: the value coder c gave unit u, or null. Rows (units) must all have the same number of coders. */
export type ReliabilityData<T extends RatingValue = RatingValue> = readonly (readonly (T | null | undefined)[])[];

/** A coefficient's value, or why it is undefined. */
export interface CoefficientValue {
  /** The coefficient, or null when undefined. */
  value: number | null;
  undefinedReason?: string;
}

/** Throws unless every row has the same length. Returns the number of coders. */
export function checkRectangular(data: ReliabilityData, what = 'reliability data'): number {
  const c = data.length ? data[0].length : 0;
  data.forEach((row, u) => {
    if (row.length !== c) throw new RangeError(`${what}: unit ${u} has ${row.length} coders, unit 0 has ${c}`);
  });
  return c;
}

/** True for a present value. */
export function present<T>(v: T | null | undefined): v is T {
  return v !== null && v !== undefined && !(typeof v === 'number' && Number.isNaN(v));
}

/** Ascending order of values: numbers numerically, booleans false < true, strings by code unit, numbers first. */
export function compareValues(a: RatingValue, b: RatingValue): number {
  const rank = (v: RatingValue) => (typeof v === 'number' ? 0 : typeof v === 'boolean' ? 1 : 2);
  if (rank(a) !== rank(b)) return rank(a) - rank(b);
  if (typeof a === 'string') return a < (b as string) ? -1 : a > (b as string) ? 1 : 0;
  return Number(a) - Number(b);
}

/** The distinct present values of `data`, ascending ({@link compareValues}). */
export function observedValues<T extends RatingValue>(data: ReliabilityData<T>): T[] {
  const seen = new Map<string, T>();
  for (const row of data) for (const v of row) if (present(v)) seen.set(`${typeof v}:${String(v)}`, v);
  return [...seen.values()].sort(compareValues);
}

/** Key of a value for lookups (so 1 and "1" stay distinct). */
export function valueKey(v: RatingValue): string {
  return `${typeof v}:${String(v)}`;
}

/**
 * The units × categories count table of `data` (Fleiss 1971's layout; Krippendorff's "values by units"): how many
 * coders gave each unit each category. Values outside `categories` throw.
 */
export function valueCounts<T extends RatingValue>(data: ReliabilityData<T>, categories: readonly T[]): number[][] {
  const index = new Map(categories.map((c, j) => [valueKey(c), j]));
  return data.map((row, u) => {
    const counts = new Array<number>(categories.length).fill(0);
    for (const v of row) {
      if (!present(v)) continue;
      const j = index.get(valueKey(v));
      if (j === undefined) throw new RangeError(`unit ${u}: value ${JSON.stringify(v)} is not one of the categories ${JSON.stringify(categories)}`);
      counts[j]++;
    }
    return counts;
  });
}

/** The rows of `data` at `indices` (a bootstrap resample). */
export function resampleUnits<T extends RatingValue>(data: ReliabilityData<T>, indices: ArrayLike<number>): (T | null | undefined)[][] {
  const out: (T | null | undefined)[][] = [];
  for (let i = 0; i < indices.length; i++) out.push(data[indices[i]] as (T | null | undefined)[]);
  return out;
}
