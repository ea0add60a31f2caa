/**
 * `reflect-eval plan-labels`: which candidates the annotators should label next so that the interval on an
 * evaluator's Spearman correlation with the human coherence score (or on the difference of two evaluators')
 * narrows fastest, the current whole-pool estimate with its anytime-valid interval, and the labels to go
 * (docs/labelling-plan.md). `--simulate` replays plans on a fully labelled file; `--bound` says how many labels any
 * design-unbiased plan could save there at best. Read-only on the dialogue file; starting or following a plan is the
 * core's labelling-plan job (src/core/jobs/planLabels.ts, as the editor's Plan Labels… runs it), whose record (seed,
 * settings, candidates labelled at the start) is kept in a small JSON file beside the dialogue file.
 */
import { resolve } from 'node:path';
import { InvalidArgumentError, type Command } from 'commander';
import { displayNames } from '../../core/evaluators/evaluatorNames';
import type { HumanGroup } from '../../core/labels/groups';
import { designBound, type DesignBoundResult } from '../../core/planning/designBound';
import { MemorySink } from '../../core/jobs/memorySink';
import { LabelPlanMismatchError } from '../../core/jobs/planLabels';
import { runPlan, validatePlan, type FileJobPlan } from '../../core/jobs/plans';
import type { LabelPlan, PlanTarget } from '../../core/planning/planner';
import { simulatePlans, type SimulationResult } from '../../core/planning/simulate';
import { dimensionFromFlags, log, openDialogues, positiveInt, unitInterval, withDimensionOptions } from '../common';
import { tableSpec } from '../../core/correlation/correlationTable';
import { cliHost, printReport } from '../host';
import { resolveEvaluator } from './correlate';

function targetValue(v: string, prev: (number | 'decide')[] = []): (number | 'decide')[] {
  if (v === 'decide') return [...prev, 'decide'];
  const n = Number(v);
  if (!(n > 0)) throw new InvalidArgumentError('a target is a positive half-width (e.g. 0.1) or "decide"');
  return [...prev, n];
}

const fmt = (v: number | null | undefined, digits = 3) => (v === null || v === undefined ? '—' : v.toFixed(digits));

/**
 * The plan as text. `positions` names each candidate as the dialogue editor shows it (`#7`, its 1-based place in its
 * item, the editor's order when not blind) beside its id in the file, so the CLI and the editor name it the same way.
 */
