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
export const MEASURED_COVERAGE: readonly MeasuredCoverage[] = [
  { family: 'agreement', interval: 'bca', contexts: 10, coverage: 0.8780, se: 0.0073 },
  { family: 'agreement', interval: 'bca', contexts: 15, coverage: 0.9035, se: 0.0066 },
  { family: 'agreement', interval: 'bca', contexts: 30, coverage: 0.9180, se: 0.0061 },
  { family: 'agreement', interval: 'bca', contexts: 100, coverage: 0.9360, se: 0.0055 },
  { family: 'agreement', interval: 'expanded-bca', contexts: 10, coverage: 0.9180, se: 0.0061 },
  { family: 'agreement', interval: 'expanded-bca', contexts: 15, coverage: 0.9280, se: 0.0058 },
  { family: 'agreement', interval: 'expanded-bca', contexts: 30, coverage: 0.9370, se: 0.0054 },
  { family: 'agreement', interval: 'expanded-bca', contexts: 100, coverage: 0.9410, se: 0.0053 },
  { family: 'agreement', interval: 'expanded-percentile', contexts: 10, coverage: 0.9100, se: 0.0064 },
  { family: 'agreement', interval: 'expanded-percentile', contexts: 15, coverage: 0.9155, se: 0.0062 },
  { family: 'agreement', interval: 'expanded-percentile', contexts: 30, coverage: 0.9335, se: 0.0056 },
  { family: 'agreement', interval: 'expanded-percentile', contexts: 100, coverage: 0.9380, se: 0.0054 },
  { family: 'agreement', interval: 'percentile', contexts: 10, coverage: 0.8595, se: 0.0078 },
  { family: 'agreement', interval: 'percentile', contexts: 15, coverage: 0.8875, se: 0.0071 },
  { family: 'agreement', interval: 'percentile', contexts: 30, coverage: 0.9185, se: 0.0061 },
  { family: 'agreement', interval: 'percentile', contexts: 100, coverage: 0.9335, se: 0.0056 },
  { family: 'ceiling', interval: 'expanded-bca', contexts: 15, coverage: 0.9385, se: 0.0054 },
  { family: 'ceiling', interval: 'expanded-bca', contexts: 30, coverage: 0.9490, se: 0.0070 },
  { family: 'ceiling', interval: 'percentile', contexts: 15, coverage: 0.9140, se: 0.0063 },
  { family: 'ceiling', interval: 'percentile', contexts: 30, coverage: 0.9390, se: 0.0076 },
  { family: 'correlation', interval: 'bca', contexts: 10, coverage: 0.8965, se: 0.0068 },
  { family: 'correlation', interval: 'bca', contexts: 15, coverage: 0.9105, se: 0.0064 },
  { family: 'correlation', interval: 'bca', contexts: 30, coverage: 0.9140, se: 0.0063 },
  { family: 'correlation', interval: 'bca', contexts: 100, coverage: 0.9325, se: 0.0056 },
  { family: 'correlation', interval: 'expanded-bca', contexts: 10, coverage: 0.9415, se: 0.0052 },
  { family: 'correlation', interval: 'expanded-bca', contexts: 15, coverage: 0.9410, se: 0.0053 },
  { family: 'correlation', interval: 'expanded-bca', contexts: 30, coverage: 0.9330, se: 0.0056 },
  { family: 'correlation', interval: 'expanded-bca', contexts: 100, coverage: 0.9375, se: 0.0054 },
  { family: 'correlation', interval: 'expanded-percentile', contexts: 10, coverage: 0.9480, se: 0.0050 },
  { family: 'correlation', interval: 'expanded-percentile', contexts: 15, coverage: 0.9450, se: 0.0051 },
  { family: 'correlation', interval: 'expanded-percentile', contexts: 30, coverage: 0.9370, se: 0.0054 },
  { family: 'correlation', interval: 'expanded-percentile', contexts: 100, coverage: 0.9415, se: 0.0052 },
  { family: 'correlation', interval: 'percentile', contexts: 10, coverage: 0.9065, se: 0.0065 },
  { family: 'correlation', interval: 'percentile', contexts: 15, coverage: 0.9160, se: 0.0062 },
  { family: 'correlation', interval: 'percentile', contexts: 30, coverage: 0.9200, se: 0.0061 },
  { family: 'correlation', interval: 'percentile', contexts: 100, coverage: 0.9370, se: 0.0054 },
  { family: 'difference', interval: 'bca', contexts: 10, coverage: 0.8965, se: 0.0068 },
  { family: 'difference', interval: 'bca', contexts: 15, coverage: 0.9160, se: 0.0062 },
  { family: 'difference', interval: 'bca', contexts: 30, coverage: 0.9190, se: 0.0061 },
  { family: 'difference', interval: 'bca', contexts: 100, coverage: 0.9450, se: 0.0051 },
  { family: 'difference', interval: 'expanded-bca', contexts: 10, coverage: 0.9355, se: 0.0055 },
  { family: 'difference', interval: 'expanded-bca', contexts: 15, coverage: 0.9480, se: 0.0050 },
  { family: 'difference', interval: 'expanded-bca', contexts: 30, coverage: 0.9375, se: 0.0054 },
  { family: 'difference', interval: 'expanded-bca', contexts: 100, coverage: 0.9480, se: 0.0050 },
  { family: 'difference', interval: 'expanded-percentile', contexts: 10, coverage: 0.9480, se: 0.0050 },
  { family: 'difference', interval: 'expanded-percentile', contexts: 15, coverage: 0.9540, se: 0.0047 },
  { family: 'difference', interval: 'expanded-percentile', contexts: 30, coverage: 0.9445, se: 0.0051 },
  { family: 'difference', interval: 'expanded-percentile', contexts: 100, coverage: 0.9500, se: 0.0049 },
  { family: 'difference', interval: 'percentile', contexts: 10, coverage: 0.9095, se: 0.0064 },
  { family: 'difference', interval: 'percentile', contexts: 15, coverage: 0.9200, se: 0.0061 },
  { family: 'difference', interval: 'percentile', contexts: 30, coverage: 0.9255, se: 0.0059 },
  { family: 'difference', interval: 'percentile', contexts: 100, coverage: 0.9470, se: 0.0050 },
  { family: 'icc', interval: 'bca', contexts: 10, coverage: 0.8920, se: 0.0069 },
  { family: 'icc', interval: 'bca', contexts: 15, coverage: 0.8980, se: 0.0068 },
  { family: 'icc', interval: 'bca', contexts: 30, coverage: 0.9190, se: 0.0061 },
  { family: 'icc', interval: 'bca', contexts: 100, coverage: 0.9420, se: 0.0052 },
  { family: 'icc', interval: 'expanded-bca', contexts: 10, coverage: 0.9360, se: 0.0055 },
  { family: 'icc', interval: 'expanded-bca', contexts: 15, coverage: 0.9290, se: 0.0057 },
  { family: 'icc', interval: 'expanded-bca', contexts: 30, coverage: 0.9330, se: 0.0056 },
  { family: 'icc', interval: 'expanded-bca', contexts: 100, coverage: 0.9470, se: 0.0050 },
  { family: 'icc', interval: 'expanded-percentile', contexts: 10, coverage: 0.9370, se: 0.0054 },
  { family: 'icc', interval: 'expanded-percentile', contexts: 15, coverage: 0.9265, se: 0.0058 },
  { family: 'icc', interval: 'expanded-percentile', contexts: 30, coverage: 0.9270, se: 0.0058 },
  { family: 'icc', interval: 'expanded-percentile', contexts: 100, coverage: 0.9460, se: 0.0051 },
  { family: 'icc', interval: 'percentile', contexts: 10, coverage: 0.8955, se: 0.0068 },
  { family: 'icc', interval: 'percentile', contexts: 15, coverage: 0.8955, se: 0.0068 },
  { family: 'icc', interval: 'percentile', contexts: 30, coverage: 0.9135, se: 0.0063 },
  { family: 'icc', interval: 'percentile', contexts: 100, coverage: 0.9415, se: 0.0052 },
];
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
