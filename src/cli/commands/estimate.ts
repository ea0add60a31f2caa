/**
 * `reflect-eval estimate`: expert-level answers from cheap labels (issue 43; docs/estimation.md). The experts'
 * coherence rate, an error category's share or a mean rating — per group (`--by strategy`) or as a difference
 * between two groups — estimated from expert labels on a few candidates and predictions on all of them (another
 * group's labels, `human:laypeople`, or evaluators' scores), with which candidates the experts should label next.
 *
 * Modes:
 * - default: the estimate plan (sequential, active, anytime-valid): starts or replays the plan kept in
 *   `<file>.estimate-plan.json` (one record format with `plan-labels`), prints the estimate per group, the labels to
 *   go for ± h and the next candidates;
 * - `--fixed-sample`: PPI++ (ppi_py's estimator) from the expert labels already there, taken as a uniform random
 *   sample, with the expert-only estimate beside it; `--chart` writes the per-group chart (SVG);
 * - `--simulate`: replays plans on a fully labelled file (`--format json` prints exactly
 *   `{"targets":[{"halfWidth","estimator","classical"}],"coverage"}`);
 * - `--bound`: the fewest expert labels the estimator could need with the predictor known in advance.
 * Read-only on the dialogue file.
 */
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { InvalidArgumentError, type Command } from 'commander';
import type { EstimatePlanState } from '../../core/estimation/activePlan';
import { estimateBound, type EstimateBoundResult } from '../../core/estimation/bound';
import { estimateChartSvg } from '../../core/estimation/chart';
import { parseEstimand } from '../../core/estimation/estimands';
import { loadRubric } from '../../core/rubric/rubricFile';
import { fixedSampleEstimates, type FixedSampleResult } from '../../core/estimation/fixedSample';
import { simulateEstimates, type EstimateSimulationResult } from '../../core/estimation/simulate';
import type { HumanGroup } from '../../core/labels/groups';
import { EstimatePlanMismatchError } from '../../core/jobs/estimate';
import { MemorySink } from '../../core/jobs/memorySink';
import { runPlan, validatePlan, type FileJobPlan } from '../../core/jobs/plans';
import { cliHost, printReport } from '../host';
import { log, oneOf, openDialogues, positiveInt, unitInterval } from '../common';
import { resolveEvaluator } from './correlate';

function halfWidthValue(v: string, prev: number[] = []): number[] {
  const n = Number(v);
  if (!(n > 0)) throw new InvalidArgumentError('a target is a positive half-width, e.g. 0.1');
  return [...prev, n];
}

const fmt = (v: number | null | undefined, digits = 3) => (v === null || v === undefined || Number.isNaN(v) ? '—' : v.toFixed(digits).replace(/^-/, '−'));
const pct = (v: number) => `${Math.round(v * 1000) / 10} %`;

