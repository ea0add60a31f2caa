/**
 * The correlation table and evaluator comparisons as plain text (CLI), Markdown, LaTeX (booktabs, in the style of
 * Wu et al., ICMI 2023 Tables 2–5: significant values in italics, the best per column in bold) and CSV (every
 * number, unrounded). All formats print the same numbers; the text and Markdown ones round to 3 decimals.
 */
import { stringify } from 'csv-stringify/sync';
import type { EvaluatorComparison } from './compareEvaluators';
import type { CorrelationCell, CorrelationMethod, CorrelationRow, CorrelationTable } from './correlationTable';
import type { EvaluatorKind } from './evaluatorNames';
import { formatInterval, formatP, formatStatistic } from './format';

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
};

/** One sentence saying what the table shows, how it is marked, and how it was computed. */
export function describeTable(t: CorrelationTable): string {
  const human = `${HUMAN_NAME[t.human]} coherence score (number who said coherent${t.humanRequested === 'auto' ? '; chosen automatically' : ''})`;
  const best = t.best === 'absolute' ? 'largest |value|' : 'largest value';
  const boot = t.bootstrap
    ? ` ${Math.round(t.bootstrap.level * 100)}% percentile intervals from ${t.bootstrap.resamples} bootstrap resamples of the ${t.items} items (seed ${t.bootstrap.seed}).`
    : '';
  const pinned = t.configurations && t.configurations.length > 1
    ? ` Side by side: ${t.configurations.map((c) => `"${c.label}" (${METHOD_NAME[c.method]}, ${c.human}, by ${c.groupBy}${c.variant ? `, judges under ${c.variant}` : ''})`).join('; ')}.`
    : '';
  return `${METHOD_NAME[t.method]} between each evaluator and ${human}, by ${t.groupBy}.${pinned} p < ${t.alpha} marked, best per column (${best}) marked; n = responses with both a score and a label.${boot}`;
}

function rowsWithReference(t: CorrelationTable): CorrelationRow[] {
  return [t.reference, ...t.rows];
}

/** Aligned plain text: per column the correlation (`*` p < α, `^` best), p, n (left out) and the interval. */
export function tableToText(t: CorrelationTable): string {
  const header = ['evaluator'];
  for (const c of t.columns) header.push(`${c.label}: ${t.method === 'spearman' ? 'rho' : t.method === 'pearson' ? 'r' : 'tau-b'}`, 'p', 'n (left out)', ...(t.bootstrap ? [`${Math.round(t.bootstrap.level * 100)}% CI`] : []));
  const body = rowsWithReference(t).map((r) => {
    const out = [r.kind === 'human' ? `${r.displayName} (human reference)` : r.displayName];
    for (const cell of r.cells) {
      const mark = `${cell.significant ? '*' : ''}${cell.best ? '^' : ''}`;
      out.push(`${formatStatistic(cell)}${mark}`, formatP(cell.pValue), `${cell.n} (${cell.excluded})`, ...(t.bootstrap ? [formatInterval(cell) + (cell.ci && cell.ci.undefinedResamples ? ` ${cell.ci.undefinedResamples} undef.` : '')] : []));
    }
    return out;
  });
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((r) => r[i].length)));
  const line = (cols: string[]) => cols.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ').trimEnd();
  return [describeTable(t), `* p < ${t.alpha}   ^ best in column   (left out) = responses without a usable score or label`, '', line(header), line(widths.map((w) => '-'.repeat(w))), ...body.map(line)].join('\n');
}

function mdEscape(s: string): string {
  return s.replace(/\|/g, '\\|').replace(/\*/g, '\\*').replace(/_/g, '\\_');
}

function mdCell(cell: CorrelationCell): string {
  let v = formatStatistic(cell);
  if (cell.statistic !== null) {
    if (cell.significant) v = `*${v}*`;
    if (cell.best) v = `**${v}**`;
  }
  const ci = formatInterval(cell);
  return `${v}${ci ? ` ${ci}` : ''} (n = ${cell.n}${cell.excluded ? `, ${cell.excluded} left out` : ''})`;
}

/** Markdown: italics for p < α, bold for best, the interval and n in each cell. */
export function tableToMarkdown(t: CorrelationTable): string {
  const lines = [`${describeTable(t)} *Italics*: p < ${t.alpha}; **bold**: best in column.`, ''];
  lines.push(`| Evaluator | ${t.columns.map((c) => mdEscape(c.label)).join(' | ')} |`);
  lines.push(`|---|${t.columns.map(() => '---:').join('|')}|`);
  for (const r of rowsWithReference(t)) lines.push(`| ${mdEscape(r.kind === 'human' ? `${r.displayName} (human reference)` : r.displayName)} | ${r.cells.map(mdCell).join(' | ')} |`);
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
  const s = v.toFixed(3);
  return s.startsWith('-') ? `$-$${s.slice(1)}` : s;
}

