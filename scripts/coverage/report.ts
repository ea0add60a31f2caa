/**
 * The coverage study's results as Markdown tables (method × cell): coverage of nominal 95 % intervals, or the
 * rejection rate of tests at 5 % under a true null, each with its Monte-Carlo standard error.
 */
import type { Tallies } from './study';

interface Cell {
  id: string;
  family: string;
  label: string;
  sims: number;
  contexts: number;
  truth?: unknown;
  workerSeconds?: number;
  tallies?: Tallies;
}

export interface Results {
  settings: { resamples: number; level: number; alpha: number; seed: string; scale: number; workers: number };
  /** Wall time of the run; null when the report was made from cached chunks (`--cached`). */
  wallSeconds: number | null;
  cells: Cell[];
}

const INTERVAL_NAME: Record<string, string> = { percentile: 'percentile', bca: 'BCa', 'expanded-percentile': 'expanded percentile', 'expanded-bca': 'expanded BCa' };

/** "94.3 (0.5)": the share in percent and its Monte-Carlo standard error; `!` when the goal is missed beyond 2 SE. */
function rate(t: Tallies[string] | undefined, goal: 'coverage' | 'type-i' | 'anytime'): string {
  if (!t || t.defined === 0) return '–';
  const p = t.hits / t.defined;
  const se = Math.sqrt(Math.max(p * (1 - p), 1 / t.defined) / t.defined);
  let flag = '';
  if (goal === 'coverage' && p + 2 * se < 0.935) flag = ' ▼';
  if (goal === 'coverage' && p - 2 * se > 0.965) flag = ' ▲';
  if (goal === 'type-i' && p - 2 * se > 0.055) flag = ' ▼';
  if (goal === 'anytime' && p + 2 * se < 0.95) flag = ' ▼';
  const undef = t.undefined ? ` [${t.undefined} undef.]` : '';
  return `${(100 * p).toFixed(1)} (${(100 * se).toFixed(1)})${flag}${undef}`;
}

function width(t: Tallies[string] | undefined): string {
  return t && t.defined ? (t.widthSum / t.defined).toFixed(3) : '–';
}

function table(cells: Cell[], rows: { name: string; key: string; goal: 'coverage' | 'type-i' | 'anytime' }[], header: (c: Cell) => string): string {
  const present = rows.filter((r) => cells.some((c) => c.tallies?.[r.key]));
  if (present.length === 0 || cells.length === 0) return '';
  return [
    `| method | ${cells.map(header).join(' | ')} |`,
    `|---|${cells.map(() => '---:').join('|')}|`,
    ...present.map((r) => `| ${r.name} | ${cells.map((c) => rate(c.tallies?.[r.key], r.goal)).join(' | ')} |`),
  ].join('\n');
}

function intervals(name: string, key: string, methods = ['percentile', 'bca', 'expanded-percentile', 'expanded-bca']) {
  return methods.map((m) => ({ name: `${name}, ${INTERVAL_NAME[m]}`, key: `${key}/${m}`, goal: 'coverage' as const }));
}

