/**
 * `reflect-eval correlate`: the correlation table (or the comparison of two evaluators) of a dialogue file, printed
 * and optionally written, in text, Markdown, LaTeX or CSV.
 */
import { writeFileSync } from 'node:fs';
import { forestPlotSvg } from '../../core/correlation/forestPlot';
import { InvalidArgumentError, type Command } from 'commander';
import { withCeilingRows } from '../../core/correlation/ceiling';
import { compareEvaluators } from '../../core/correlation/compareEvaluators';
import { exportComparison, exportTable, EXPORT_FORMATS, tableNotes, type ExportFormat } from '../../core/correlation/correlationExport';
import { CORRELATION_METHODS, correlationData, correlationTable, type AverageEvaluator, type CorrelationMethod, type CorrelationTableOptions, type HumanChoice } from '../../core/correlation/correlationTable';
import { displayNames } from '../../core/evaluators/evaluatorNames';
import type { DialogueItem } from '../../core/dialogue/types';
import { INTERVAL_METHODS, type IntervalMethod } from '../../core/stats/bootstrap';
import { P_ADJUST_METHODS, type PAdjustMethod } from '../../core/stats/multipleTesting';
import { dimensionFromFlags, log, oneOf, openDialogues, positiveInt, withDimensionOptions } from '../common';

function average(v: string, prev: AverageEvaluator[] = []): AverageEvaluator[] {
  const m = /^([^=]+)=(.+)$/.exec(v);
  if (!m) throw new InvalidArgumentError('expected <label>=<evaluator>+<evaluator>[+…]');
  const members = m[2].split('+').map((s) => s.trim()).filter(Boolean);
  if (members.length < 2) throw new InvalidArgumentError('an average needs at least two evaluators joined by +');
  return [...prev, { label: m[1].trim(), members }];
}

/**
 * Resolves what the user typed to an evaluator id of the file, trying in turn: the exact id; the only id starting
 * with it; the only display name equal to it (case-insensitive); the only display name starting with it
 * (`BLEU-4` for `BLEU-4 [3c7ed3]`). The averages of `options` count as evaluators.
 *
 * @throws Error when nothing matches (listing every evaluator) or when the first rule that matches finds more
 *   than one: the message lists those matches, one per line as `display name = id`, so the user can pick one
 */
export function resolveEvaluator(items: readonly DialogueItem[], typed: string, options: CorrelationTableOptions): string {
  const data = correlationData(items, { ...options, evaluators: undefined });
  const ids = data.evaluatorIds;
  if (ids.includes(typed)) return typed;
  const names = displayNames(ids, data.signatures);
  const name = (id: string) => (names.get(id) ?? id).toLowerCase();
  const want = typed.trim().toLowerCase();
  const rules = [ids.filter((id) => id.startsWith(typed)), ids.filter((id) => name(id) === want), ids.filter((id) => name(id).startsWith(want))];
  const describe = (list: readonly string[]) => list.map((id) => `  ${names.get(id)} = ${id}`).join('\n');
  for (const matches of rules) {
    if (matches.length === 1) return matches[0];
    if (matches.length > 1) throw new Error(`"${typed}" is ambiguous: it matches ${matches.length} evaluators; give one of these names or ids (a unique id prefix is enough):\n${describe(matches)}`);
  }
  throw new Error(`no evaluator "${typed}" in this file; its evaluators:\n${describe(ids) || '  none'}`);
}

