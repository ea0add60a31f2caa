/**
 * The Figure 3 charts of docs/estimation.md: the experts' coherence rate per group from every expert label, beside
 * PPI++ from a uniform random fraction of them with the laypeople's labels on every candidate (and expert-only from
 * the same fraction).
 *
 *   npx tsx scripts/estimation/figure3.ts [fraction] [outDir]
 *
 * Writes `figure3-gem-grid.svg` (the first study's grid, generated: `generatedPools.ts` gemGridPool(15)) and
 * `figure3-evalreflections.svg` (the EvalReflections GPT-2 stage by source) to outDir (default docs/estimation), and
 * prints the numbers as a markdown table.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import seedrandom from 'seedrandom';
import type { DialogueItem } from '../../src/core/dialogue/types';
import { estimateSettings, StrataRun, stratumModels, anticipatedEstimateLabels } from '../../src/core/estimation/activePlan';
import { estimateChartSvg, type ChartRow } from '../../src/core/estimation/chart';
import { labelledStrata } from '../../src/core/estimation/simulate';
import { workingModelSettings } from '../../src/core/design/planSettings';
import { fixedSampleEstimates } from '../../src/core/estimation/fixedSample';
import { evalReflections, gemGridPool } from './generatedPools';

const fraction = Number(process.argv[2] ?? 0.3);
const outDir = process.argv[3] ?? join(__dirname, '..', '..', 'docs', 'estimation');

/** The items with the experts' labels kept on a seeded uniform `fraction` of the candidates. */
function subsample(items: readonly DialogueItem[], share: number, seed: string): DialogueItem[] {
  const rng = seedrandom.alea(seed);
  return items.map((it) => ({ ...it, candidates: it.candidates.map((c) => (rng() < share ? c : { ...c, annotations: c.annotations.filter((a) => a.group !== 'expert') })) }));
}

const planTarget = Number(process.argv[4] ?? 0.15);

/**
 * One estimate plan run to its stop on the fully labelled items (labels revealed only when drawn): per group its
 * anytime interval at the stop, and the labels it took.
 */
function planRun(items: DialogueItem[], by: string, seed: string) {
  const spec = { estimand: { kind: 'coherence-rate', aggregate: 'majority' } as const, predictors: ['human:laypeople'], by, labelsPerCandidate: 3 };
  const ls = labelledStrata(items, spec, 'the chart');
  const settings = estimateSettings({});
  const models = stratumModels(ls.pool, ls.strata, ls.scale, new Set(), ls.strata.map((st) => anticipatedEstimateLabels(planTarget, st.units.length, ls.scale, settings.level, settings.minLabels, false)));
  const rng = seedrandom.alea(seed);
  const clocks = ls.strata.map((st) => Float64Array.from(st.units, () => -Math.log(1 - rng())));
  const run = new StrataRun(models, clocks, { design: 'planner', batch: settings.batch, defensive: settings.defensive, ...workingModelSettings(settings, false) }, { level: settings.level, halfWidth: planTarget, minLabels: settings.minLabels });
  run.advance((st, u) => ls.levels[ls.strata[st].units[u]]);
  return { labels: run.labels, rows: ls.strata.map((st, j) => ({ key: st.key, estimate: run.stops[j]?.estimate ?? run.estimate(j), planned: run.plans[j].revealed, candidates: st.units.length })) };
}

