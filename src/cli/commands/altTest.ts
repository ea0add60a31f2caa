/**
 * `reflect-eval alt-test <file> --evaluator <id|name…> --group experts`: the alternative annotator test
 * (Calderon, Reichart & Dror, ACL 2025) — can this evaluator replace an annotator of this group on the coherence
 * labels? Prints each annotator's one-sided test, the Benjamini–Yekutieli decisions, the winning rate and verdict,
 * and the advantage probability (to rank evaluators).
 */
import { InvalidArgumentError, Option, type Command } from 'commander';
import { EXPORT_FORMATS, type ExportFormat } from '../../core/correlation/correlationExport';
import { displayNames } from '../../core/evaluators/evaluatorNames';
import { ALT_TEST_SCORINGS, evaluatorAltTest, type AltTestScoring, type RatingCalibration } from '../../core/metaEvaluation/altTest';
import { resolveHuman, tableSpec } from '../../core/correlation/correlationTable';
import { altTestBaselinesPlainTable, altTestPlainTable, renderTables } from '../../core/metaEvaluation/metaEvaluationExport';
import type { HumanGroup } from '../../core/labels/groups';
import { dimensionFromFlags, openDialogues, positiveInt } from '../common';
import { resolveEvaluator } from './correlate';

function unitInterval(name: string, open: boolean): (v: string) => number {
  return (v) => {
    const n = Number(v);
    if (!Number.isFinite(n) || n < 0 || n >= 1 || (open && n === 0)) throw new InvalidArgumentError(`${name} must be in ${open ? '(0, 1)' : '[0, 1)'}, got ${v}`);
    return n;
  };
}

function threshold(v: string): number | 'match-rate' {
  if (v === 'match-rate') return v;
  const n = Number(v);
  if (!Number.isFinite(n)) throw new InvalidArgumentError(`must be a number or match-rate, got ${v}`);
  return n;
}

