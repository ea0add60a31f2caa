/**
 * The report job: what a study's file says, as a Markdown report a researcher can put beside a paper — the
 * correlation table of every evaluator against the human coherence score by response group, with bootstrap
 * intervals, notes and the legend of every evaluator's configuration (ICMI 2023 Tables 2–5), and inter-annotator
 * agreement per group of a field (Fleiss' kappa, Krippendorff's alpha, Gwet's AC1; first study Table 4). It reads
 * the file and writes the report; it does not change the file.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { basename, dirname, resolve } from 'node:path';
import { agreementCoefficientsBy } from '../agreement/coefficientsTable';
import { groupedCoefficientsPlainTables, renderTables } from '../metaEvaluation/metaEvaluationExport';
import { tableToMarkdown, tableToText } from '../correlation/correlationExport';
import { forestPlotSvg } from '../correlation/forestPlot';
import { CORRELATION_METHODS, correlationTable, tableSpec, type CorrelationMethod, type HumanChoice } from '../correlation/correlationTable';
import { HUMAN_SCORE_RULES, holdsLabel, type HumanScoreRule } from '../rubric/labelValues';
import { MI_PRESET } from '../rubric/presets';
import { loadRubric } from '../rubric/rubricFile';
import { INTERVAL_METHODS, type IntervalMethod } from '../stats/bootstrap';
import { P_ADJUST_METHODS, type PAdjustMethod } from '../stats/multipleTesting';
import { failFor, isObject, rejectUnknownFields } from '../config';
import { REFLECT_EVAL_VERSION } from '../version';
import type { JobHost, JobReport, JobTarget } from './host';

/** A report: where it goes and what it shows. */
export interface ReportPlan {
  job?: 'report';
  /** The Markdown file to write (relative to the host's base folder); figures go beside it. */
  out: string;
  /** Whose labels (default `auto`: the experts' when the file has expert labels on the dimension, else everyone's). */
  human?: HumanChoice;
  /** The rubric dimension of the human score (default: the rubric's primary, `coherent` in the MI preset). */
  dimension?: string;
  /** How the annotators' labels become one score (default: count for binary, mean for ordinal and numeric). */
  humanScore?: HumanScoreRule;
  /** Columns of the correlation table (default `source`). */
  groupBy?: string;
  method?: CorrelationMethod;
  /** Bootstrap resamples of the intervals (default 1000; 0 for none). */
  bootstrap?: number;
  seed?: number | string;
  /** Agreement per value of this field (default `stage` when items have one, else none). */
  agreementBy?: string;
  /** How the intervals' bounds are read (default: the stats default, docs/meta-evaluation.md#coverage). */
  interval?: IntervalMethod;
  /** Adjust each column's p-values for its evaluator rows (`holm` or `by`). */
  adjust?: PAdjustMethod;
  /** Trivial baseline rows in the correlation table (length, a constant, a random number). */
  baselines?: boolean;
}

/**
 * Checks a report plan.
 *
 * @throws ConfigError naming the source and the field
 */
export function validateReportPlan(value: unknown, source: string): ReportPlan {
  const fail = failFor(source);
  if (!isObject(value)) fail('(root)', 'must be a JSON object like {"job": "report", "out": "report.md"}');
  const c = value as Record<string, unknown>;
  rejectUnknownFields(c, ['job', 'out', 'human', 'groupBy', 'method', 'bootstrap', 'seed', 'agreementBy', 'interval', 'adjust', 'baselines', 'dimension', 'humanScore'], '', fail);
  if (c.dimension !== undefined && (typeof c.dimension !== 'string' || !c.dimension)) fail('dimension', "must name a dimension of the study's rubric");
  if (c.humanScore !== undefined && !HUMAN_SCORE_RULES.includes(c.humanScore as HumanScoreRule)) fail('humanScore', `must be one of ${HUMAN_SCORE_RULES.join(', ')}`);
  if (c.interval !== undefined && !INTERVAL_METHODS.includes(c.interval as IntervalMethod)) fail('interval', `must be one of ${INTERVAL_METHODS.join(', ')}`);
  if (c.adjust !== undefined && !P_ADJUST_METHODS.includes(c.adjust as PAdjustMethod)) fail('adjust', `must be one of ${P_ADJUST_METHODS.join(', ')}`);
  if (c.baselines !== undefined && typeof c.baselines !== 'boolean') fail('baselines', 'must be true or false');
  if (typeof c.out !== 'string' || !c.out.endsWith('.md')) fail('out', 'must name a Markdown file (*.md)');
  if (c.human !== undefined && !['experts', 'laypeople', 'all', 'auto'].includes(String(c.human))) fail('human', 'must be experts, laypeople, all or auto');
  if (c.method !== undefined && !CORRELATION_METHODS.includes(c.method as CorrelationMethod)) fail('method', `must be one of ${CORRELATION_METHODS.join(', ')}`);
  if (c.bootstrap !== undefined && !(Number.isInteger(c.bootstrap) && (c.bootstrap as number) >= 0)) fail('bootstrap', 'must be an integer ≥ 0');
  for (const k of ['groupBy', 'agreementBy']) if (c[k] !== undefined && typeof c[k] !== 'string') fail(k, 'must be a field name');
  return c as unknown as ReportPlan;
}