/** Plain-text state of an estimate plan. */
export function estimatePlanText(state: EstimatePlanState, next: number): string {
  const r = state.record;
  const level = pct(r.level);
  const lines: string[] = [];
  const what = r.compare ? `the difference ${r.compare[0]} − ${r.compare[1]} of the ${r.human}' ${state.estimand}` : `the ${r.human}' ${state.estimand}${r.by ? ` per ${r.by}` : ''}`;
  lines.push(`Estimate plan: ${what}, predicted by ${r.predictors.join(', ') || 'nothing (expert-only)'} (${r.labelsPerCandidate} labels make a candidate labelled; ${r.design} design, seed ${r.seed})`);
  const c = state.counts;
  lines.push(`pool: ${c.pool} candidates in ${c.items} items; labelled at the start ${c.start}, planned labels counted ${c.planned}, drawn and not yet counted ${c.drawn}, labelled outside the plan ${c.outsidePlan}, partly labelled ${c.partial}`);
  const w = Math.max(5, ...state.strata.map((s) => s.key.length));
  lines.push(`${'group'.padEnd(w)}  candidates  labelled  estimate  ${level} anytime interval  labels to go`);
  for (const s of state.strata) {
    const e = s.estimate;
    const interval = e.exact ? 'exact' : e.value === null ? 'not yet' : `[${fmt(e.lower)}, ${fmt(e.upper)}] ±${fmt(e.halfWidth)}`;
    const togo = s.stop ? (s.stop.reason === 'exhausted' ? 'done (all labelled)' : `done (after ${s.stop.labels})`) : s.labelsToGo === null ? 'unknown yet' : `about ${s.labelsToGo}`;
    lines.push(`${s.key.padEnd(w)}  ${String(s.candidates).padStart(10)}  ${String(s.start + s.planned).padStart(8)}  ${fmt(e.value).padStart(8)}  ${interval.padEnd(level.length + 18)}  ${togo}`);
  }
  lines.push(state.stopped ? `target: half-width ${r.halfWidth} — STOP: every group reached it (or is fully labelled)` : `target: half-width ${r.halfWidth} in every group — not reached; labels to go: ${state.labelsToGo === null ? 'unknown yet' : `about ${state.labelsToGo}`}${c.planned < r.minLabels ? ` (no stop before ${r.minLabels} planned labels in a group)` : ''}`);
  const todo = state.order.filter((o) => !o.labelled).slice(0, next);
  if (!state.stopped && todo.length > 0) {
    lines.push('next candidates (label in this order; "drawn" ones are fixed, the rest may change as labels come in):');
    const iw = Math.max(...todo.map((o) => o.itemId.length));
    todo.forEach((o, i) => lines.push(`${String(i + 1).padStart(4)}. item ${o.itemId.padEnd(iw)}  candidate ${o.candidateId}  ${o.status}${o.groupLabels ? ` (${o.groupLabels}/${r.labelsPerCandidate} labels)` : ''}`));
  }
  return lines.join('\n') + '\n';
}

/** Plain-text fixed-sample estimates. */
export function fixedSampleText(r: FixedSampleResult): string {
  const level = pct(1 - r.alpha);
  const lines = [`${r.human}' ${r.estimand}: PPI++ from the expert labels present (taken as a uniform random sample), predicted by ${r.predictors.join(', ')} (calibration: ${r.calibration.kind}${r.calibration.folds ? `, ${r.calibration.folds}-fold cross-fitted on ${r.calibration.columns.join(', ')}` : ''}); ${level} intervals`];
  const w = Math.max(5, ...r.groups.map((g) => g.key.length), r.difference?.key.length ?? 0);
  lines.push(`${'group'.padEnd(w)}  candidates  labelled  PPI++ estimate [interval] (λ)            expert-only [interval]`);
  const cell = (e: { estimate: number; lower: number; upper: number; lambda?: number } | null) => (e ? `${fmt(e.estimate)} [${fmt(e.lower)}, ${fmt(e.upper)}]${e.lambda !== undefined ? ` (λ ${fmt(e.lambda, 2)})` : ''}` : '— (too few labelled or unlabelled)');
  for (const g of r.groups) lines.push(`${g.key.padEnd(w)}  ${String(g.candidates).padStart(10)}  ${String(g.labelled).padStart(8)}  ${cell(g.estimator).padEnd(40)}  ${cell(g.classical)}`);
  if (r.difference) {
    const d = r.difference;
    lines.push(`${d.key.padEnd(w)}  ${d.paired ? `paired over ${d.sharedContexts} shared contexts` : 'unpaired'}: ${cell(d.estimator)}; expert-only ${cell(d.classical)}`);
  }
  return lines.join('\n') + '\n';
}

