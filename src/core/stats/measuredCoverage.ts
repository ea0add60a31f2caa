/**
 * What the coverage study measured (docs/meta-evaluation.md#coverage; `npm run coverage` writes the table below from
 * scripts/coverage/results.json — do not edit it by hand): for each family of statistics, interval method and number
 * of dialogue contexts, the lowest coverage of a nominal 95 % interval over the study's cells of that size, with its
 * Monte-Carlo standard error. An interval computed from fewer contexts than its method covers at is flagged in every
 * table (`coverageShortfall`).
 */
/** Families of statistics whose intervals behave alike. */
export type CoverageFamily = 'correlation' | 'difference' | 'agreement' | 'icc' | 'ceiling';

/** One measured cell. */
export interface MeasuredCoverage {
  family: CoverageFamily;
  /** An `IntervalMethod` of ./bootstrap (a string here, so that bootstrap.ts can import this file). */
  interval: string;
  contexts: number;
  /** Lowest coverage over the cells of this size (0–1). */
  coverage: number;
  /** Its Monte-Carlo standard error. */
  se: number;
}

// BEGIN GENERATED (scripts/coverage/run.ts)
export const MEASURED_COVERAGE: readonly MeasuredCoverage[] = [];
// END GENERATED

/** The goal of the study: a nominal 95 % interval covers at least this often (judged with two standard errors). */
export const COVERAGE_GOAL = 0.935;

/** An interval from too few contexts for its method: the size measured and the coverage found there. */
export interface CoverageShortfall {
  family: CoverageFamily;
  /** The measured size the interval's contexts fall back on (the largest measured size at or below them). */
  contexts: number;
  coverage: number;
  /** The interval's contexts are below the smallest size the study measured. */
  belowMeasured: boolean;
}

/**
 * Whether a nominal 95 % interval of `family` by `interval` from `clusters` contexts falls short of the goal: the
 * study's coverage at the largest measured size at or below `clusters` (the smallest measured size when there is
 * none) is below {@link COVERAGE_GOAL} by more than two standard errors. Null when it is not, when the level is not
 * 0.95 (not measured), or when nothing was measured for this family and method.
 */
export function coverageShortfall(family: CoverageFamily, interval: string, clusters: number, level: number, table: readonly MeasuredCoverage[] = MEASURED_COVERAGE): CoverageShortfall | null {
  if (Math.abs(level - 0.95) > 1e-9) return null;
  const rows = table.filter((r) => r.family === family && r.interval === interval).sort((a, b) => a.contexts - b.contexts);
  if (rows.length === 0) return null;
  const at = [...rows].reverse().find((r) => r.contexts <= clusters) ?? rows[0];
  if (at.coverage + 2 * at.se >= COVERAGE_GOAL) return null;
  return { family, contexts: at.contexts, coverage: at.coverage, belowMeasured: clusters < rows[0].contexts };
}

/** The shortfall in words, for a table's note. */
export function shortfallText(s: CoverageShortfall, clusters: number): string {
  return `${clusters} contexts${s.belowMeasured ? ` (fewer than the ${s.contexts} the coverage study measured)` : ''}: at ${s.contexts} contexts the study's nominal 95 % intervals covered ${(s.coverage * 100).toFixed(1)} %, too narrow`;
}