/** Registers `alt-test`. */
export function registerAltTest(program: Command): void {
  program
    .command('alt-test <file>')
    .description('alternative annotator test (Calderon et al., ACL 2025): can an evaluator replace an annotator of a group on the labels of a rubric dimension (default coherence)? see docs/meta-evaluation.md')
    .requiredOption('--evaluator <evaluators...>', 'evaluator ids, unique id prefixes or display names')
    .addOption(new Option('--group <group>', 'the annotators the evaluator would replace (auto: experts when the file has expert labels on the dimension, else all)').choices(['experts', 'laypeople', 'all', 'auto']).default('auto'))
    .option('--dimension <name>', "the rubric dimension, its name exactly (default: the rubric's primary, coherent in the MI preset); ordinal and numeric dimensions compare ratings")
    .option('--epsilon <e>', 'cost–benefit margin ε granted to the evaluator (paper: 0.2 experts, 0.15 skilled, 0.1 crowd)', unitInterval('epsilon', false), 0.2)
    .option('--alpha <q>', 'FDR level q of the Benjamini–Yekutieli correction', unitInterval('alpha', true), 0.05)
    .option('--threshold <t>', 'score ≥ t → coherent; match-rate: the cut at which the evaluator says coherent as often as the group', threshold, 'match-rate' as const)
    .addOption(new Option('--scoring <s>', 'alignment score of a label against the other annotators: accuracy; for ordinal and numeric ratings also negRmse (−root mean squared error, the paper\'s) or negMae (−mean absolute error) (default: accuracy; negRmse for numeric)').choices([...ALT_TEST_SCORINGS]))
    .addOption(new Option('--calibration <rule>', 'ordinal and numeric dimensions: how scores become ratings — match-distribution (the k-th smallest score takes the group\'s rating at the same quantile) or identity (the score is a rating on the scale, e.g. a judge\'s)').choices(['match-distribution', 'identity']).default('match-distribution'))
    .option('--min-instances <n>', 'test annotators with at least this many instances (the paper: 30 for the t-test)', positiveInt, 30)
    .option('--no-baselines', 'leave out the trivial baselines (always-majority, always-minority, random at the base rate) run beside each evaluator')
    .option('--baseline-draws <n>', 'draws of the random baseline', positiveInt, 20)
    .option('--seed <seed>', 'seed of the random baseline', '1')
    .addOption(new Option('--test <test>', "each annotator's test: cluster-jackknife (over the dialogue contexts; default) or t (the paper's, over instances)").choices(['cluster-jackknife', 't']).default('cluster-jackknife'))
    .addOption(new Option('--zero-variance <rule>', "an annotator whose differences d are all equal has no t-test: untested (not won against) or reference (scipy's t = −∞, p = 0, as the paper's code)").choices(['untested', 'reference']).default('untested'))
    .option('--expert-prefix <prefix>', 'annotator ids starting with this are experts (unless an annotation says its group)', 'Expert')
    .addOption(new Option('--format <format>', 'output format').choices(EXPORT_FORMATS as string[]).default('text'))
    .option('--json', 'print the results as JSON')
    .action((file: string, opts: Record<string, unknown>) => {
      const { items } = openDialogues(file);
      const groupRules = { expertPrefix: opts.expertPrefix as string };
      const dimension = dimensionFromFlags(file, opts);
      const spec = tableSpec(dimension);
      if (spec.dimension.type === 'binary' && opts.scoring !== undefined && opts.scoring !== 'accuracy') throw new Error(`--scoring ${opts.scoring as string} compares ratings; ${spec.dimension.name} is binary (use accuracy)`);
      const group = resolveHuman(items, opts.group as HumanGroup | 'auto', groupRules, spec);
      const ids = (opts.evaluator as string[]).map((e) => resolveEvaluator(items, e, { groupRules }));
      const names = displayNames(ids);
      const results = ids.map((id) =>
        evaluatorAltTest(items, id, {
          group,
          spec,
          calibration: opts.calibration as RatingCalibration,
          groupRules,
          epsilon: opts.epsilon as number,
          alpha: opts.alpha as number,
          threshold: opts.threshold as number | 'match-rate',
          ...(opts.scoring !== undefined ? { scoring: opts.scoring as AltTestScoring } : {}),
          minInstancesPerHuman: opts.minInstances as number,
          zeroVariance: opts.zeroVariance as 'untested' | 'reference',
          test: opts.test as 't' | 'cluster-jackknife',
          baselines: opts.baselines === false ? false : { draws: opts.baselineDraws as number, seed: /^-?\d+$/.test(opts.seed as string) ? Number(opts.seed) : (opts.seed as string) },
          displayName: names.get(id) ?? id,
        }),
      );
      if (opts.json) {
        process.stdout.write(JSON.stringify(results.map((r) => ({ displayName: names.get(r.evaluatorId), ...r })), null, 2) + '\n');
        return;
      }
      const tables = results.map((r) => altTestPlainTable(r.result, { evaluator: names.get(r.evaluatorId) ?? r.evaluatorId, group: r.group, threshold: r.threshold, thresholdRule: r.thresholdRule, trivial: r.trivial, verdict: r.verdict, ...(r.dimension ? { dimension: r.dimension } : {}) }));
      if (results.some((r) => r.baselines.length)) tables.push(altTestBaselinesPlainTable(results.map((r) => ({ ...r, displayName: names.get(r.evaluatorId) }))));
      process.stdout.write(renderTables(tables, opts.format as ExportFormat));
      if (results.length > 1 && opts.format === 'text') {
        const ranked = [...results].sort((a, b) => (b.result.advantageProbability ?? -1) - (a.result.advantageProbability ?? -1));
        process.stdout.write(`\nBy advantage probability ρ: ${ranked.map((r) => `${names.get(r.evaluatorId)} ${r.result.advantageProbability?.toFixed(3) ?? '–'} (${r.result.passed ? 'passes' : 'fails'})`).join('; ')}\n`);
      }
    });
}