/** Plain-text simulation summary. */
export function estimateSimulationText(r: EstimateSimulationResult): string {
  const lines = [`${r.runs} simulated label orders per estimator on ${r.pool} fully labelled candidates: ${r.human}' ${r.estimand}, predicted by ${r.predictors.join(', ')}`];
  lines.push(`groups: ${r.strata.map((s) => `${s.key} (${s.candidates}, value ${fmt(s.value)})`).join('; ')}`);
  lines.push('half-width  estimator (active)  random order, same predictors  expert-only  fewer than expert-only   coverage estimator/random/expert-only');
  for (const t of r.targets) {
    const e = t.estimator;
    const ra = t.random;
    const c = t.classical;
    lines.push(`${String(t.halfWidth).padStart(10)}  ${e ? `${e.labels.toFixed(1)} ± ${e.labelsSe.toFixed(1)}`.padStart(18) : '—'.padStart(18)}  ${ra ? `${ra.labels.toFixed(1)} ± ${ra.labelsSe.toFixed(1)}`.padStart(29) : '—'.padStart(29)}  ${c ? `${c.labels.toFixed(1)}`.padStart(11) : '—'.padStart(11)}  ${e && c ? pct(1 - e.labels / c.labels).padStart(22) : '—'.padStart(22)}   ${[e, ra, c].map((x) => (x ? x.coverage.toFixed(3) : '—')).join('/')}`);
  }
  lines.push(`coverage (estimator, every group, run and half-width): ${r.coverage.toFixed(3)}`);
  return lines.join('\n') + '\n';
}

/** Plain-text bound. */
export function estimateBoundText(r: EstimateBoundResult): string {
  const lines = [
    `the fewest expert labels for ${r.estimand}, predicted by ${r.predictors.join(', ')}, on ${r.pool} fully labelled candidates: the estimator with the predictor's calibration known in advance (oracle) and its best design, against expert-only`,
    ...r.strata.map((s) => `  ${s.key}: ${s.candidates} candidates, value ${fmt(s.value)}; calibration model bandwidth ${s.model.bandwidth}, prior ${s.model.prior} (leave-one-out log score ${fmt(s.logScore)}; level shares alone ${fmt(s.marginalLogScore)})`),
    'half-width  anytime: oracle  expert-only  fewer    fixed-n: Godambe–Joshi (Neyman)  random order  expert-only',
  ];
  for (const t of r.targets) lines.push(`${String(t.halfWidth).padStart(10)}  ${t.estimator.toFixed(1).padStart(15)}  ${t.classical.toFixed(1).padStart(11)}  ${pct(t.saving).padStart(6)}    ${t.fixedNeyman.toFixed(1).padStart(30)}  ${t.fixedRandom.toFixed(1).padStart(12)}  ${t.fixedClassical.toFixed(1).padStart(11)}`);
  return lines.join('\n') + '\n';
}

