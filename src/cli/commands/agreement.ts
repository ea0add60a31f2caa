/**
 * `reflect-eval agreement <file>`: the first study's agreement table and analyses (GEM 2022 §5.1–5.3) and the
 * per-group coherence scores (ICMI 2023 §2.1) of a labelled dialogue file or an annotation table; with `--by`, per
 * value of an item or candidate field (the papers report kappa per annotation stage), and the meta-evaluation
 * analyses of docs/meta-evaluation.md: agreement coefficients (`--coefficients`), the human ceiling (`--ceiling`),
 * length bias (`--length-bias`) and an evaluator against the majority label (`--vs-majority`).
 */
import { resolve } from 'node:path';
import { InvalidArgumentError, Option, type Command } from 'commander';
import { MI_PRESET, MI_RUBRIC } from '../../core/rubric/presets';
import { loadRubric } from '../../core/rubric/rubricFile';
import { EXPORT_FORMATS, type ExportFormat } from '../../core/correlation/correlationExport';
import { correlationData, tableSpec } from '../../core/correlation/correlationTable';
import { HUMAN_SCORE_RULES } from '../../core/rubric/labelValues';
import { displayNames } from '../../core/evaluators/evaluatorNames';
import { firstStudyAnalysis, type FirstStudyAnalysis } from '../../core/agreement/firstStudy';
import { firstStudyCsv } from '../../core/agreement/firstStudyCsv';
import { formatFirstStudyAnalysis } from '../../core/agreement/firstStudyText';
import {
  ceilingPlainTable,
  groupedCoefficientsPlainTables,
  lengthBiasPlainTable,
  majorityPlainTable,
  renderTables,
  type PlainTable,
} from '../../core/metaEvaluation/metaEvaluationExport';
import { leaveOneOutCeiling } from '../../core/correlation/ceiling';
import { agreementCoefficientsBy, dimensionCoefficients } from '../../core/agreement/coefficientsTable';
import { itemsBy } from '../../core/dialogue/groupBy';
import { lengthBias } from '../../core/metaEvaluation/lengthBias';
import { evaluatorVsMajority } from '../../core/metaEvaluation/majorityLabel';
import { errorCategoryAgreement, errorCategoryAgreementPlainTable } from '../../core/metaEvaluation/errorCategoryAgreement';
import type { DialogueItem } from '../../core/dialogue/types';
import { assertWritable, writeTextAtomic } from '../../core/format/files';
import type { HumanGroup } from '../../core/labels/groups';
import { INTERVAL_METHODS, type IntervalMethod } from '../../core/stats/bootstrap';
import { dimensionFromFlags, log, openDialogues, positiveInt } from '../common';
import { readAnnotationTable, tableReadingOptions, tableReadingSettings } from './annotations';
import { resolveEvaluator } from './correlate';

function nonNegativeInt(v: string): number {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0) throw new Error(`must be a non-negative integer, got ${v}`);
  return n;
}

function finite(v: string): number {
  const n = Number(v);
  if (!Number.isFinite(n)) throw new InvalidArgumentError(`must be a number, got ${v}`);
  return n;
}

function level(v: string): number {
  const n = Number(v);
  if (!(n > 0 && n < 1)) throw new InvalidArgumentError(`must be in (0, 1), got ${v}`);
  return n;
}

const GROUPS = ['experts', 'laypeople', 'all'] as const;