function latexCell(cell: CorrelationCell): string {
  if (cell.statistic === null) return cell.undefinedReason === 'not-in-configuration' ? '--' : `undefined (${cell.undefinedReason ?? 'n/a'})`;
  let v = latexNumber(cell.statistic);
  if (cell.significant) v = `\\textit{${v}}`;
  if (cell.best) v = `\\textbf{${v}}`;
  if (cell.ci) v += cell.ci.lower === null || cell.ci.upper === null ? ' {\\scriptsize [undefined]}' : ` {\\scriptsize [${latexNumber(cell.ci.lower)}, ${latexNumber(cell.ci.upper)}]}`;
  return v;
}

/**
 * A LaTeX table with booktabs rules, as ICMI 2023 Tables 2–5: one column per response group ("On <group>"), the
 * human reference row first, then one block per evaluator kind; significant correlations in `\textit`, the best
 * per column in `\textbf` (both when both). Needs `\usepackage{booktabs}`.
 */
export function tableToLatex(t: CorrelationTable): string {
  const ns = rowsWithReference(t).flatMap((r) => r.cells.map((c) => c.n));
  const nRange = ns.length ? (Math.min(...ns) === Math.max(...ns) ? `$n = ${ns[0]}$` : `$n$ = ${Math.min(...ns)}--${Math.max(...ns)}`) : '';
  const boot = t.bootstrap ? ` Brackets: ${Math.round(t.bootstrap.level * 100)}\\% bootstrap percentile intervals (${t.bootstrap.resamples} resamples of the items, seed ${latexEscape(String(t.bootstrap.seed))}).` : '';
  const who = t.human === 'experts' ? 'expert' : t.human === 'laypeople' ? 'laypeople' : 'all annotators\'';
  const lines = [
    '% Generated by ReflectEval (reflect-eval correlate --format latex). Needs \\usepackage{booktabs}.',
    '\\begin{table}[t]',
    '\\centering',
    `\\caption{${METHOD_LATEX[t.method]} between evaluators and ${who} judgement (coherence scores). Significant ($p < ${t.alpha}$) correlations are \\textit{italicised}. Best performance is in \\textbf{bold}. ${nRange} responses per cell.${boot}}`,
    `\\begin{tabular}{l${'r'.repeat(t.columns.length)}}`,
    '\\toprule',
    `Evaluator & ${t.columns.map((c) => (t.configurations && t.configurations.length > 1 ? latexEscape(c.label) : c.key === 'all' ? 'On All Reflections' : `On ${latexEscape(c.label)} Reflections`)).join(' & ')} \\\\`,
    '\\midrule',
    `Laypeople--Experts Correlation & ${t.reference.cells.map(latexCell).join(' & ')} \\\\`,
  ];
  let kind: EvaluatorKind | null = null;
  for (const r of t.rows) {
    if (r.kind !== kind) {
      kind = r.kind;
      lines.push('\\midrule', `\\multicolumn{${t.columns.length + 1}}{l}{\\emph{${SECTION[kind]}}} \\\\`);
    }
    lines.push(`${latexEscape(r.displayName)} & ${r.cells.map(latexCell).join(' & ')} \\\\`);
  }
  lines.push('\\bottomrule', '\\end{tabular}', '\\end{table}');
  return lines.join('\n');
}

/** CSV, one line per cell (long format), every number unrounded; the human reference row included. */
export function tableToCsv(t: CorrelationTable): string {
  const records: unknown[][] = [
    ['evaluator_id', 'display_name', 'kind', 'column', 'method', 'human', 'n', 'excluded', 'missing_score', 'missing_label', 'statistic', 'p_value', 'undefined_reason', 'p_method', 'significant', 'best', 'ci_level', 'ci_lower', 'ci_upper', 'bootstrap_resamples', 'undefined_resamples', 'seed'],
  ];
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
  return v === null || v === undefined ? 'undefined' : v.toFixed(digits);
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
  const title = `${METHOD_NAME[c0.method]}: A = ${c0.displayA} vs B = ${c0.displayB}; difference = r(A, human) − r(B, human) on the responses both scored`;
  const recs = comparisonRecords(cs);
  const boot = cs.some((c) => c.bootstrap);
  if (format === 'csv') {
    const header = ['evaluator_a', 'evaluator_b', 'method', ...Object.keys(recs[0])];
    return stringify([header, ...recs.map((r) => [c0.evaluatorA, c0.evaluatorB, c0.method, ...Object.values(r).map((v) => v ?? '')])]);
  }
  const header = ['column', 'n', 'r(A)', 'r(B)', 'r(A,B)', 'difference', ...(boot ? [`${Math.round((c0.bootstrap?.level ?? 0.95) * 100)}% CI (bootstrap)`, 'p (bootstrap)'] : []), ...(c0.method === 'kendall' ? [] : ["Williams' t (df)", 'p (Williams)', "Steiger's z", 'p (Steiger)'])];
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
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cols: string[]) => cols.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ').trimEnd();
  return [title, '', line(header), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n');
}