function chart(name: string, items: DialogueItem[], by: string, title: string): string {
  const all = fixedSampleEstimates(items, { estimand: { kind: 'coherence-rate', aggregate: 'majority' }, predictors: ['human:laypeople'], by, labelsPerCandidate: 3 });
  const part = fixedSampleEstimates(subsample(items, fraction, `${name}-fraction`), { estimand: { kind: 'coherence-rate', aggregate: 'majority' }, predictors: ['human:laypeople'], by, labelsPerCandidate: 3 });
  const labelled = part.groups.reduce((a, g) => a + g.labelled, 0);
  const total = all.groups.reduce((a, g) => a + g.candidates, 0);
  const allRows: ChartRow[] = all.groups.map((g) => ({ key: g.key, value: g.classical?.estimate ?? null, lower: g.classical?.lower ?? null, upper: g.classical?.upper ?? null, note: `${g.candidates} candidates, all expert-labelled` }));
  const truth = new Map(all.groups.map((g) => [g.key, g.classical?.estimate ?? null]));
  const partRows: ChartRow[] = part.groups.map((g) => ({
    key: g.key,
    value: g.estimator?.estimate ?? null,
    lower: g.estimator?.lower ?? null,
    upper: g.estimator?.upper ?? null,
    secondary: g.classical ? { lower: g.classical.lower, upper: g.classical.upper } : null,
    reference: truth.get(g.key) ?? null,
    note: `${g.candidates} candidates, ${g.labelled} expert-labelled; λ ${g.estimator?.lambda.toFixed(2) ?? '—'}`,
  }));
  const plan = planRun(items, by, `${name}-plan`);
  const planRows: ChartRow[] = plan.rows.map((r) => ({ key: r.key, value: r.estimate.value, lower: r.estimate.lower, upper: r.estimate.upper, reference: truth.get(r.key) ?? null, note: `${r.candidates} candidates, ${r.planned} expert labels planned${r.estimate.exact ? ' (all: exact)' : ''}` }));
  const svg = estimateChartSvg(
    [
      { title: `All ${total} candidates expert-labelled`, subtitle: 'share majority-coherent, 95 % interval', rows: allRows },
      { title: `${labelled} expert labels (${Math.round((100 * labelled) / total)} %) + laypeople on all`, subtitle: 'uniform sample; PPI++ 95 % interval', rows: partRows },
      { title: `${plan.labels} expert labels (${Math.round((100 * plan.labels) / total)} %) + laypeople on all`, subtitle: `estimate plan to ± ${planTarget}; 95 % anytime interval`, rows: planRows },
    ],
    {
      title,
      background: '#ffffff',
      axisLabel: "experts' coherence rate (majority vote)",
      legend: [
        `Middle: blue = PPI++ (laypeople's majority as the predictor, power-tuned λ) from a uniform ${Math.round(fraction * 100)} % sample of expert labels; grey = expert-only from the same labels;`,
        'no interval: fewer than 10 expert-labelled candidates in the group. Right: one run of the estimate plan (--by, ± target per group, active selection, laypeople',
        'as the predictor), stopped when every group reached the target; a group labelled whole is exact. Orange tick = the all-labels rate.',
      ],
    },
  );
  mkdirSync(outDir, { recursive: true });
  writeFileSync(join(outDir, `figure3-${name}.svg`), svg);
  const f = (v: number | null | undefined) => (v === null || v === undefined ? '—' : v.toFixed(3));
  const lines = [`| ${by} | candidates | all labels | expert labels used | PPI++ [95 %] | width | expert-only [95 %] | width |`, '|---|---|---|---|---|---|---|---|'];
  part.groups.forEach((g, j) => {
    const e = g.estimator;
    const c = g.classical;
    lines.push(`| ${g.key} | ${g.candidates} | ${f(all.groups[j].classical?.estimate)} | ${g.labelled} | ${e ? `${f(e.estimate)} [${f(e.lower)}, ${f(e.upper)}]` : '—'} | ${e ? f(e.upper - e.lower) : '—'} | ${c ? `${f(c.estimate)} [${f(c.lower)}, ${f(c.upper)}]` : '—'} | ${c ? f(c.upper - c.lower) : '—'} |`);
  });
  lines.push('', `Estimate plan to ± ${planTarget} per group: ${plan.labels} expert labels of ${total}.`, '', `| ${by} | candidates | all labels | planned labels | plan estimate [95 % anytime] |`, '|---|---|---|---|---|');
  plan.rows.forEach((r, j) => lines.push(`| ${r.key} | ${r.candidates} | ${f(all.groups[j].classical?.estimate)} | ${r.planned} | ${f(r.estimate.value)}${r.estimate.exact ? ' (exact)' : ` [${f(r.estimate.lower)}, ${f(r.estimate.upper)}]`} |`));
  return lines.join('\n');
}

console.log(`## GEM 2022 grid (generated, 15 contexts), ${fraction * 100} % of candidates expert-labelled\n`);
console.log(chart('gem-grid', gemGridPool(15, 'gem-grid'), 'strategy', 'Coherence rate per decoding strategy (first study, Figure 3) — generated GEM 2022 grid, 15 contexts'));
console.log(`\n## EvalReflections GPT-2 stage by source, ${fraction * 100} % of candidates expert-labelled\n`);
console.log(chart('evalreflections', evalReflections(), 'origin', 'Coherence rate per source — EvalReflections GPT-2 stage (real labels)'));
