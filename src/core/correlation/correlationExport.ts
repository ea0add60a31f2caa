/**
 * The correlation table and evaluator comparisons as plain text (CLI), Markdown, LaTeX (booktabs, in the style of
 * Wu et al., ICMI 2023 Tables 2–5: significant values in italics, the best per column in bold) and CSV (every
 * number, unrounded). All formats print the same numbers; the text and Markdown ones round to 3 decimals.
 */
import { stringify } from 'csv-stringify/sync';
import type { EvaluatorComparison } from './compareEvaluators';
import type { CorrelationCell, CorrelationMethod, CorrelationRow, CorrelationTable } from './correlationTable';
import type { EvaluatorKind } from '../evaluators/evaluatorNames';
import { formatInterval, formatNumber, formatP, formatStatistic, SHORTFALL_MARK, UNDEFINED_PHRASES, undefinedPhrase } from '../tables/numberFormat';
import { shortfallText } from '../stats/measuredCoverage';
import { showsReferenceRow } from './referenceRow';

export { showsReferenceRow };

export { formatInterval, formatP, formatStatistic };

export type ExportFormat = 'text' | 'md' | 'latex' | 'csv';
export const EXPORT_FORMATS: readonly ExportFormat[] = ['text', 'md', 'latex', 'csv'];

const METHOD_NAME: Record<CorrelationMethod, string> = { spearman: "Spearman's rho", pearson: "Pearson's r", kendall: "Kendall's tau-b" };
const METHOD_LATEX: Record<CorrelationMethod, string> = { spearman: "Spearman's correlations", pearson: "Pearson's correlations", kendall: "Kendall's $\\tau_b$ correlations" };
const HUMAN_NAME = { experts: "the experts'", laypeople: "the laypeople's", all: "all annotators'" } as const;
const SECTION: Record<EvaluatorKind, string> = {
  human: 'Human reference',
  metric: 'Reference-based and other metrics',
  followUp: 'Follow-up likelihood',
  average: 'Averaged evaluators',
  judge: 'LLM judges',
  other: 'Other evaluators',
  baseline: 'Trivial baselines',
};

const INTERVAL_NAME = { percentile: 'percentile', bca: 'BCa', 'expanded-percentile': 'expanded percentile', 'expanded-bca': 'expanded BCa' } as const;
const ADJUST_NAME = { holm: "Holm's step-down", by: 'Benjamini–Yekutieli' } as const;

/** The rule of the best mark, in words. */
export function bestRuleText(t: Pick<CorrelationTable, 'best' | 'bestMark' | 'minBestN' | 'alpha' | 'method'>): string {
  const largest = t.best === 'absolute' ? 'largest |value|' : 'largest value';
  if ((t.bestMark ?? 'largest') === 'largest') return largest;
  return `${largest}, marked only with n ≥ ${t.minBestN ?? 20} and when the cluster-jackknife test of the difference separates it from the runner-up at p < ${t.alpha}`;
}

/** One sentence saying what the table shows, how it is marked, and how it was computed. */
export function describeTable(t: CorrelationTable): string {
  const human = t.dimension
    ? `${HUMAN_NAME[t.human]} ${t.dimension.phrase}${t.humanRequested === 'auto' ? ' (annotators chosen automatically)' : ''}`
    : `${HUMAN_NAME[t.human]} coherence score (number who said coherent${t.humanRequested === 'auto' ? '; chosen automatically' : ''})`;
  const best = bestRuleText(t);
  const boot = t.bootstrap
    ? ` ${Math.round(t.bootstrap.level * 100)}% ${INTERVAL_NAME[t.bootstrap.interval ?? 'percentile']} intervals from ${t.bootstrap.resamples} bootstrap resamples of the ${t.items} items (seed ${t.bootstrap.seed}).`
    : '';
  const adjusted = t.adjust ? ` p-values adjusted for the evaluator rows of each column (${ADJUST_NAME[t.adjust]}).` : '';
  const pTest = t.pTest === 'cluster-jackknife' ? ` p: cluster-jackknife t-test over the ${t.items} dialogue contexts (m − 1 df).` : t.pTest === 'independent' ? " p: scipy's, responses as independent." : '';
  const pinned = t.configurations && t.configurations.length > 1
    ? ` Side by side: ${t.configurations.map((c) => `"${c.label}" (${METHOD_NAME[c.method]}, ${c.human}, by ${c.groupBy}${c.variant ? `, judges under ${c.variant}` : ''})`).join('; ')}.`
    : '';
  const dimension = t.dimension ? `Dimension: ${t.dimension.name} (${t.dimension.type}; human score: ${t.dimension.rule}). ` : '';
  return `${dimension}${METHOD_NAME[t.method]} between each evaluator and ${human}, by ${t.groupBy}.${pinned} p < ${t.alpha} marked${t.adjust ? ' (adjusted)' : ''}, best per column (${best}) marked; n = responses with both a score and a label.${pTest}${adjusted}${boot}`;
}

function rowsWithReference(t: CorrelationTable): CorrelationRow[] {
  return showsReferenceRow(t) ? [t.reference, ...t.rows] : [...t.rows];
}