export function planText(plan: LabelPlan, names: Map<string, string>, next: number, positions: ReadonlyMap<string, number> = new Map()): string {
  const r = plan.record;
  const name = (id: string) => names.get(id) ?? id;
  const what = r.against ? `rho(${name(r.evaluator)}) − rho(${name(r.against)})` : `Spearman's rho of ${name(r.evaluator)}`;
  const lines: string[] = [];
  lines.push(`Labelling plan: ${what} with the ${r.human}' ${r.dimension ? `${r.humanScore} rating of ${r.dimension}` : 'coherence score'} (${r.labelsPerCandidate} labels make a candidate labelled; ${r.design} design, seed ${r.seed})`);
  const c = plan.counts;
  lines.push(`pool${r.column ? ` (${r.column.groupBy} = ${r.column.value})` : ''}: ${c.pool} candidates in ${c.items} items; labelled at the start ${c.start}, planned labels counted ${c.planned}, drawn and not yet counted ${c.drawn}, labelled outside the plan ${c.outsidePlan}, partly labelled ${c.partial}${c.missingScore ? `; ${c.missingScore} candidate(s) without a usable score left out` : ''}`);
  const e = plan.estimate;
  const level = `${Math.round(r.level * 1000) / 10} %`;
  if (e.exact) lines.push(`estimate: ${fmt(e.value)} (exact: every pool candidate is labelled)`);
  else if (e.value === null) lines.push(`estimate: not yet (needs planned labels${e.labels > 0 ? ' with some spread in the human scores' : ''})`);
  else lines.push(`estimate: ${fmt(e.value)}, ${level} anytime interval [${fmt(e.lower)}, ${fmt(e.upper)}] (half-width ${fmt(e.halfWidth)})${r.against && e.rhos ? `; rho ${fmt(e.rhos[0])} vs ${fmt(e.rhos[1])}` : ''}`);
  const t = plan.target;
  const goal = 'halfWidth' in t ? `half-width ${t.halfWidth}` : 'decide between the two evaluators';
  if (plan.stop) {
    const s = plan.stop;
    const why = s.reason === 'half-width' ? 'the interval reached the target' : s.reason === 'decided' ? `the interval excludes 0: ${s.winner === 'a' ? name(r.evaluator) : name(r.against as string)} agrees better` : `the pool is fully labelled${s.winner === null ? ' (a tie)' : s.winner ? `: ${s.winner === 'a' ? name(r.evaluator) : name(r.against as string)} agrees better` : ''}`;
    lines.push(`target: ${goal} — STOP: ${why} after ${s.labels} planned labels (estimate ${fmt(s.estimate.value)} [${fmt(s.estimate.lower)}, ${fmt(s.estimate.upper)}])`);
  } else {
    lines.push(`target: ${goal} — not reached${plan.counts.planned < r.minLabels ? ` (no stop before ${r.minLabels} planned labels)` : ''}; labels to go: ${plan.labelsToGo === null ? 'unknown yet' : `about ${plan.labelsToGo}`}`);
  }
  const todo = plan.order.filter((o) => !o.labelled).slice(0, next);
  if (!plan.stop && todo.length > 0) {
    lines.push(`next candidates (label in this order; "drawn" ones are fixed, the rest may change as labels come in):`);
    const w = Math.max(...todo.map((o) => o.itemId.length));
    todo.forEach((o, i) => lines.push(`${String(i + 1).padStart(4)}. item ${o.itemId.padEnd(w)}  candidate ${positionOf(positions, o.itemId, o.candidateId)}${o.candidateId}  ${o.status}${o.groupLabels ? ` (${o.groupLabels}/${r.labelsPerCandidate} labels)` : ''}`));
  }
  return lines.join('\n') + '\n';
}

function positionOf(positions: ReadonlyMap<string, number>, itemId: string, candidateId: string): string {
  const p = positions.get(`${itemId}\u0000${candidateId}`);
  return p === undefined ? '' : `#${p} `;
}

/** Each candidate's 1-based place in its item, keyed by item id and candidate id (see {@link planText}). */
export function candidatePositions(items: readonly { id: string; candidates: readonly { id: string }[] }[]): Map<string, number> {
  const out = new Map<string, number>();
  for (const it of items) it.candidates.forEach((c, i) => out.set(`${it.id}\u0000${c.id}`, i + 1));
  return out;
}

/** Plain-text summary of a simulation. */
export function simulationText(result: SimulationResult): string {
  const lines = [`${result.runs} simulated runs per design on ${result.pool} fully labelled candidates (pool value ${fmt(result.poolValue)}; ${result.human})`];
  lines.push('half-width  planner  random  random(plain)  coverage planner/random/plain');
  for (const t of result.targets) lines.push(`${String(t.halfWidth).padStart(10)}  ${t.planner.toFixed(1).padStart(7)}  ${t.random.toFixed(1).padStart(6)}  ${t.randomPlain.toFixed(1).padStart(13)}  ${t.plannerCoverage.toFixed(3)}/${t.randomCoverage.toFixed(3)}/${t.randomPlainCoverage.toFixed(3)}`);
  if (result.decision) lines.push(`decision: planner ${result.decision.planner.toFixed(1)} labels (wrong ${result.decision.plannerWrong.toFixed(3)}), random ${result.decision.random.toFixed(1)} (wrong ${result.decision.randomWrong.toFixed(3)})`);
  lines.push(`coverage (planner, all stops): ${result.coverage.toFixed(3)}`);
  return lines.join('\n') + '\n';
}