/** Registers `agreement`. */
export function registerAgreement(program: Command): void {
  tableReadingOptions(
    program
      .command('agreement <file>')
      .description("Fleiss' kappa table (first study Table 4), coherence scores by group, coherence rate and most evident errors per decoding strategy; agreement coefficients, the human ceiling, length bias and evaluator-vs-majority analyses (docs/meta-evaluation.md); <file> is a *.dialogues.jsonl file or an annotation table (*.csv)"),
  )
    .option('--json', 'print the analysis as JSON')
    .option('--csv <out>', 'also write the analysis as a tidy CSV (table, group, row, column, value; with --by, a first column by_value)')
    .addOption(new Option('--majority-group <group>', 'whose labels make the majority votes of §5.2–5.3').choices(['all', 'laypeople', 'experts']).default('all'))
    .option('--min-responses <n>', 'show a strategy with at least this many majority-labelled responses', nonNegativeInt, 5)
    .option('--raters <n>', 'ratings per subject for the kappas (default: the most common number)', positiveInt)
    .option('--no-propagate', "do not give cluster members their representative's labels")
    .option('--force', 'overwrite the --csv file')
    .option('--by <field>', 'one analysis per value of an item or candidate field: stage, transcript, dataset, source, model, strategy, item.<path> or a candidate path')
    .option('--coefficients', "add Krippendorff's alpha, Gwet's AC1 and ICCs beside Fleiss' kappa for coherence, each error category, the MEE and empathy")
    .option('--ceiling', 'the human ceiling: each annotator of --group against the rest of the group, and every --evaluator against the same targets')
    .option('--length-bias', 'each --evaluator against response length, and its partial correlation with the human score controlling for length')
    .option('--vs-majority <threshold>', 'each --evaluator (score ≥ threshold → coherent) against the majority label of --group: confusion, kappa, precision and recall of incoherent', finite)
    .option('--errors-vs <evaluator>', "an error-category judge (request error-categories) against the majority error labels of --group: per category Cohen's kappa, precision, recall, F1, and the most evident error (id, unique id prefix or display name)")
    .option('--dimension <name>', "--ceiling and --length-bias: the rubric dimension of the human score, its name exactly (default: the rubric's primary, coherent in the MI preset); on a study with its own rubric, also the one dimension whose agreement coefficients are printed (default: every dimension)")
    .addOption(new Option('--human-score <rule>', '--length-bias: mean | median | count | majority (default: count for binary, mean for ordinal and numeric)').choices([...HUMAN_SCORE_RULES]))
    .option('--evaluator <evaluators...>', 'evaluators for --ceiling, --length-bias, --vs-majority (ids, unique id prefixes or display names; default: all)')
    .addOption(new Option('--group <group>', 'annotator group of --ceiling, --vs-majority and --length-bias').choices([...GROUPS]).default('experts'))
    .option('--bootstrap [B]', 'percentile bootstrap intervals over dialogue items with B resamples (default 1000 when given without a number)', positiveInt)
    .option('--seed <seed>', 'seed of the bootstrap', '1')
    .option('--level <level>', 'confidence level of the intervals', level, 0.95)
    .addOption(new Option('--interval <method>', 'how bootstrap bounds are read (default: docs/meta-evaluation.md#coverage)').choices([...INTERVAL_METHODS]))
    .addOption(new Option('--format <format>', 'format of the coefficient, ceiling, length-bias and majority tables').choices(EXPORT_FORMATS as string[]).default('text'))
    .action((file: string, opts: Record<string, unknown>) => {
      const csvOut = opts.csv ? resolve(opts.csv as string) : undefined;
      if (csvOut) assertWritable(csvOut, Boolean(opts.force));
      const items = /\.(csv|tsv)$/i.test(file) ? readAnnotationTable(file, tableReadingSettings(opts, file)) : openDialogues(file).items;
      const groupRules = { expertPrefix: opts.expertPrefix as string };
      const format = opts.format as ExportFormat;
      const bootstrap =
        opts.bootstrap === undefined
          ? undefined
          : { resamples: opts.bootstrap === true ? 1000 : (opts.bootstrap as number), seed: /^-?\d+$/.test(opts.seed as string) ? Number(opts.seed) : (opts.seed as string), level: opts.level as number, ...(opts.interval ? { interval: opts.interval as IntervalMethod } : {}) };
      const by = opts.by as string | undefined;
      const parts = by ? itemsBy(items, by) : [{ key: 'all', items: [...items], candidates: 0 }];
      const group = opts.group as HumanGroup;

      if (opts.errorsVs !== undefined) {
        const id = resolveEvaluator(items, opts.errorsVs as string, { groupRules });
        const name = displayNames([id]).get(id) ?? id;
        const json: Record<string, unknown>[] = [];
        const tables: PlainTable[] = [];
        for (const p of parts) {
          const r = errorCategoryAgreement(p.items, id, { group, groupRules, bootstrap });
          json.push({ part: p.key, errorCategories: r });
          const t = errorCategoryAgreementPlainTable(r, name);
          tables.push(by ? { ...t, title: `${t.title}; ${by} = ${p.key}` } : t);
        }
        process.stdout.write(opts.json ? JSON.stringify(by ? { by, results: json } : json.map((j) => ({ ...j, part: undefined })), null, 2) + '\n' : renderTables(tables, format));
        return;
      }
      const evaluatorAnalyses = Boolean(opts.ceiling || opts.lengthBias || opts.vsMajority !== undefined);
      if (evaluatorAnalyses) {
        // --dimension / --human-score: the human score of --ceiling and --length-bias
        const spec = tableSpec(dimensionFromFlags(file, opts));
        const all = correlationData(items, { groupRules, evaluators: undefined }).evaluatorIds;
        const ids = opts.evaluator ? (opts.evaluator as string[]).map((e) => resolveEvaluator(items, e, { groupRules })) : all;
        const names = displayNames(ids);
        const json: Record<string, unknown>[] = [];
        const tables: PlainTable[] = [];
        for (const p of parts) {
          const suffix = (t: PlainTable): PlainTable => (by ? { ...t, title: `${t.title}; ${by} = ${p.key}` } : t);
          if (opts.ceiling) {
            const t = leaveOneOutCeiling(p.items, { group, groupRules, evaluators: ids, bootstrap, spec });
            json.push({ part: p.key, ceiling: t });
            tables.push(suffix(ceilingPlainTable(t, { perAnnotator: format !== 'text' })));
          }
          if (opts.lengthBias) {
            const t = lengthBias(p.items, { evaluators: ids, human: group, groupRules, bootstrap, spec });
            json.push({ part: p.key, lengthBias: t });
            tables.push(suffix(lengthBiasPlainTable(t, { compact: format === 'text' })));
          }
          if (opts.vsMajority !== undefined) {
            for (const id of ids) {
              const m = evaluatorVsMajority(p.items, id, { threshold: opts.vsMajority as number, group, groupRules, bootstrap });
              json.push({ part: p.key, vsMajority: m });
              tables.push(suffix(majorityPlainTable(m, names.get(id) ?? id)));
            }
          }
        }
        process.stdout.write(opts.json ? JSON.stringify(by ? { by, results: json } : json.map((j) => ({ ...j, part: undefined })), null, 2) + '\n' : renderTables(tables, format));
        return;
      }

      const analyse = (its: DialogueItem[]): FirstStudyAnalysis =>
        firstStudyAnalysis(its, {
          groupRules,
          majorityGroup: opts.majorityGroup as HumanGroup,
          minResponses: opts.minResponses as number,
          raters: opts.raters as number | undefined,
          propagateClusters: opts.propagate as boolean,
        });
      // A study with its own rubric: the first study's analyses (coherence rates, error distributions) do not apply;
      // the coefficients of its dimensions are the agreement table.
      const rubric = /\.(csv|tsv)$/i.test(file) ? MI_RUBRIC : loadRubric(resolve(file)).rubric;
      if (rubric.name !== MI_PRESET) {
        const all = agreementCoefficientsBy(items, by ?? null, { groupRules, bootstrap, rubric });
        // --dimension: that dimension's rows only (the agreement panel's picker shows the same)
        const coefficients = opts.dimension !== undefined ? dimensionCoefficients(all, rubric, opts.dimension as string) : all;
        if (opts.json) process.stdout.write(JSON.stringify({ rubric: rubric.name, coefficients }, null, 2) + '\n');
        else process.stdout.write(renderTables(groupedCoefficientsPlainTables(coefficients, { compact: format === 'text' }), format));
        return;
      }
      // The MI preset's first-study analyses are coherence's: a --dimension is still checked against the rubric.
      if (opts.dimension !== undefined || opts.humanScore !== undefined) dimensionFromFlags(file, opts);
      const withCoefficients = Boolean(opts.coefficients);
      if (!by) {
        const analysis = analyse(items);
        if (csvOut) {
          writeTextAtomic(csvOut, firstStudyCsv(analysis));
          log(`wrote ${csvOut}`);
        }
        const coefficients = withCoefficients ? agreementCoefficientsBy(items, null, { groupRules, bootstrap }) : undefined;
        if (opts.json) process.stdout.write(JSON.stringify(coefficients ? { ...analysis, coefficients } : analysis, null, 2) + '\n');
        else process.stdout.write(formatFirstStudyAnalysis(analysis) + (coefficients ? '\n' + renderTables(groupedCoefficientsPlainTables(coefficients, { compact: format === 'text' }), format) : ''));
        return;
      }
      const results = parts.map((p) => ({ key: p.key, candidates: p.candidates, analysis: analyse(p.items) }));
      const coefficients = withCoefficients ? agreementCoefficientsBy(items, by, { groupRules, bootstrap }) : undefined;
      if (csvOut) {
        const blocks = results.map((r, i) => {
          const lines = firstStudyCsv(r.analysis).split('\n').filter((l) => l.length > 0);
          const cell = /[",\n]/.test(r.key) ? `"${r.key.replace(/"/g, '""')}"` : r.key;
          return (i === 0 ? [`by_value,${lines[0]}`] : []).concat(lines.slice(1).map((l) => `${cell},${l}`)).join('\n');
        });
        writeTextAtomic(csvOut, blocks.join('\n') + '\n');
        log(`wrote ${csvOut}`);
      }
      if (opts.json) {
        process.stdout.write(JSON.stringify({ by, groups: results.map((r) => ({ ...r, coefficients: coefficients?.groups.find((g) => g.key === r.key)?.tables })) }, null, 2) + '\n');
        return;
      }
      const out: string[] = [];
      for (const r of results) {
        out.push(`=== ${by} = ${r.key} (${r.candidates} responses) ===`, formatFirstStudyAnalysis(r.analysis).trimEnd(), '');
      }
      process.stdout.write(out.join('\n') + '\n' + (coefficients ? renderTables(groupedCoefficientsPlainTables(coefficients, { compact: format === 'text' }), format) : ''));
    });
}