/** A note under the table: said once, whatever the number of cells it concerns. */
export interface TableNote {
  /**
   * `is-reference`: responses left out of reference-based evaluators because they are the reference;
   * `warning`: defined but degenerate values (the metric's warning, e.g. unsmoothed BLEU-4 without a 4-gram
   * match); `no-labels`: columns (or the whole table) without any label from the chosen annotators;
   * `p-vs-interval`: cells whose p-value and bootstrap interval disagree about significance.
   */
  kind: 'is-reference' | 'warning' | 'no-labels' | 'p-vs-interval' | 'best' | 'selection' | 'baselines' | 'few-clusters' | 'coverage';
  /** The sentence(s), plain text (Markdown and LaTeX escape it). */
  text: string;
  /** Cells the note marks (p-vs-interval: with `†`), as row id and column key. */
  cells: { evaluatorId: string; column: string }[];
}

/** Mark of the cells a `p-vs-interval` note concerns, in every format. */
export const DISAGREEMENT_MARK = '†';

const HUMAN_GROUP = { experts: 'the experts', laypeople: 'the laypeople', all: 'any annotator' } as const;

/** "a, b and c". */
function listing(parts: readonly string[]): string {
  return parts.length <= 1 ? (parts[0] ?? '') : `${parts.slice(0, -1).join(', ')} and ${parts[parts.length - 1]}`;
}

/**
 * The notes of a table, each said once (see {@link TableNote}); every export prints them under the table.
 *
 * - **is-reference**: reference-based evaluators never score the reference against itself; the responses left
 *   out that way are counted per column.
 * - **warning**: for each warning a metric stored with its scores, which evaluators and how many of each
 *   column's correlated responses carry it.
 * - **no-labels**: columns where nobody of the chosen group labelled a response (every cell undefined), or the
 *   whole table when no response has such a label.
 * - **p-vs-interval** (with intervals): cells where p < α but the interval contains 0, or p ≥ α but it excludes
 *   0. They disagree because the p-value treats the n responses as independent pairs, while the interval
 *   resamples the items (dialogue contexts), whose responses are not independent; with a level other than
 *   1 − α the two do not even ask the same question.
 * - **best**: columns whose largest value is not marked, and why (fewer than the required responses, not separated
 *   from the runner-up, a tie).
 * - **selection**: the best row of a column is optimistic (the winner's curse); the honest number is a held-out one.
 * - **baselines**: what the trivial baseline rows are.
 * - **few-clusters**: intervals from fewer contexts than their measured coverage allows (the coverage study).
 */