export function registerEstimate(program: Command): void {
  program
    .command('estimate <file>')
    .description('expert-level estimates from cheap labels: the experts\' coherence rate, an error\'s share or a mean rating per group (or a difference between two), from expert labels on a few candidates and predictions on all (laypeople\'s labels, evaluators); which candidates the experts should label next, with an anytime-valid interval and labels to go (docs/estimation.md)')
    .option('--estimand <estimand>', 'coherence-rate (majority vote), coherence-rate:mean (share of labels), error-share:<malformed|parroting|hallucinatory|other|noMajority>, rating-mean:empathy (or empathy), rating-mean:<an ordinal or numeric dimension of the study\'s rubric>', 'coherence-rate')
    .option('--by <key>', 'one estimate per group: strategy (decoding strategy, GEM 2022 Figure 3), origin, model, source, kind, stage, or a field path')
    .option('--groups <group...>', 'only these groups of --by')
    .option('--compare <groups...>', 'the difference between two groups of --by (first − second)')
    .option('--human <group>', 'whose labels are estimated: experts | laypeople | all', oneOf(['experts', 'laypeople', 'all'] as const), 'experts')
    .option('--predictor <predictor...>', 'what predicts them: human:laypeople (another group\'s labels), evaluators (id or name), several at once')
    .option('--target <h...>', 'interval half-width (e.g. 0.1); --simulate and --bound take several', halfWidthValue)
    .option('--labels-per-candidate <n>', 'labels of the group that make a candidate labelled (default: the most common count, else 3)', positiveInt)
    .option('--next <n>', 'candidates to print', positiveInt, 10)
    .option('--seed <seed>', 'seed of the design (new plans and simulations) and of the cross-fitting folds', '1')
    .option('--level <level>', 'confidence level', unitInterval, 0.95)
    .option('--batch <n>', 'draws per batch (the model is refitted between batches)', positiveInt, 5)
    .option('--min-labels <n>', 'no stop in a group before this many planned labels', positiveInt, 20)
    .option('--record <file>', 'the plan record (default: <file>.estimate-plan.json beside the dialogue file)')
    .option('--no-record', 'do not read or write a record: a new plan from the current labels')
    .option('--restart', 'start a new plan (overwrite the record)')
    .option('--fixed-sample', 'PPI++ from the expert labels already there, taken as a uniform random sample (no plan), beside expert-only')
    .option('--calibration <kind>', 'with --fixed-sample: none (a single human predictor as is) or linear (cross-fitted; evaluators, several predictors)', oneOf(['none', 'linear'] as const))
    .option('--pairing <kind>', 'with --fixed-sample --compare: auto (paired when the groups share contexts), paired, unpaired', oneOf(['auto', 'paired', 'unpaired'] as const), 'auto')
    .option('--chart <file.svg>', 'with --fixed-sample: write the per-group chart (PPI++ beside expert-only from the same labels)')
    .option('--simulate', 'replay plans on a fully labelled file, revealing expert labels only in planned order')
    .option('--seeds <S>', 'simulated label orders per estimator and half-width', positiveInt, 200)
    .option('--bound', 'on a fully labelled file: the fewest expert labels the estimator could need with the predictor known in advance, against expert-only')
    .option('--format <format>', 'text | json', oneOf(['text', 'json'] as const), 'text')
    .action(async (file: string, opts: Record<string, unknown>) => {
      const { items } = openDialogues(file);
      const estimand = parseEstimand(opts.estimand as string, loadRubric(file).rubric);
      const human = opts.human as HumanGroup;
      const predictors = ((opts.predictor as string[] | undefined) ?? []).map((p) => (p.startsWith('human:') ? p : resolveEvaluator(items, p, { human })));
      const compare = opts.compare as string[] | undefined;
      if (compare && compare.length !== 2) throw new Error('--compare takes two groups of --by (first − second)');
      const by = opts.by as string | undefined;
      if (compare && !by) throw new Error('--compare needs --by (the grouping the two groups belong to)');
      const targets = (opts.target as number[] | undefined) ?? [];
      const common = {
        estimand,
        human,
        predictors,
        ...(by ? { by } : {}),
        ...(compare ? { compare: compare as [string, string] } : {}),
        ...(opts.groups ? { groups: opts.groups as string[] } : {}),
        labelsPerCandidate: opts.labelsPerCandidate as number | undefined,
        level: opts.level as number,
        batch: opts.batch as number,
        minLabels: opts.minLabels as number,
      };
      const modes = ['simulate', 'bound', 'fixedSample'].filter((m) => opts[m]);
      if (modes.length > 1) throw new Error('--simulate, --bound and --fixed-sample are different questions; ask one at a time');
      if (opts.chart && !opts.fixedSample) throw new Error('--chart draws --fixed-sample estimates');
      if (opts.bound) {
        if (predictors.length === 0) throw new Error('--bound needs a --predictor');
        const result = estimateBound(items, { ...common, halfWidths: targets.length ? targets : [0.1, 0.05] });
        if (result.notFullyLabelled > 0) log(`left out ${result.notFullyLabelled} candidate(s) that are not fully labelled`);
        process.stdout.write(opts.format === 'json' ? JSON.stringify(result, null, 2) + '\n' : estimateBoundText(result));
        return;
      }
      if (opts.simulate) {
        if (predictors.length === 0) throw new Error('--simulate compares the estimator with expert-only: it needs a --predictor');
        const result = simulateEstimates(items, { ...common, halfWidths: targets.length ? targets : [0.1, 0.05], runs: opts.seeds as number, seed: opts.seed as string, estimators: opts.format === 'json' ? ['estimator', 'classical'] : ['estimator', 'random', 'classical'] });
        if (result.notFullyLabelled > 0) log(`left out ${result.notFullyLabelled} candidate(s) that are not fully labelled`);
        if (opts.format === 'json') {
          const out = { targets: result.targets.map((t) => ({ halfWidth: t.halfWidth, estimator: t.estimator?.labels ?? null, classical: t.classical?.labels ?? null })), coverage: result.coverage };
          process.stdout.write(JSON.stringify(out) + '\n');
        } else process.stdout.write(estimateSimulationText(result));
        return;
      }
      if (opts.fixedSample) {
        const result = fixedSampleEstimates(items, { ...common, ...(opts.calibration ? { calibration: opts.calibration as 'none' | 'linear' } : {}), pairing: opts.pairing as 'auto', seed: opts.seed as string, alpha: 1 - (opts.level as number) });
        if (opts.chart) {
          const svg = estimateChartSvg(
            [
              {
                title: `PPI++: ${result.groups.reduce((a, g) => a + g.labelled, 0)} expert labels + ${result.predictors.join(', ')}`,
                subtitle: `blue: PPI++ ${pct(1 - result.alpha)} interval; grey: expert-only from the same labels`,
                rows: result.groups.map((g) => ({ key: g.key, value: g.estimator?.estimate ?? g.classical?.estimate ?? null, lower: g.estimator?.lower ?? null, upper: g.estimator?.upper ?? null, secondary: g.classical ? { lower: g.classical.lower, upper: g.classical.upper } : null, note: `${g.candidates} candidates, ${g.labelled} expert-labelled` })),
              },
            ],
            { title: `${result.human}' ${result.estimand}${by ? ` per ${by}` : ''}`, background: '#ffffff', axisLabel: result.estimand },
          );
          writeFileSync(opts.chart as string, svg);
          log(`chart written to ${opts.chart as string}`);
        }
        process.stdout.write(opts.format === 'json' ? JSON.stringify(result, null, 2) + '\n' : fixedSampleText(result));
        return;
      }
      if (targets.length > 1) throw new Error('--target takes one half-width outside --simulate and --bound');
      // Starting or following the plan is the core's estimate job (src/core/jobs/estimate.ts), as the editor runs it.
      const plan = validatePlan(
        {
          job: 'estimate',
          estimand: opts.estimand,
          human,
          predictors,
          ...(by ? { by } : {}),
          ...(compare ? { compare } : {}),
          ...(opts.groups ? { groups: opts.groups } : {}),
          ...(opts.labelsPerCandidate !== undefined ? { labelsPerCandidate: opts.labelsPerCandidate } : {}),
          level: opts.level,
          batch: opts.batch,
          minLabels: opts.minLabels,
          ...(targets.length ? { halfWidth: targets[0] } : {}),
          seed: opts.seed,
          ...(opts.record === false ? { record: false } : typeof opts.record === 'string' ? { record: opts.record } : {}),
          ...(opts.restart ? { restart: true } : {}),
        },
        'flags',
      ) as FileJobPlan;
      let report;
      try {
        report = await runPlan(plan, { file: resolve(file), items }, cliHost(), new MemorySink([...items]));
      } catch (err) {
        if (err instanceof EstimatePlanMismatchError) throw new Error(`${err.recordFile} holds a plan for ${err.difference}; pass --restart to start a new plan, or --record <other file>`);
        throw err;
      }
      printReport(report);
      const state = report.data as unknown as EstimatePlanState;
      if (opts.format === 'json') {
        const { order, ...rest } = state;
        process.stdout.write(JSON.stringify({ ...rest, next: order.filter((o) => !o.labelled).slice(0, opts.next as number), order }, null, 2) + '\n');
      } else process.stdout.write(estimatePlanText(state, opts.next as number));
    });
}
