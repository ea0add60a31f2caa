/**
 * Side by side: several configurations (method, human group, grouping, judge prompt variant) of the correlation
 * table pinned into one table, their columns for the same response group adjacent — e.g. GPT-2 under Spearman
 * next to GPT-2 under Kendall, or a judge under prompt variant A next to the same judge under variant B.
 */
import type { DialogueItem } from '../dialogue/types';
import {
  adjustRows,
  bestSeparation,
  correlationData,
  correlationTable,
  correlationTableAsync,
  markBest,
  type BestInColumn,
  type CorrelationCell,
  type CorrelationColumn,
  type CorrelationRow,
  type CorrelationTable,
  type CorrelationTableOptions,
} from './correlationTable';
import { parseJudgeId } from '../evaluators/evaluatorNames';
import { withCeilingRows } from './ceiling';

/** One pinned configuration. */
export interface PinnedConfiguration {
  /** Shown in the column headers, e.g. `spearman · experts` or `tutorial prompt`. */
  label: string;
  options: CorrelationTableOptions;
  /**
   * A judge prompt variant `<body>×<request>` (e.g. `instructions×rating`): the configuration keeps only that
   * variant's judge rows and files them under the judge (`judge:<judge id>`), so one judge's variants line up in
   * one row across configurations. Metric rows are unaffected.
   */
  variant?: string;
  /**
   * Put the human ceiling first (`withCeilingRows`, the same rows as `reflect-eval correlate --ceiling` with these
   * options): the group's leave-one-annotator-out agreement, then each evaluator against the same targets.
   */
  ceiling?: boolean;
}

/** Row key of an evaluator in a configuration: a judge's id without its variant when the configuration has one. */
function rowKey(evaluatorId: string, variant: string | undefined): string | null {
  if (!variant) return evaluatorId;
  // A ceiling row of an evaluator (`loo:<group>:<evaluator id>`) follows its evaluator.
  const loo = /^(loo:[^:]+:)(.*)$/.exec(evaluatorId);
  if (loo) {
    const inner = rowKey(loo[2], variant);
    return inner === null ? null : loo[1] + inner;
  }
  const j = parseJudgeId(evaluatorId);
  if (!j) return evaluatorId;
  return `${j.body}×${j.request}` === variant ? `judge:${j.judge}` : null;
}

function judgeName(key: string): string {
  return `${key.slice('judge:'.length).replace(/^(local|api):/, '')} (judge)`;
}

function rowName(key: string): string {
  const loo = /^loo:([^:]+):(.*)$/.exec(key);
  return loo ? `${judgeName(loo[2])} vs rest of ${loo[1]}` : judgeName(key);
}

function absentCell(column: string): CorrelationCell {
  return { column, n: 0, excluded: 0, missingScore: 0, missingLabel: 0, statistic: null, pValue: null, undefinedReason: 'not-in-configuration', significant: false, best: false };
}

/**
 * Merges the tables of `configs` (computed on the same items) into one: for each response group, in order of first
 * appearance, one column per configuration that has it (key `<config index>:<group>`, label `<group> · <config
 * label>`); rows keyed by evaluator id (or by judge, see {@link PinnedConfiguration.variant}), in the order of first
 * appearance; a row a configuration lacks gets `undefined (not-in-configuration)` cells. Significance marks are
 * those of each configuration's own table; best marks too, re-marked among the rows a variant keeps (by the table's
 * rule: the separation test needs `items`; without them a variant's columns get no best under `separated`), and the
 * adjusted p-values re-adjusted among them.
 */