export function tableNotes(t: CorrelationTable): TableNote[] {
  const notes: TableNote[] = [];
  const label = new Map(t.columns.map((c) => [c.key, c.label]));
  const rows = rowsWithReference(t);

  // the whole table, or some columns, without a single label from the chosen group
  // (judged on the evaluator rows, whose "left out" says why; the reference row when there is none)
  // A column whose responses are labelled but left out as the reference is not "unlabelled": some cell must lack labels.
  const judged = t.rows.length ? t.rows : [t.reference];
  const unlabelled = t.columns.filter((c, k) => rows.every((r) => r.cells[k]?.n === 0) && judged.every((r) => r.kind === 'human' || r.cells[k].missingLabel + (r.cells[k].isReference ?? 0) >= r.cells[k].excluded) && judged.some((r) => r.cells[k].missingLabel > 0));
  const labelWord = t.dimension ? `label on ${t.dimension.name}` : 'coherence label';
  if (unlabelled.length === t.columns.length && t.columns.length > 0) {
    notes.push({
      kind: 'no-labels',
      text: t.dimension
        ? `No response in this file has a ${labelWord} from ${HUMAN_GROUP[t.human]}, so every cell is undefined. Label candidates in the dialogue editor, or import the ratings, then correlate again.`
        : `No response in this file has a coherence label from ${HUMAN_GROUP[t.human]}, so every cell is undefined. Label candidates in the dialogue editor (Y / N), or import an annotation table, then correlate again.`,
      cells: [],
    });
  } else if (unlabelled.length) {
    notes.push({ kind: 'no-labels', text: `Nobody of ${HUMAN_GROUP[t.human]} labelled a response in ${listing(unlabelled.map((c) => c.label))}: every cell there is undefined.`, cells: [] });
  }

  // the reference, left out of reference-based evaluators
  const refRows = t.rows.filter((r) => r.cells.some((c) => (c.isReference ?? 0) > 0));
  if (refRows.length) {
    const perColumn = t.columns.map((c, k) => [c.label, Math.max(...refRows.map((r) => r.cells[k].isReference ?? 0))] as const).filter(([, n]) => n > 0);
    notes.push({
      kind: 'is-reference',
      text: `The reference is never scored against itself: responses that are their item's reference (${perColumn.map(([l, n]) => `${n} in ${l}`).join(', ')}) are left out of ${listing(refRows.map((r) => r.displayName))} and counted in "left out".`,
      cells: refRows.flatMap((r) => r.cells.filter((c) => (c.isReference ?? 0) > 0).map((c) => ({ evaluatorId: r.evaluatorId, column: c.column }))),
    });
  }

  // degenerate values, one note per warning text
  const byWarning = new Map<string, { row: CorrelationRow; cells: CorrelationCell[] }[]>();
  for (const r of t.rows) {
    for (const c of r.cells) {
      for (const w of Object.keys(c.warnings ?? {})) {
        const list = byWarning.get(w) ?? [];
        let entry = list.find((e) => e.row === r);
        if (!entry) list.push((entry = { row: r, cells: [] }));
        entry.cells.push(c);
        byWarning.set(w, list);
      }
    }
  }
  for (const [warning, entries] of byWarning) {
    const parts = entries.map((e) => `${e.row.displayName} for ${listing(e.cells.map((c, i) => `${c.warnings?.[warning]} of the ${c.n}${i === 0 ? ' responses' : ''} in ${label.get(c.column) ?? c.column}`))}`);
    notes.push({
      kind: 'warning',
      text: `Degenerate values: ${parts.join('; ')} — ${warning.replace(/\.$/, '')}.`,
      cells: entries.flatMap((e) => e.cells.map((c) => ({ evaluatorId: e.row.evaluatorId, column: c.column }))),
    });
  }

  // p-value and interval disagreeing about significance
  if (t.bootstrap) {
    const alpha = t.alpha;
    const sigButZero: string[] = [];
    const notSigButExcludes: string[] = [];
    const cells: TableNote['cells'] = [];
    for (const r of rows) {
      for (const c of r.cells) {
        if (c.pValue === null || !c.ci || c.ci.lower === null || c.ci.upper === null) continue;
        const excludesZero = c.ci.lower > 0 || c.ci.upper < 0;
        const sig = c.pValue < alpha;
        if (sig === excludesZero) continue;
        const where = `${r.displayName} in ${label.get(c.column) ?? c.column} (p = ${formatP(c.pValue)}, [${formatNumber(c.ci.lower)}, ${formatNumber(c.ci.upper)}])`;
        (sig ? sigButZero : notSigButExcludes).push(where);
        cells.push({ evaluatorId: r.evaluatorId, column: c.column });
      }
    }
    if (cells.length) {
      const level = Math.round(t.bootstrap.level * 100);
      const parts: string[] = [];
      const jackknife = t.pTest === 'cluster-jackknife';
      const percentile = (t.bootstrap.interval ?? 'percentile') === 'percentile';
      if (sigButZero.length) {
        parts.push(
          jackknife
            ? `p < ${alpha} but the ${level}% interval contains 0 for ${sigButZero.join('; ')}: both respect the ${t.items} items (dialogue contexts), but the jackknife test and the bootstrap interval are different approximations that part near the boundary; read these cells as borderline.`
            : `p < ${alpha} but the ${level}% interval contains 0 for ${sigButZero.join('; ')}: the p-value treats the n responses as independent pairs, ` +
                `while the interval resamples the ${t.items} items (dialogue contexts) with all their responses, because responses to one context are not independent; it is the wider and the more honest of the two here.`,
        );
      }
      if (notSigButExcludes.length) {
        parts.push(
          percentile
            ? `p ≥ ${alpha} but the ${level}% interval excludes 0 for ${notSigButExcludes.join('; ')}: a percentile interval from only ${t.items} items can be too narrow ` +
                `(it only sees the variation between the items that were drawn); the p-value is the more cautious of the two here.`
            : `p ≥ ${alpha} but the ${level}% interval excludes 0 for ${notSigButExcludes.join('; ')}: the two are different approximations that part near the boundary; read these cells as borderline.`,
        );
      }
      const levelNote = Math.abs(t.bootstrap.level - (1 - alpha)) > 1e-12 ? ` Also, the interval's level (${level}%) is not 1 − α (${Math.round((1 - alpha) * 100)}%), so the two do not ask the same question.` : '';
      notes.push({ kind: 'p-vs-interval', text: `${DISAGREEMENT_MARK} The p-value and the bootstrap interval disagree about significance. ${parts.join(' ')}${levelNote}`, cells });
    }
  }

  // cluster-jackknife p undefined (one context, or no variation between contexts)
  if (t.pTest === 'cluster-jackknife') {
    const noP = rows.flatMap((r) => r.cells.filter((c) => c.statistic !== null && c.pValue === null).map((c) => `${r.displayName} in ${label.get(c.column) ?? c.column}`));
    if (noP.length) {
      notes.push({
        kind: 'few-clusters',
        text: `No p-value for ${listing(noP)}: the cluster-jackknife test needs responses from at least two dialogue contexts whose removal changes the correlation. (--p-value independent prints scipy's p, which treats the responses as independent.)`,
        cells: [],
      });
    }
  }

  // intervals from fewer contexts than their method covers at (the coverage study)
  const short = new Map<string, { text: string; cells: TableNote['cells'] }>();
  for (const r of rows) {
    for (const c of r.cells) {
      const sf = c.ci?.shortfall;
      if (!sf) continue;
      const clusters = c.ci?.clusters ?? t.items;
      const key = `${sf.family}/${sf.contexts}/${clusters}`;
      const e = short.get(key) ?? { text: shortfallText(sf, clusters), cells: [] };
      e.cells.push({ evaluatorId: r.evaluatorId, column: c.column });
      short.set(key, e);
    }
  }
  if (short.size) {
    notes.push({
      kind: 'coverage',
      text: `${SHORTFALL_MARK} Intervals from few dialogue contexts: ${[...short.values()].map((e) => e.text).join('; ')} (docs/meta-evaluation.md#coverage). Read them as narrower than they should be; more contexts, not more responses per context, make them honest.`,
      cells: [...short.values()].flatMap((e) => e.cells),
    });
  }

  // the best mark: where the largest value is not marked, and why
  const name = new Map([t.reference, ...t.rows].map((r) => [r.evaluatorId, r.displayName]));
  const unmarked = (t.bestInColumn ?? []).filter((b) => !b.marked && b.best !== null && b.runnerUp !== null);
  if (unmarked.length && (t.bestMark ?? 'largest') === 'separated') {
    const why = unmarked.map((b) => {
      const col = label.get(b.column) ?? b.column;
      const pair = `${name.get(b.best as string)} vs ${name.get(b.runnerUp as string)}`;
      switch (b.reason) {
        case 'too-few':
          return `${col} (${pair}: ${b.n ?? 'fewer than'} ${b.n === null ? `${t.minBestN ?? 20} ` : ''}responses${b.n !== null ? ` in common, fewer than ${t.minBestN ?? 20}` : ''})`;
        case 'not-separated':
          return `${col} (${pair}: jackknife p = ${formatP(b.pValue)}, n = ${b.n})`;
        case 'tie':
          return `${col} (${pair} tie)`;
        default:
          return `${col} (${pair}: no test on their common responses)`;
      }
    });
    notes.push({ kind: 'best', text: `No best is marked in ${listing(why)}: the largest value there is not separated from the runner-up by these data.`, cells: [] });
  }

  // selection: the best row is optimistic
  const evaluators = t.rows.filter((r) => r.kind !== 'human' && r.kind !== 'baseline' && !r.evaluatorId.startsWith('loo:'));
  if (evaluators.length >= 3) {
    notes.push({
      kind: 'selection',
      text:
        `Selection: the best of ${evaluators.length} evaluators in a column is the one these responses favour most, partly by chance, so its value overstates how well it will agree on new responses (the winner's curse; more rows, more optimism)${t.adjust ? '' : ', and its p-value is not adjusted for the other rows (--adjust holm or by)'}. ` +
        "Report a chosen evaluator on data it was not chosen on: `reflect-eval search-prompts` chooses a judge prompt on development contexts and reports its rho on held-out ones (docs/prompt-search.md).",
      cells: [],
    });
  }

  // the baseline rows
  if (t.rows.some((r) => r.kind === 'baseline')) {
    notes.push({
      kind: 'baselines',
      text: 'Baselines: length = the response\'s number of whitespace tokens; a constant has no correlation with anything (undefined), so an evaluator that is nearly constant says little; random = a seeded uniform number per response, what noise alone correlates. An evaluator should beat all three; one that does no better than length may be rewarding length (agreement --length-bias).',
      cells: [],
    });
  }
  return notes;
}