export function registerCorrelate(program: Command): void {
  withDimensionOptions(
    program
      .command('correlate <file>')
      .description('Correlation of every evaluator with the human score on a rubric dimension (default the coherence score, ICMI 2023 Tables 2–5), by response group; or --compare two evaluators'),
  )
    .option('--method <method>', `correlation: ${CORRELATION_METHODS.join(' | ')}`, oneOf(CORRELATION_METHODS), 'spearman')
    .option('--human <group>', 'whose labels: experts | laypeople | all | auto (experts when any expert label exists, else all)', oneOf(['experts', 'laypeople', 'all', 'auto'] as const), 'auto')
    .option('--group-by <key>', 'columns: origin (source label, else model, else kind) | model | strategy | source | kind | none | a candidate field path such as origin.decoding.topP', 'origin')
    .option('--by <key>', 'the same as --group-by')
    .option('--no-all', 'leave out the column of all responses')
    .option('--best <rule>', 'best per column: absolute (largest |r|) | signed (largest r)', oneOf(['absolute', 'signed'] as const), 'absolute')
    .option('--bootstrap [B]', 'percentile bootstrap intervals over items with B resamples (default 1000 when given without a number)', positiveInt)
    .option('--seed <seed>', 'seed of the bootstrap', '1')
    .option('--level <level>', 'confidence level of the intervals', (v) => {
      const n = Number(v);
      if (!(n > 0 && n < 1)) throw new InvalidArgumentError('must be in (0, 1)');
      return n;
    }, 0.95)
    .option('--interval <method>', `how bootstrap bounds are read: ${INTERVAL_METHODS.join(' | ')} (default: see docs/meta-evaluation.md#coverage)`, oneOf(INTERVAL_METHODS))
    .option('--adjust <method>', `adjust each column's p-values for its evaluator rows: ${P_ADJUST_METHODS.join(' | ')} (Holm: familywise; BY: false discovery rate)`, oneOf(P_ADJUST_METHODS))
    .option('--baselines', 'add trivial baseline rows: response length, a constant, a seeded random number')
    .option('--best-mark <rule>', 'separated: mark the best only with n ≥ 20 and when the cluster-jackknife test separates it from the runner-up (default) | largest: the largest value, as the papers', oneOf(['separated', 'largest'] as const), 'separated')
    .option('--p-value <test>', "each cell's p: cluster-jackknife (over dialogue contexts; default) | independent (scipy's, responses as independent: the papers' p)", oneOf(['cluster-jackknife', 'independent'] as const), 'cluster-jackknife')
    .option('--filter <text...>', 'keep evaluators whose id or name contains one of these')
    .option('--average <label=a+b>', 'add a row averaging evaluators (ids joined by +); repeatable', average)
    .option('--compare <evaluators...>', 'compare two evaluators (ids, unique id prefixes or display names): difference, bootstrap interval and p, Williams\' t, Steiger\'s z')
    .option('--ceiling', "first rows: the human ceiling (each annotator of the --human group against the rest of the group) and every evaluator against the same leave-one-out targets (docs/meta-evaluation.md)")
    .option('--format <format>', `output: ${EXPORT_FORMATS.join(' | ')}`, oneOf(EXPORT_FORMATS), 'text')
    .option('-o, --out <file>', 'also write the output to this file')
    .option('--json', 'print the full result as JSON instead')
    .option('--plot <file.svg>', 'also write a forest plot (each evaluator\'s correlation and interval per group, laypeople–experts dashed) as SVG')
    .action((file: string, opts: Record<string, unknown>) => {
      const { items } = openDialogues(file);
      const dimension = dimensionFromFlags(file, opts);
      const seed = /^-?\d+$/.test(opts.seed as string) ? Number(opts.seed) : (opts.seed as string);
      const bootstrap = opts.bootstrap === undefined ? undefined : { resamples: opts.bootstrap === true ? 1000 : (opts.bootstrap as number), seed, level: opts.level as number, ...(opts.interval ? { interval: opts.interval as IntervalMethod } : {}) };
      const options: CorrelationTableOptions = {
        method: opts.method as CorrelationMethod,
        human: opts.human as HumanChoice,
        groupBy: (opts.by ?? opts.groupBy) as string,
        includeAll: opts.all as boolean,
        best: opts.best as 'absolute' | 'signed',
        bootstrap,
        evaluators: opts.filter as string[] | undefined,
        averages: opts.average as AverageEvaluator[] | undefined,
        ...(opts.adjust ? { adjust: opts.adjust as PAdjustMethod } : {}),
        ...(opts.baselines ? { baselines: { seed } } : {}),
        bestMark: opts.bestMark as 'separated' | 'largest',
        pValue: opts.pValue as 'cluster-jackknife' | 'independent',
        ...dimension,
      };
      if (opts.plot && opts.compare) throw new Error('--plot draws the correlation table; it cannot be combined with --compare');
      let output: string;
      let plot: string | undefined;
      const started = Date.now();
      if (opts.compare) {
        const ids = opts.compare as string[];
        if (ids.length !== 2) throw new Error(`--compare takes exactly two evaluators (got ${ids.length})`);
        const [a, b] = ids.map((id) => resolveEvaluator(items, id, options));
        const result = compareEvaluators(items, a, b, options);
        output = opts.json ? JSON.stringify(result, null, 2) : exportComparison(result, opts.format as ExportFormat);
      } else {
        const plain = correlationTable(items, options);
        const table = opts.ceiling ? withCeilingRows(plain, items, options) : plain;
        if (opts.plot) plot = forestPlotSvg(table, { background: '#ffffff' });
        output = opts.json ? JSON.stringify({ ...table, notes: tableNotes(table) }, null, 2) : table.rows.length === 0 && table.reference.cells.every((c) => c.n === 0) ? 'no evaluator scores or human labels in this file' : exportTable(table, opts.format as ExportFormat);
      }
      const ms = Date.now() - started;
      if (!output.endsWith('\n')) output += '\n';
      process.stdout.write(output);
      if (bootstrap) log(`computed in ${ms} ms (${bootstrap.resamples} resamples)`);
      if (opts.out) {
        writeFileSync(opts.out as string, output);
        log(`wrote ${opts.out as string}`);
      }
      if (opts.plot && plot !== undefined) {
        writeFileSync(opts.plot as string, plot);
        log(`wrote ${opts.plot as string} (forest plot)`);
      }
    });
}