/** Markdown: one table per family, then the widths of ρ's intervals, then the cells and their cost. */
export function renderReport(r: Results): string {
  const of = (family: string) => r.cells.filter((c) => c.family === family);
  const binaryHeader = (c: Cell) => c.id.replace(/^binary-(\d+)-(\d+)(-judge)?$/, (_, m, b, j) => `${m} ctx, ${b} %${j ? ', judge 1–5' : ''}`);
  const out: string[] = [];
  out.push(
    `Nominal 95 % intervals (coverage, %) and 5 % tests (rejections of a true null, %), each with its Monte-Carlo standard error in brackets; ▼ marks a miss of the goal (intervals 93.5–96.5 %, tests ≤ 5.5 %, the planner ≥ 95 %) by more than two standard errors, ▲ an interval wider than it needs to be. B = ${r.settings.resamples} bootstrap resamples, seed prefix \`${r.settings.seed}\`${r.settings.scale !== 1 ? `, simulations × ${r.settings.scale}` : ''}.`,
    '',
    '**Correlation table, agreement coefficients and comparisons (binary coherence labels)** — intervals resample contexts (clusters) unless "plain":',
    '',
    table(
      of('binary'),
      [
        ...intervals("Spearman's ρ", 'rho'),
        ...intervals("Kendall's τ-b", 'tau'),
        ...intervals("Pearson's r", 'r'),
        ...intervals("Spearman's ρ, plain bootstrap over responses", 'rho-plain', ['percentile', 'expanded-percentile']),
        ...intervals('ρ_A − ρ_B (equal evaluators), paired bootstrap', 'diff'),
        ...intervals("Fleiss' κ", 'fleiss'),
        ...intervals("Krippendorff's α (nominal)", 'alpha'),
        ...intervals("Gwet's AC1", 'ac1'),
        { name: "test ρ_A = ρ_B: Williams' t", key: 'williams', goal: 'type-i' },
        { name: "test ρ_A = ρ_B: Steiger's z", key: 'steiger', goal: 'type-i' },
        // The default p is calibrated like the expanded intervals: it rejects when the expanded percentile interval of
        // ρ_A − ρ_B above excludes 0 (up to the +1 correction and the percentiles' interpolation,
        // expandedBootstrapPValue), so its type-I error is about 100 − that row's coverage.
        { name: 'test ρ_A = ρ_B: paired bootstrap p, uncalibrated (2 × the share beyond 0; the default before)', key: 'diff-bootstrap-p', goal: 'type-i' },
      ],
      binaryHeader,
    ),
    '',
    '**Tests without a bootstrap, at a true null** (two equally good evaluators; an evaluator that knows nothing):',
    '',
    table(
      of('tests'),
      [
        { name: "ρ_A = ρ_B: Williams' t (responses as independent)", key: 'williams', goal: 'type-i' },
        { name: "ρ_A = ρ_B: Steiger's z (responses as independent)", key: 'steiger', goal: 'type-i' },
        { name: 'ρ_A = ρ_B: cluster-jackknife t, m − 1 df', key: 'diff-jackknife', goal: 'type-i' },
        { name: "ρ = 0: the table's p (scipy's t-test, responses as independent)", key: 'rho-p', goal: 'type-i' },
        { name: 'ρ = 0: cluster-jackknife t, m − 1 df', key: 'rho-jackknife', goal: 'type-i' },
      ],
      (c) => c.id.replace(/^tests-(\d+)-(\d+)$/, '$1 ctx, $2 %'),
    ),
    '',
    "**A cell's significance when the evaluator knows nothing** (ρ = 0; rejections at 5 %):",
    '',
    table(
      of('null'),
      [
        { name: "the table's p (scipy's t-test, responses as independent)", key: 'rho-p', goal: 'type-i' },
        { name: 'the cluster-bootstrap p', key: 'rho-bootstrap-p', goal: 'type-i' },
        ...['percentile', 'bca', 'expanded-percentile', 'expanded-bca'].map((m) => ({ name: `the ${INTERVAL_NAME[m]} interval excludes 0`, key: `rho/${m}-excludes-0`, goal: 'type-i' as const })),
      ],
      (c) => `${c.contexts} contexts`,
    ),
    '',
    '**The human ceiling** (mean over annotators of one annotator against the rest, Spearman):',
    '',
    table(of('ceiling'), intervals('ceiling', 'ceiling', ['percentile', 'expanded-bca']), (c) => `${c.contexts} ctx, 70 %`),
    '',
    '**1–5 ratings** (empathy-like):',
    '',
    table(of('rating'), [...intervals("Krippendorff's α (ordinal)", 'alpha-ordinal'), ...intervals("Gwet's AC1 (5 categories)", 'ac1-5'), ...intervals('ICC(1,1)', 'icc1'), ...intervals('ICC(1,k)', 'icc1k')], (c) => `${c.contexts} contexts`),
    '',
    "**Judge repeatability: the mean of 5 replies' ρ with the human score**:",
    '',
    table(
      of('repeatability'),
      [
        { name: 'two-stage, recentred, expanded (the default since issue 40)', key: 'two-stage-expanded', goal: 'coverage' },
        { name: 'two-stage, recentred (the default before)', key: 'two-stage', goal: 'coverage' },
        { name: 'two-stage, plain percentile', key: 'two-stage-uncentred', goal: 'coverage' },
        { name: 'items only (replies fixed)', key: 'item-only', goal: 'coverage' },
      ],
      (c) => `${c.contexts} contexts`,
    ),
    '',
    "**The labelling planner's anytime interval** (the pool's value; every run labels the whole pool in planned order):",
    '',
    table(
      [...of('planner-single'), ...of('planner-pair')],
      [
        { name: 'covered at every look from the 20th label on', key: 'planner-always', goal: 'anytime' },
        { name: 'covered at the stop for half-width 0.15', key: 'planner-stop-0.15', goal: 'anytime' },
        { name: 'covered at the stop for half-width 0.10', key: 'planner-stop-0.10', goal: 'anytime' },
        { name: 'covered at the stop of `--target decide`', key: 'planner-decide', goal: 'anytime' },
      ],
      (c) => (c.family === 'planner-pair' ? 'pair, 150 candidates' : 'one evaluator, 150 candidates'),
    ),
    '',
    '**The alternative annotator test at the boundary of its null** (the evaluator is exactly ε = 0.2 behind every annotator):',
    '',
    table(
      of('alt-test'),
      [
        { name: "per-annotator test rejects at 5 % (share of tests): the paper's t over instances", key: 'alt-annotator', goal: 'type-i' },
        { name: 'per-annotator test: cluster-jackknife t over contexts (the default)', key: 'alt-annotator-jackknife', goal: 'type-i' },
        { name: 'BY wins against any annotator (FDR; every null true): t', key: 'alt-any-win', goal: 'type-i' },
        { name: 'BY wins against any annotator: cluster jackknife', key: 'alt-any-win-jackknife', goal: 'type-i' },
        { name: 'the evaluator passes (ω ≥ 0.5): t', key: 'alt-passes', goal: 'type-i' },
        { name: 'the evaluator passes: cluster jackknife', key: 'alt-passes-jackknife', goal: 'type-i' },
      ],
      (c) => c.id.replace(/^alt-test-(\d+)-(\d+)$/, '$1 ctx, $2 %'),
    ),
    '',
    "**Mean width of Spearman's ρ intervals** (what the expansion costs):",
    '',
    [
      `| interval | ${of('binary').map(binaryHeader).join(' | ')} |`,
      `|---|${of('binary').map(() => '---:').join('|')}|`,
      ...['percentile', 'bca', 'expanded-percentile', 'expanded-bca'].map((m) => `| ${INTERVAL_NAME[m]} | ${of('binary').map((c) => width(c.tallies?.[`rho/${m}`])).join(' | ')} |`),
    ].join('\n'),
    '',
    '**The cells** (truth from one study of 100,000 contexts of the same design; worker seconds on this machine):',
    '',
    '| cell | design | simulations | truth | seconds |',
    '|---|---|---:|---|---:|',
    ...r.cells.map((c) => `| ${c.id} | ${c.label} | ${c.sims} | ${truthText(c.truth)} | ${(c.workerSeconds ?? 0).toFixed(0)} |`),
  );
  return out.filter((l, i, a) => !(l === '' && a[i - 1] === '')).join('\n');
}