/**
 * Greedy word wrap of `text` to `width` columns, continuation lines indented by `indent`; a word longer than a
 * line is cut.
 */
export function wrapText(text: string, width: number, indent = ''): string[] {
  const out: string[] = [];
  let line = '';
  for (let word of text.split(/\s+/).filter(Boolean)) {
    while ((line ? line.length + 1 : 0) + word.length > width && word.length > width - indent.length) {
      if (line) out.push(line);
      const room = width - (out.length ? indent.length : 0);
      out.push(`${out.length ? indent : ''}${word.slice(0, room)}`);
      word = word.slice(room);
      line = '';
    }
    if (!word) continue;
    if (line && line.length + 1 + word.length > width) {
      out.push(line);
      line = `${indent}${word}`;
    } else line = line ? `${line} ${word}` : `${out.length ? indent : ''}${word}`;
  }
  if (line) out.push(line);
  return out;
}

/** Shortens `s` to `max` characters with an ellipsis in the middle (so both ends, e.g. a hash suffix, stay). */
export function abbreviate(s: string, max: number): string {
  if (s.length <= max) return s;
  const keep = max - 1;
  const head = Math.ceil(keep / 2);
  return `${s.slice(0, head)}…${s.slice(s.length - (keep - head))}`;
}

/**
 * Lays out a table of `rows` (first column: row names) in blocks no wider than `width`: the other columns are
 * grouped (`groups`: a heading and the indices of its columns), and as many groups as fit go side by side; the
 * rest follow in further blocks, each repeating the first column. Row names longer than `maxName` are
 * abbreviated in the middle. Numbers are right-aligned, names left-aligned.
 */
/** Evaluator names longer than this are abbreviated in the middle in text tables (the judge variants of the seeds fit). */
export const NAME_WIDTH = 52;

export function fitColumns(header: readonly string[], rows: readonly string[][], groups: readonly { heading: string; columns: number[] }[], width: number, maxName = NAME_WIDTH): string[] {
  const gap = 2;
  const names = [header[0], ...rows.map((r) => r[0])].map((n) => abbreviate(n, maxName));
  const nameWidth = Math.max(...names.map((n) => n.length));
  const colWidth = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const groupWidth = groups.map((g) => Math.max(g.heading.length, g.columns.reduce((s, i) => s + colWidth[i], 0) + gap * (g.columns.length - 1)));
  const blocks: number[][] = [];
  let current: number[] = [];
  let used = nameWidth;
  groups.forEach((_, k) => {
    const w = gap + 2 + groupWidth[k];
    if (current.length && used + w > width) {
      blocks.push(current);
      current = [];
      used = nameWidth;
    }
    current.push(k);
    used += w;
  });
  if (current.length) blocks.push(current);
  const lines: string[] = [];
  blocks.forEach((block, b) => {
    if (b > 0) lines.push('');
    const cells = (values: readonly string[]) =>
      block.map((k) => ' '.repeat(gap + 2) + groups[k].columns.map((i) => values[i].padStart(colWidth[i])).join(' '.repeat(gap)).padStart(groupWidth[k])).join('');
    const headingLine = names[0].replace(/./g, ' ').padEnd(nameWidth) + block.map((k) => ' '.repeat(gap + 2) + groups[k].heading.padEnd(groupWidth[k])).join('');
    lines.push(headingLine.trimEnd());
    lines.push((names[0].padEnd(nameWidth) + cells(header)).trimEnd());
    lines.push(('-'.repeat(nameWidth) + block.map((k) => ' '.repeat(gap + 2) + '-'.repeat(groupWidth[k])).join('')).trimEnd());
    rows.forEach((r, i) => lines.push((names[i + 1].padEnd(nameWidth) + cells(r)).trimEnd()));
  });
  return lines;
}

