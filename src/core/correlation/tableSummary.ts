/**
 * What the correlation panel says above and below its table — the same sentence and notes `reflect-eval correlate`
 * prints for the same table (issue 41 item 1), the human group the table actually uses with the number of responses
 * that group labelled, and a word when `auto` switched the group since the table shown before. Pure: the panel's
 * host (src/extension/correlationPanel.ts) posts it to the webview, and test/core/correlation/tableSummary.test.ts
 * holds it equal to the CLI's output.
 */
import type { DialogueItem } from '../dialogue/types';
import { DEFAULT_GROUP_RULES, inGroup, type GroupRules, type HumanGroup } from '../labels/groups';
import { holdsLabel, humanScoreSpec } from '../rubric/labelValues';
import { MI_RUBRIC } from '../rubric/presets';
import type { Rubric } from '../rubric/rubric';
import { describeTable, tableNotes } from './correlationExport';
import type { CorrelationTable } from './correlationTable';
import { exportableTable } from './sideBySide';

/** The panel's words for one table. */
export interface TableSummary {
  /** The CLI's sentence above the table ({@link describeTable}). */
  description: string;
  /** The CLI's notes under the table, in its order ({@link tableNotes}). */
  notes: string[];
  /** The group whose labels the table uses (after `auto` resolved). */
  human: HumanGroup;
  /** Responses with a label from that group on the table's dimension (coherence in the MI preset's count). */
  labelled: number;
  /** Responses in the file. */
  total: number;
  /** Set when `auto` chose another group than for the table shown before: what changed and why. */
  groupChange?: string;
}

const GROUP_NAME: Record<HumanGroup, string> = { experts: 'the experts', laypeople: 'the laypeople', all: 'all annotators' };

/**
 * The summary of `table` (the panel's side-by-side table, or any correlation table) on `items`.
 *
 * @param previous - the group of the table shown before for the same file (null or absent: none shown)
 * @param rubric - the study's rubric, whose dimension the table names (default the MI preset)
 */
export function tableSummary(items: readonly DialogueItem[], table: CorrelationTable, previous?: HumanGroup | null, rules: GroupRules = DEFAULT_GROUP_RULES, rubric: Rubric = MI_RUBRIC): TableSummary {
  const t = exportableTable(table);
  const mine = inGroup(t.human, rules);
  const candidates = items.flatMap((it) => it.candidates);
  // The table's dimension when it names one (a rubric's, or empathy), else the coherence label.
  const spec = t.dimension ? humanScoreSpec(rubric, t.dimension.name, t.dimension.rule) : null;
  const holds = spec ? (a: (typeof candidates)[number]['annotations'][number]) => holdsLabel(a, spec) : (a: (typeof candidates)[number]['annotations'][number]) => typeof a.coherent === 'boolean';
  const labelled = candidates.filter((c) => c.annotations.some((a) => holds(a) && mine(a))).length;
  const summary: TableSummary = { description: describeTable(t), notes: tableNotes(t).map((n) => n.text), human: t.human, labelled, total: candidates.length };
  if (previous && previous !== t.human && t.humanRequested === 'auto') {
    summary.groupChange = `The human group changed from ${GROUP_NAME[previous]} to ${GROUP_NAME[t.human]} (auto uses the experts once the file has expert labels, otherwise all annotators): the table now rests on ${labelled} labelled response${labelled === 1 ? '' : 's'}.`;
  }
  return summary;
}