function truthText(t: unknown): string {
  if (!t || typeof t !== 'object') return '–';
  const flat: string[] = [];
  const walk = (o: Record<string, unknown>, prefix = '') => {
    for (const [k, v] of Object.entries(o)) {
      if (typeof v === 'number') flat.push(`${prefix}${k} ${v.toFixed(3)}`);
      else if (v && typeof v === 'object') walk(v as Record<string, unknown>, '');
    }
  };
  walk(t as Record<string, unknown>);
  return flat.join(', ') || '–';
}

/** Which family of statistics a tally key's interval belongs to (src/core/stats/measuredCoverage.ts). */
function familyOf(key: string): string | null {
  const stat = key.split('/')[0];
  if (['rho', 'tau', 'r'].includes(stat)) return 'correlation';
  if (stat === 'diff') return 'difference';
  if (['fleiss', 'alpha', 'ac1', 'alpha-ordinal', 'ac1-5'].includes(stat)) return 'agreement';
  if (['icc1', 'icc1k'].includes(stat)) return 'icc';
  if (stat === 'ceiling') return 'ceiling';
  return null;
}

/**
 * The table of src/core/stats/measuredCoverage.ts: per family, interval method and contexts, the lowest coverage over
 * the cells of that size (and its Monte-Carlo standard error), as TypeScript source.
 */
export function measuredCoverageSource(r: Results): string {
  const rows = new Map<string, { family: string; interval: string; contexts: number; coverage: number; se: number }>();
  for (const c of r.cells) {
    for (const [key, t] of Object.entries(c.tallies ?? {})) {
      const family = familyOf(key);
      const interval = key.split('/')[1];
      if (!family || !interval || !/^(percentile|bca|expanded-percentile|expanded-bca)$/.test(interval) || t.defined === 0) continue;
      const p = t.hits / t.defined;
      const se = Math.sqrt(Math.max(p * (1 - p), 1 / t.defined) / t.defined);
      const k = `${family}/${interval}/${c.contexts}`;
      const prev = rows.get(k);
      if (!prev || p < prev.coverage) rows.set(k, { family, interval, contexts: c.contexts, coverage: p, se });
    }
  }
  const sorted = [...rows.values()].sort((a, b) => a.family.localeCompare(b.family) || a.interval.localeCompare(b.interval) || a.contexts - b.contexts);
  return [
    'export const MEASURED_COVERAGE: readonly MeasuredCoverage[] = [',
    ...sorted.map((x) => `  { family: '${x.family}', interval: '${x.interval}', contexts: ${x.contexts}, coverage: ${x.coverage.toFixed(4)}, se: ${x.se.toFixed(4)} },`),
    '];',
  ].join('\n');
}