/** Width of the plain-text outputs (a terminal's customary 120 columns). */
export const TEXT_WIDTH = 120;

function undefinedShort(cell: CorrelationCell): string {
  return undefinedPhrase(cell.undefinedReason);
}

/**
 * Aligned plain text no wider than `width` (default 120): per column group the correlation (`*` p < α, `^`
 * best, `†` p and interval disagree), p, n (left out) and the interval; groups that do not fit side by side
 * follow in further blocks; long evaluator names are abbreviated in the middle (the Markdown, LaTeX and CSV
 * exports keep them whole). The notes ({@link tableNotes}) follow, each once.
 */
export function tableToText(t: CorrelationTable, options: { width?: number } = {}): string {
  const width = options.width ?? TEXT_WIDTH;
  const notes = tableNotes(t);
  const marked = disagreeing(notes);
  const sym = t.method === 'spearman' ? 'rho' : t.method === 'pearson' ? 'r' : 'tau-b';
  const header = ['evaluator'];
  const groups: { heading: string; columns: number[] }[] = [];
  for (const c of t.columns) {
    const start = header.length;
    header.push(sym, t.adjust ? `p (${t.adjust === 'holm' ? 'Holm' : 'BY'})` : 'p', 'n (out)', ...(t.bootstrap ? [`${Math.round(t.bootstrap.level * 100)}% CI`] : []));
    groups.push({ heading: c.label, columns: Array.from({ length: header.length - start }, (_, i) => start + i) });
  }
  const body = rowsWithReference(t).map((r) => {
    const out = [r.kind === 'human' ? `${r.displayName} (human reference)` : r.displayName];
    for (const cell of r.cells) {
      const mark = `${cell.significant ? '*' : ''}${cell.best ? '^' : ''}${marked.has(cellKey(r.evaluatorId, cell.column)) ? DISAGREEMENT_MARK : ''}`;
      // no interval where there is no correlation to bound (fewer than 3 responses)
      const ci = cell.n < 3 ? '' : formatInterval(cell) + (cell.ci && cell.ci.undefinedResamples ? ` ${cell.ci.undefinedResamples} undef.` : '');
      out.push(cell.statistic === null ? undefinedShort(cell) : `${formatStatistic(cell)}${mark}`, formatP(t.adjust && cell.pAdjusted !== undefined ? cell.pAdjusted : cell.pValue), `${cell.n} (${cell.excluded})`, ...(t.bootstrap ? [ci] : []));
    }
    return out;
  });
  const undefinedKinds = new Set(rowsWithReference(t).flatMap((r) => r.cells.map((c) => c.undefinedReason)).filter(Boolean));
  const legend = [
    `* p < ${t.alpha}${t.adjust ? ` (${t.adjust === 'holm' ? 'Holm' : 'BY'}-adjusted for the evaluator rows of the column; human and baseline rows unadjusted)` : ''}; ^ best in column (${bestRuleText(t)});${marked.size ? ` ${DISAGREEMENT_MARK} p and interval disagree (see the note);` : ''} n (out) = responses correlated (left out: no usable score or label${notes.some((n) => n.kind === 'is-reference') ? ', or the reference itself' : ''}).`,
    ...(undefinedKinds.has('too-few') ? ['too few = undefined: fewer than 3 responses with both a score and a label'] : []),
    ...(undefinedKinds.has('constant-input') ? [`${UNDEFINED_PHRASES['constant-input']} = undefined: the scores or the human scores do not vary in that column (scipy gives nan)`] : []),
  ];
  const out = [...wrapText(describeTable(t), width), ...legend.flatMap((l) => wrapText(l, width)), '', ...fitColumns(header, body, groups, width)];
  if (notes.length) {
    out.push('', 'Notes:');
    notes.forEach((n, i) => out.push(...wrapText(`${i + 1}. ${n.text}`, width, '   ')));
  }
  if (t.legend?.length) {
    out.push('', 'Evaluators (name = id; configuration):');
    for (const e of t.legend) out.push(...wrapText(`${abbreviate(e.name, NAME_WIDTH)} = ${e.id}${e.signature && !e.id.endsWith(e.signature) ? `; ${e.signature}` : ''}`, width, '   '));
  }
  return out.join('\n');
}

function mdEscape(s: string): string {
  return s.replace(/\|/g, '\\|').replace(/\*/g, '\\*').replace(/_/g, '\\_');
}

function cellKey(evaluatorId: string, column: string): string {
  return `${evaluatorId}\u0000${column}`;
}

/** Keys of the cells the p-vs-interval note marks. */
function disagreeing(notes: readonly TableNote[]): Set<string> {
  return new Set(notes.filter((n) => n.kind === 'p-vs-interval').flatMap((n) => n.cells.map((c) => cellKey(c.evaluatorId, c.column))));
}

function mdCell(cell: CorrelationCell, mark = false): string {
  let v = formatStatistic(cell);
  if (cell.statistic !== null) {
    if (cell.significant) v = `*${v}*`;
    if (cell.best) v = `**${v}**`;
    if (mark) v += DISAGREEMENT_MARK;
  }
  const ci = formatInterval(cell);
  return `${v}${ci ? ` ${ci}` : ''} (n = ${cell.n}${cell.excluded ? `, ${cell.excluded} left out` : ''})`;
}