/** Plain-text summary of the design-only bound. */
export function boundText(result: DesignBoundResult, level: number): string {
  const pct = (v: number) => `${(100 * v).toFixed(1)} %`;
  const lines = [
    `design-only bound on ${result.pool} fully labelled candidates (pool value ${fmt(result.poolValue)}): the fewest labels any design-unbiased plan could need, against random order with the same working model`,
    `working model: bandwidth ${result.model.bandwidth}, prior ${result.model.prior} (best leave-one-out log score ${fmt(result.logScore)}; the level shares alone ${fmt(result.marginalLogScore)})`,
    `half-width  random  best design  fewer   (fixed-n ${Math.round(level * 1000) / 10} % intervals)`,
  ];
  for (const t of result.targets) lines.push(`${String(t.halfWidth).padStart(10)}  ${t.random.toFixed(1).padStart(6)}  ${t.neyman.toFixed(1).padStart(11)}  ${pct(t.saving).padStart(6)}`);
  lines.push(`largest saving at any target: ${pct(result.maxSaving.saving)} (${result.maxSaving.neyman.toFixed(1)} labels against ${result.maxSaving.random} in random order)`);
  return lines.join('\n') + '\n';
}

export function registerPlanLabels(program: Command): void {
  withDimensionOptions(program.command('plan-labels <file>'))
    .description('which candidates to label next so the interval on an evaluator\'s Spearman correlation with the human score (or on A − B) narrows fastest; estimate, anytime-valid interval, labels to go; --simulate replays plans on a fully labelled file, and --bound says how much any design could save there (docs/labelling-plan.md)')
    .requiredOption('--evaluator <id|name>', 'the evaluator (id, unique id prefix or display name)')
    .option('--against <id|name>', 'a second evaluator: plan for rho(evaluator) − rho(against)')
    .option('--assist <signal...>', 'signals that help predict the human score and so choose what to label (never what is estimated): other evaluators (id or name), or human:laypeople / human:experts for another group\'s coherence labels')
    .option('--human <group>', 'whose coherence labels: experts | laypeople | all | auto', (v) => {
      if (!['experts', 'laypeople', 'all', 'auto'].includes(v)) throw new InvalidArgumentError('must be one of experts, laypeople, all, auto');
      return v;
    }, 'auto')
    .option('--target <h|decide...>', 'interval half-width (e.g. 0.1), or "decide" (with --against); --simulate and --bound take several half-widths', targetValue)
    .option('--group-by <key>', 'with --column: the grouping of the correlation table (origin, model, strategy, source, kind, or a candidate field path)', 'origin')
    .option('--column <value>', 'restrict the pool to one column of the correlation table, e.g. GPT-2')
    .option('--labels-per-candidate <n>', 'group labels that make a candidate labelled (default: the study\'s own count, the most common in the file; 1 when the group has no labels yet, one annotator labelling alone)', positiveInt)
    .option('--next <n>', 'candidates to print', positiveInt, 10)
    .option('--seed <seed>', 'seed of the design (new plans and simulations)', '1')
    .option('--level <level>', 'confidence level', unitInterval, 0.95)
    .option('--batch <n>', 'draws per batch (the model is refitted between batches)', positiveInt, 5)
    .option('--min-labels <n>', 'no stop before this many planned labels', positiveInt, 20)
    .option('--record <file>', 'the plan record (default: <file>.label-plan.json beside the dialogue file)')
    .option('--no-record', 'do not read or write a record: a new plan from the current labels')
    .option('--restart', 'start a new plan (overwrite the record)')
    .option('--simulate', 'replay plans on a fully labelled file, revealing labels only in planned order')
    .option('--seeds <S>', 'simulated runs per design', positiveInt, 200)
    .option('--bound', 'on a fully labelled file: the fewest labels any design-unbiased plan could need for each --target half-width, against random order (the Godambe–Joshi bound; docs/labelling-plan.md)')
    .option('--format <format>', 'text | json', (v) => {
      if (v !== 'text' && v !== 'json') throw new InvalidArgumentError('must be text or json');
      return v;
    }, 'text')
    .action(async (file: string, opts: Record<string, unknown>) => {
      const { items } = openDialogues(file);
      const dimension = dimensionFromFlags(file, opts);
      const spec = tableSpec(dimension);
      const human = opts.human as HumanGroup | 'auto';
      const evaluator = resolveEvaluator(items, opts.evaluator as string, { human });
      const against = opts.against ? resolveEvaluator(items, opts.against as string, { human }) : undefined;
      if (against === evaluator) throw new Error('--against names the same evaluator as --evaluator');
      const targets = (opts.target as (number | 'decide')[] | undefined) ?? [];
      const column = opts.column ? { groupBy: opts.groupBy as string, value: opts.column as string } : undefined;
      const assist = ((opts.assist as string[] | undefined) ?? []).map((a) => (/^human:/.test(a) ? a : resolveEvaluator(items, a, { human })));
      const common = { evaluator, against, human, column, ...(assist.length ? { assist } : {}), labelsPerCandidate: opts.labelsPerCandidate as number | undefined, level: opts.level as number, batch: opts.batch as number, minLabels: opts.minLabels as number };
      const named = { ...(dimension.dimension !== undefined ? { dimension: dimension.dimension } : {}), ...(dimension.humanScore !== undefined ? { humanScore: dimension.humanScore } : {}) };
      if (opts.simulate && opts.bound) throw new Error('--simulate and --bound are two different questions; ask one at a time');
      if (opts.bound) {
        if (targets.includes('decide')) throw new Error('--bound answers for half-widths only (e.g. --target 0.15 0.1); a decision between two evaluators has no fixed-n bound here');
        const halfWidths = targets.filter((t): t is number => t !== 'decide');
        const result = designBound(items, { ...common, spec, halfWidths: halfWidths.length ? halfWidths : [0.15, 0.1] });
        process.stdout.write(opts.format === 'json' ? JSON.stringify(result, null, 2) + '\n' : boundText(result, opts.level as number));
        return;
      }
      if (opts.simulate) {
        const halfWidths = targets.filter((t): t is number => t !== 'decide');
        const result = simulatePlans(items, { ...common, spec, halfWidths: halfWidths.length ? halfWidths : [0.15, 0.1], runs: opts.seeds as number, seed: opts.seed as string });
        if (result.notFullyLabelled > 0) log(`left out ${result.notFullyLabelled} scored candidate(s) that are not fully labelled`);
        process.stdout.write(opts.format === 'json' ? JSON.stringify(result, null, 2) + '\n' : simulationText(result));
        return;
      }
      if (targets.length > 1) throw new Error('--target takes one value outside --simulate');
      const target: PlanTarget | undefined = targets[0] === 'decide' ? { decide: true } : targets[0] !== undefined ? { halfWidth: targets[0] } : against ? undefined : { halfWidth: 0.1 };
      const plan = validatePlan(
        {
          job: 'plan-labels',
          ...common,
          ...named,
          ...(target ? { target } : {}),
          seed: opts.seed,
          ...(opts.record === false ? { record: false } : typeof opts.record === 'string' ? { record: opts.record } : {}),
          ...(opts.restart ? { restart: true } : {}),
        },
        'flags',
      ) as FileJobPlan;
      const path = resolve(file);
      const host = cliHost();
      let report;
      try {
        report = await runPlan(plan, { file: path, items }, host, new MemorySink([...items]));
      } catch (err) {
        if (err instanceof LabelPlanMismatchError) throw new Error(`${err.recordFile} holds a plan for ${err.difference}; pass --restart to start a new plan, or --record <other file>`);
        throw err;
      }
      printReport(report);
      const state = report.data as unknown as LabelPlan;
      const names = displayNames([evaluator, ...(against ? [against] : [])]);
      if (opts.format === 'json') {
        const { order, ...rest } = state;
        process.stdout.write(JSON.stringify({ ...rest, next: order.filter((o) => !o.labelled).slice(0, opts.next as number), order }, null, 2) + '\n');
      } else process.stdout.write(planText(state, names, opts.next as number, candidatePositions(items)));
    });
}