export function mergeTables(configs: readonly PinnedConfiguration[], tables: readonly CorrelationTable[], items?: readonly DialogueItem[]): CorrelationTable {
  if (configs.length === 0 || configs.length !== tables.length) throw new Error('mergeTables needs one table per configuration');
  const groups: string[] = [];
  for (const t of tables) for (const c of t.columns) if (!groups.includes(c.key)) groups.push(c.key);
  if (groups.includes('all')) groups.push(...groups.splice(groups.indexOf('all'), 1));
  const columns: (CorrelationColumn & { config: number; group: string })[] = [];
  for (const g of groups) {
    tables.forEach((t, i) => {
      const col = t.columns.find((c) => c.key === g);
      if (col) columns.push({ ...col, key: `${i}:${g}`, label: configs.length > 1 ? `${col.label} · ${configs[i].label}` : col.label, config: i, group: g });
    });
  }
  const rowOrder: string[] = [];
  const rowInfo = new Map<string, Omit<CorrelationRow, 'cells'>>();
  const cellOf = new Map<string, CorrelationCell>();
  const bestInColumn: BestInColumn[] = [];
  tables.forEach((t, i) => {
    // A variant keeps only its judge rows: best is re-marked among the rows kept, not among all variants.
    const kept = t.rows.filter((r) => rowKey(r.evaluatorId, configs[i].variant) !== null);
    const rows = kept.length === t.rows.length ? t.rows : kept.map((r) => ({ ...r, cells: r.cells.map((c) => ({ ...c })) }));
    let best = t.bestInColumn ?? [];
    if (rows !== t.rows) {
      if (t.adjust) adjustRows(rows, t.adjust, t.alpha);
      const separation = items ? bestSeparation(correlationData(items, configs[i].options), t.method) : undefined;
      best = markBest(rows, t.best, { mark: t.bestMark ?? 'largest', minN: t.minBestN, alpha: t.alpha, separation });
    }
    for (const b of best) bestInColumn.push({ ...b, column: `${i}:${b.column}` });
    for (const r of rows) {
      const key = rowKey(r.evaluatorId, configs[i].variant) as string;
      if (!rowInfo.has(key)) {
        rowOrder.push(key);
        rowInfo.set(key, { evaluatorId: key, displayName: key === r.evaluatorId ? r.displayName : rowName(key), kind: r.kind });
      }
      for (const c of r.cells) cellOf.set(`${key}\u0000${i}:${c.column}`, { ...c, column: `${i}:${c.column}` });
    }
    for (const c of t.reference.cells) cellOf.set(`\u0001ref\u0000${i}:${c.column}`, { ...c, column: `${i}:${c.column}` });
  });
  const cellsFor = (key: string) => columns.map((col) => cellOf.get(`${key}\u0000${col.key}`) ?? absentCell(col.key));
  const t0 = tables[0];
  return {
    ...t0,
    columns: columns.map(({ config: _c, group: _g, ...c }) => c),
    rows: rowOrder.map((key) => ({ ...(rowInfo.get(key) as Omit<CorrelationRow, 'cells'>), cells: cellsFor(key) })),
    reference: { ...t0.reference, cells: cellsFor('\u0001ref') },
    bestInColumn,
    configurations: configs.map((c, i) => ({ label: c.label, method: tables[i].method, human: tables[i].human, groupBy: tables[i].groupBy, ...(c.variant ? { variant: c.variant } : {}) })),
  };
}

function withCeilingIf(c: PinnedConfiguration, table: CorrelationTable, items: readonly DialogueItem[]): CorrelationTable {
  return c.ceiling ? withCeilingRows(table, items, c.options) : table;
}

/** The side-by-side table of `configs` on `items` (see {@link mergeTables}). */
export function sideBySide(items: readonly DialogueItem[], configs: readonly PinnedConfiguration[]): CorrelationTable {
  return mergeTables(
    configs,
    configs.map((c) => withCeilingIf(c, correlationTable(items, c.options), items)),
    items,
  );
}

/** {@link sideBySide} with the bootstrap computed cooperatively (see `correlationTableAsync`). */
export async function sideBySideAsync(items: readonly DialogueItem[], configs: readonly PinnedConfiguration[], signal?: AbortSignal): Promise<CorrelationTable> {
  const tables: CorrelationTable[] = [];
  for (const c of configs) {
    const table = await correlationTableAsync(items, c.options, signal);
    if (c.ceiling) {
      // The ceiling's bootstrap runs in one piece: let the next change cancel before it starts.
      await new Promise<void>((resolve) => setImmediate(resolve));
      signal?.throwIfAborted();
    }
    tables.push(withCeilingIf(c, table, items));
  }
  return mergeTables(configs, tables, items);
}

/**
 * The table to export: a side-by-side table of one configuration (the panel's usual case) as the CLI's table of that
 * configuration — columns keyed by response group (`BART`, not `0:BART`), no configuration list — so the panel's
 * CSV, Markdown and LaTeX equal `reflect-eval correlate`'s for the same settings (issue 41 item 5). A table of two or
 * more configurations is returned as it is (its columns need the configuration).
 */
export function exportableTable(table: CorrelationTable): CorrelationTable {
  if ((table.configurations?.length ?? 1) > 1) return table;
  const group = (key: string) => key.replace(/^0:/, '');
  const cells = (cs: readonly CorrelationCell[]) => cs.map((c) => ({ ...c, column: group(c.column) }));
  const { configurations: _configurations, ...rest } = table;
  return {
    ...rest,
    columns: table.columns.map((c) => ({ ...c, key: group(c.key) })),
    rows: table.rows.map((r) => ({ ...r, cells: cells(r.cells) })),
    reference: { ...table.reference, cells: cells(table.reference.cells) },
    ...(table.bestInColumn ? { bestInColumn: table.bestInColumn.map((b) => ({ ...b, column: group(b.column) })) } : {}),
  };
}