/** Markdown: italics for p < α, bold for best, the interval and n in each cell; the notes, numbered, below. */
export function tableToMarkdown(t: CorrelationTable): string {
  const notes = tableNotes(t);
  const marked = disagreeing(notes);
  const lines = [`${describeTable(t)} *Italics*: p < ${t.alpha}${t.adjust ? ' (adjusted)' : ''}; **bold**: best in column.${marked.size ? ` ${DISAGREEMENT_MARK}: p and interval disagree (see the notes).` : ''}`, ''];
  lines.push(`| Evaluator | ${t.columns.map((c) => mdEscape(c.label)).join(' | ')} |`);
  lines.push(`|---|${t.columns.map(() => '---:').join('|')}|`);
  for (const r of rowsWithReference(t)) lines.push(`| ${mdEscape(r.kind === 'human' ? `${r.displayName} (human reference)` : r.displayName)} | ${r.cells.map((c) => mdCell(c, marked.has(cellKey(r.evaluatorId, c.column)))).join(' | ')} |`);
  if (notes.length) lines.push('', 'Notes:', '', ...notes.map((n, i) => `${i + 1}. ${mdEscape(n.text)}`));
  if (t.legend?.length) lines.push('', 'Evaluators:', '', ...t.legend.map((e) => `- ${mdEscape(e.name)}: \`${e.id}\`${e.signature && !e.id.endsWith(e.signature) ? ` (\`${e.signature}\`)` : ''}`));
  return lines.join('\n');
}

const LATEX_ESCAPES: Record<string, string> = {
  '\\': '\\textbackslash{}',
  '&': '\\&',
  '%': '\\%',
  $: '\\$',
  '#': '\\#',
  _: '\\_',
  '{': '\\{',
  '}': '\\}',
  '~': '\\textasciitilde{}',
  '^': '\\textasciicircum{}',
  '×': '$\\times$',
  '–': '--',
  '−': '$-$',
  '·': '$\\cdot$',
  'ρ': '$\\rho$',
  'τ': '$\\tau$',
};

/**
 * Escapes LaTeX's special characters in one pass (so the braces of `\textbackslash{}` are not escaped again), and
 * writes ×, –, − (minus), ·, ρ, τ as commands pdfLaTeX knows without extra packages.
 */
export function latexEscape(s: string): string {
  return s.replace(/[\\&%$#_{}~^×–−·ρτ]/g, (m) => LATEX_ESCAPES[m]);
}

function latexNumber(v: number): string {
  const s = formatNumber(v);
  return s.startsWith('-') ? `$-$${s.slice(1)}` : s;
}

function latexCell(cell: CorrelationCell, mark = false): string {
  if (cell.statistic === null) return cell.undefinedReason === 'not-in-configuration' ? '--' : undefinedPhrase(cell.undefinedReason);
  let v = latexNumber(cell.statistic);
  if (cell.significant) v = `\\textit{${v}}`;
  if (cell.best) v = `\\textbf{${v}}`;
  if (mark) v += '\\textsuperscript{\\dag}';
  if (cell.ci) v += cell.ci.lower === null || cell.ci.upper === null ? ' {\\scriptsize [undefined]}' : ` {\\scriptsize [${latexNumber(cell.ci.lower)}, ${latexNumber(cell.ci.upper)}]${cell.ci.shortfall ? '\\textsuperscript{\\ddag}' : ''}}`;
  return v;
}

/**
 * A LaTeX table with booktabs rules, as ICMI 2023 Tables 2–5: one column per response group ("On <group>"), the
 * human reference row first, then one block per evaluator kind; significant correlations in `\textit`, the best
 * per column in `\textbf` (both when both). Needs `\usepackage{booktabs}`.
 */
export function tableToLatex(t: CorrelationTable): string {
  const notes = tableNotes(t);
  const marked = disagreeing(notes);
  const cellsOf = (r: CorrelationRow) => r.cells.map((c) => latexCell(c, marked.has(cellKey(r.evaluatorId, c.column)))).join(' & ');
  const ns = rowsWithReference(t).flatMap((r) => r.cells.map((c) => c.n));
  const nRange = ns.length ? (Math.min(...ns) === Math.max(...ns) ? `$n = ${ns[0]}$` : `$n$ = ${Math.min(...ns)}--${Math.max(...ns)}`) : '';
  const boot = t.bootstrap ? ` Brackets: ${Math.round(t.bootstrap.level * 100)}\\% bootstrap ${INTERVAL_NAME[t.bootstrap.interval ?? 'percentile']} intervals (${t.bootstrap.resamples} resamples of the items, seed ${latexEscape(String(t.bootstrap.seed))}).` : '';
  const who = t.human === 'experts' ? 'expert' : t.human === 'laypeople' ? 'laypeople' : 'all annotators\'';
  const judgement = t.dimension ? `${latexEscape(t.dimension.phrase)}, dimension \\texttt{${latexEscape(t.dimension.name)}}` : 'coherence scores';
  const responses = t.dimension ? 'Responses' : 'Reflections';
  const lines = [
    '% Generated by ReflectEval (reflect-eval correlate --format latex). Needs \\usepackage{booktabs}.',
    '\\begin{table}[t]',
    '\\centering',
    `\\caption{${METHOD_LATEX[t.method]} between evaluators and ${who} judgement (${judgement}). Significant ($p < ${t.alpha}$${t.adjust ? `, ${t.adjust === 'holm' ? 'Holm' : 'Benjamini--Yekutieli'}-adjusted` : ''}) correlations are \\textit{italicised}. Best performance is in \\textbf{bold}${(t.bestMark ?? 'largest') === 'separated' ? ` (only where $n \\geq ${t.minBestN ?? 20}$ and a cluster-jackknife test separates it from the runner-up)` : ''}. ${nRange} responses per cell.${boot}}`,
    `\\begin{tabular}{l${'r'.repeat(t.columns.length)}}`,
    '\\toprule',
    `Evaluator & ${t.columns.map((c) => (t.configurations && t.configurations.length > 1 ? latexEscape(c.label) : c.key === 'all' ? `On All ${responses}` : `On ${latexEscape(c.label)} ${responses}`)).join(' & ')} \\\\`,
    '\\midrule',
    ...(showsReferenceRow(t) ? [`Laypeople--Experts Correlation & ${cellsOf(t.reference)} \\\\`] : []),
  ];
  let kind: EvaluatorKind | null = null;
  for (const r of t.rows) {
    if (r.kind !== kind) {
      kind = r.kind;
      lines.push('\\midrule', `\\multicolumn{${t.columns.length + 1}}{l}{\\emph{${SECTION[kind]}}} \\\\`);
    }
    lines.push(`${latexEscape(r.displayName)} & ${cellsOf(r)} \\\\`);
  }
  lines.push('\\bottomrule', '\\end{tabular}');
  if (notes.length) {
    lines.push('\\par\\smallskip', `{\\footnotesize\\raggedright Notes. ${notes.map((n, i) => `${i + 1}.~${latexEscape(n.text).replace(/†/g, '\\dag{}').replace(/‡/g, '\\ddag{}').replace(/≥/g, '$\\geq$')}`).join(' ')}\\par}`);
  }
  lines.push('\\end{table}');
  // The legend as comments: every row's full id and configuration, without touching what LaTeX typesets.
  for (const e of t.legend ?? []) lines.push(`% ${e.name} = ${e.id}${e.signature && !e.id.endsWith(e.signature) ? `; ${e.signature}` : ''}`);
  return lines.join('\n');
}

/** CSV, one line per cell (long format), every number unrounded; the human reference row included. */
export function tableToCsv(t: CorrelationTable): string {
  const records: unknown[][] = [
    ['evaluator_id', 'display_name', 'kind', 'column', 'method', 'human', 'n', 'excluded', 'missing_score', 'missing_label', 'statistic', 'p_value', 'undefined_reason', 'p_method', 'significant', 'best', 'ci_level', 'ci_lower', 'ci_upper', 'bootstrap_resamples', 'undefined_resamples', 'seed', 'is_reference', 'warnings', 'p_interval_disagree', 'signature', 'p_adjusted', 'p_adjust', 'ci_method', 'p_independent', 'ci_measured_coverage', ...(t.dimension ? ['dimension', 'human_score'] : [])],
  ];
  const marked = disagreeing(tableNotes(t));
  const signatures = new Map((t.legend ?? []).map((e) => [e.id, e.signature]));
  for (const r of rowsWithReference(t)) {
    for (const c of r.cells) {
      records.push([
        r.evaluatorId,
        r.displayName,
        r.kind,
        c.column,
        t.method,
        t.human,
        c.n,
        c.excluded,
        c.missingScore,
        c.missingLabel,
        c.statistic ?? '',
        c.pValue ?? '',
        c.undefinedReason ?? '',
        c.pMethod ?? '',
        c.significant,
        c.best,
        c.ci?.level ?? '',
        c.ci?.lower ?? '',
        c.ci?.upper ?? '',
        c.ci?.resamples ?? '',
        c.ci?.undefinedResamples ?? '',
        t.bootstrap?.seed ?? '',
        c.isReference ?? 0,
        Object.entries(c.warnings ?? {}).map(([w, k]) => `${k}: ${w}`).join(' | '),
        marked.has(cellKey(r.evaluatorId, c.column)),
        signatures.get(r.evaluatorId) ?? '',
        c.pAdjusted ?? '',
        t.adjust && c.pAdjusted !== undefined ? t.adjust : '',
        c.ci?.method ?? '',
        c.pIndependent ?? (t.pTest === 'cluster-jackknife' ? '' : (c.pValue ?? '')),
        c.ci?.shortfall?.coverage ?? '',
        ...(t.dimension ? [t.dimension.name, t.dimension.rule] : []),
      ]);
    }
  }
  return stringify(records, { cast: { boolean: (b) => (b ? 'true' : 'false'), number: (n) => String(n) } });
}

/** The table in `format`. */
export function exportTable(t: CorrelationTable, format: ExportFormat): string {
  switch (format) {
    case 'text':
      return tableToText(t);
    case 'md':
      return tableToMarkdown(t);
    case 'latex':
      return tableToLatex(t);
    case 'csv':
      return tableToCsv(t);
  }
}

function fmt(v: number | null | undefined, digits = 3): string {
  return v === null || v === undefined ? 'undefined' : formatNumber(v, digits);
}

/** Comparison rows as records: column, n, rA, rB, difference, interval, the three p-values. */
function comparisonRecords(cs: readonly EvaluatorComparison[]) {
  return cs.map((c) => ({
    column: c.column,
    n: c.n,
    rA: c.rA,
    rB: c.rB,
    rAB: c.rAB,
    difference: c.difference,
    williamsT: c.williams?.statistic ?? null,
    williamsDf: c.williams?.df ?? null,
    williamsP: c.williams?.pValue ?? null,
    steigerZ: c.steiger?.statistic ?? null,
    steigerP: c.steiger?.pValue ?? null,
    jackknifeT: c.jackknife?.statistic ?? null,
    jackknifeDf: c.jackknife?.df ?? null,
    jackknifeP: c.jackknife?.pValue ?? null,
    ciLower: c.bootstrap?.lower ?? null,
    ciUpper: c.bootstrap?.upper ?? null,
    bootstrapP: c.bootstrap?.pValue ?? null,
    undefinedResamples: c.bootstrap?.undefinedResamples ?? null,
  }));
}

/** The comparison of two evaluators in `format` (LaTeX gives a booktabs table of the same columns). */
export function exportComparison(cs: readonly EvaluatorComparison[], format: ExportFormat): string {
  if (cs.length === 0) return '';
  const c0 = cs[0];
  const title = `${c0.dimension ? `Dimension: ${c0.dimension.name} (${c0.dimension.phrase}). ` : ''}${METHOD_NAME[c0.method]}: A = ${c0.displayA} vs B = ${c0.displayB}; difference = r(A, human) − r(B, human) on the responses both scored`;
  const recs = comparisonRecords(cs);
  const boot = cs.some((c) => c.bootstrap);
  if (format === 'csv') {
    const header = ['evaluator_a', 'evaluator_b', 'method', ...Object.keys(recs[0]), ...(c0.dimension ? ['dimension', 'human_score'] : [])];
    return stringify([header, ...recs.map((r) => [c0.evaluatorA, c0.evaluatorB, c0.method, ...Object.values(r).map((v) => v ?? ''), ...(c0.dimension ? [c0.dimension.name, c0.dimension.rule] : [])])]);
  }
  const header = ['column', 'n', 'r(A)', 'r(B)', 'r(A,B)', 'difference', ...(boot ? [`${Math.round((c0.bootstrap?.level ?? 0.95) * 100)}% CI (bootstrap)`, 'p (bootstrap)'] : []), 'jackknife t (df)', 'p (jackknife)', ...(c0.method === 'kendall' ? [] : ["Williams' t (df)", 'p (Williams)', "Steiger's z", 'p (Steiger)'])];
  const rows = cs.map((c, i) => {
    const r = recs[i];
    return [
      c.column,
      String(c.n),
      fmt(c.rA),
      fmt(c.rB),
      fmt(c.rAB),
      fmt(c.difference),
      ...(boot ? [c.bootstrap ? (c.bootstrap.lower === null ? '[undefined]' : `[${fmt(c.bootstrap.lower)}, ${fmt(c.bootstrap.upper)}]`) : '', formatP(r.bootstrapP)] : []),
      r.jackknifeT === null ? 'undefined' : `${fmt(r.jackknifeT)} (${r.jackknifeDf})`,
      formatP(r.jackknifeP),
      ...(c0.method === 'kendall' ? [] : [r.williamsT === null ? `undefined (${c.williams?.undefinedReason})` : `${fmt(r.williamsT)} (${r.williamsDf})`, formatP(r.williamsP), r.steigerZ === null ? `undefined (${c.steiger?.undefinedReason})` : fmt(r.steigerZ), formatP(r.steigerP)]),
    ];
  });
  if (format === 'md') return [title, '', `| ${header.join(' | ')} |`, `|${header.map((_, i) => (i === 0 ? '---' : '---:')).join('|')}|`, ...rows.map((r) => `| ${r.map(mdEscape).join(' | ')} |`)].join('\n');
  if (format === 'latex') {
    return [
      '\\begin{table}[t]',
      '\\centering',
      `\\caption{${latexEscape(title)}.}`,
      `\\begin{tabular}{l${'r'.repeat(header.length - 1)}}`,
      '\\toprule',
      `${header.map(latexEscape).join(' & ')} \\\\`,
      '\\midrule',
      ...rows.map((r) => `${r.map(latexEscape).join(' & ')} \\\\`),
      '\\bottomrule',
      '\\end{tabular}',
      '\\end{table}',
    ].join('\n');
  }
  // plain text: the same columns, in blocks that fit the width (statistics; bootstrap; Williams; Steiger)
  const short = (v: string) => v.replace(/^undefined \(too-few\)$/, 'too few').replace(/^undefined \(([^)]*)\)$/, '$1');
  const textRows = rows.map((r) => r.map(short));
  const at = (h: string) => header.indexOf(h);
  const groups = [{ heading: '', columns: [1, 2, 3, 4, 5] }];
  if (boot) groups.push({ heading: 'paired bootstrap', columns: [6, 7] });
  groups.push({ heading: 'cluster jackknife', columns: [at('jackknife t (df)'), at('p (jackknife)')] });
  if (c0.method !== 'kendall') groups.push({ heading: "Williams' t", columns: [at("Williams' t (df)"), at('p (Williams)')] }, { heading: "Steiger's z", columns: [at("Steiger's z"), at('p (Steiger)')] });
  const note = c0.method === 'kendall' ? '' : "Williams' t and Steiger's z treat the responses as independent: with responses clustered in dialogue contexts they rejected a true null 7–8 % of the time at 5 % in the coverage study (docs/meta-evaluation.md#coverage); the cluster-jackknife t (over the contexts, m − 1 df) and the paired bootstrap respect the contexts.";
  return [...wrapText(title, TEXT_WIDTH), '', ...fitColumns(header, textRows, groups, TEXT_WIDTH), ...(note ? ['', ...wrapText(note, TEXT_WIDTH)] : [])].join('\n');
}