/** Writes the report; `data.text` holds the correlation table as plain text (what the CLI prints). */
export async function runReportPlan(plan: ReportPlan, target: JobTarget, host: JobHost): Promise<JobReport> {
  const items = target.items;
  const resamples = plan.bootstrap ?? 1000;
  const { rubric } = loadRubric(target.file);
  const dimension = { rubric, ...(plan.dimension !== undefined ? { dimension: plan.dimension } : {}), ...(plan.humanScore !== undefined ? { humanScore: plan.humanScore } : {}) };
  // checked before any work: an unknown dimension or a rule that does not fit it is named, with the rubric's dimensions
  const spec = tableSpec(dimension);
  const table = correlationTable(items, {
    ...dimension,
    method: plan.method ?? 'spearman',
    human: plan.human ?? 'auto',
    groupBy: plan.groupBy ?? 'source',
    ...(resamples > 0 ? { bootstrap: { resamples, seed: plan.seed ?? 1, ...(plan.interval ? { interval: plan.interval } : {}) } } : {}),
    ...(plan.adjust ? { adjust: plan.adjust } : {}),
    ...(plan.baselines ? { baselines: { seed: plan.seed ?? 1 } } : {}),
  });
  const agreementBy = plan.agreementBy ?? (items.some((it) => typeof (it.provenance as Record<string, unknown> | undefined)?.stage === 'string' || 'stage' in it) ? 'stage' : undefined);
  const agreement = agreementCoefficientsBy(items, agreementBy ?? null, {
    ...(rubric.name !== MI_PRESET ? { rubric } : {}),
    ...(resamples > 0 ? { bootstrap: { resamples, seed: plan.seed ?? 1, ...(plan.interval ? { interval: plan.interval } : {}) } } : {}),
  });
  const out = resolve(host.baseDir, plan.out);
  // The figure beside the report: each evaluator's correlation with its interval per column, laypeople–experts as
  // the reference line (the correlation panel draws the same SVG).
  const figure = out.replace(/\.md$/i, '') + '.forest-plot.svg';
  const candidates = items.reduce((n, it) => n + it.candidates.length, 0);
  const labelled = items.reduce((n, it) => n + it.candidates.filter((c) => c.annotations.some((a) => holdsLabel(a, spec))).length, 0);
  const md = [
    `# ReflectEval report: ${basename(target.file)}`,
    '',
    `${items.length} dialogue contexts, ${candidates} responses (${labelled} with ${table.dimension ? `labels on ${table.dimension.name}` : 'coherence labels'}). Written by ReflectEval ${REFLECT_EVAL_VERSION}; open \`${basename(target.file)}\` in VS Code to label the rest and to see these numbers in the correlation panel.`,
    '',
    '## Which evaluator agrees with the humans',
    '',
    tableToMarkdown(table),
    '',
    `![Forest plot: each evaluator's ${table.method === 'spearman' ? "Spearman's rho" : table.method} with the ${table.human}, by ${plan.groupBy ?? 'source'}](${basename(figure)})`,
    '',
    `## Inter-annotator agreement${agreementBy ? ` by ${agreementBy}` : ''}`,
    '',
    renderTables(groupedCoefficientsPlainTables(agreement, { compact: true }), 'md'),
    '',
  ].join('\n');
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, md);
  writeFileSync(figure, forestPlotSvg(table, { background: '#ffffff' }));
  const text = tableToText(table);
  return { job: 'report', lines: [], warnings: [], files: [out, figure], data: { text } };
}
