/**
 * The labelling plan in the dialogue editor (issue 16 item 3): "ReflectEval: Plan Labels…" picks the evaluator (or
 * a pair), the human group and the target, starts a plan (or follows the one already beside the file) and switches
 * the editor's item list to plan order. The plan's record lives beside the dialogue file where
 * `reflect-eval plan-labels` keeps it (`<file>.label-plan.json`), so the CLI and the editor follow one plan; its
 * state is recomputed from the document (unsaved labels included) whenever the item list is sent.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { basename } from 'node:path';
import * as vscode from 'vscode';
import type { DialogueFileDocument } from './dialogueDocument';
import { resolveHuman } from '../core/correlation/correlationTable';
import { displayNames, evaluatorSignatures } from '../core/evaluators/evaluatorNames';
import type { DialogueItem } from '../core/dialogue/types';
import { DEFAULT_GROUP_RULES, type GroupRules, type HumanGroup } from '../core/labels/groups';
import type { JobReport } from '../core/jobs/host';
import type { FileJobPlan } from '../core/jobs/plans';
import { planLabels, type LabelPlanRecord, type PlanEntry, type PlanEntryStatus, type PlanTarget } from '../core/planning/planner';
import { labellingPool } from '../core/planning/pool';
import { planRecordDifference, readLabelPlanRecord } from '../core/planning/planRecord';
import { labelPlanRecordPath, planListOrder, planStateView, type PlanStateView } from '../core/planning/planView';
import { isEstimatePlanRecord, parsePlanRecord } from '../core/design/planRecord';
import { estimatePlanRecordPath, estimatePlanView } from '../core/estimation';
import { ERROR_SHARE_CATEGORIES, estimandOf, parseEstimand } from '../core/estimation/estimands';
import { estimationPool } from '../core/estimation/pool';
import { estimateRecordDifference, type EstimatePlanJob } from '../core/jobs/estimate';
import { MI_RUBRIC } from '../core/rubric/presets';
import { loadRubric } from '../core/rubric/rubricFile';

/** The plan an editor follows: its record file and target (`kind` estimate: an estimate plan's record). */
export interface EditorPlanConfig {
  recordPath: string;
  target: PlanTarget;
  kind?: 'labels' | 'estimate';
}

const STATE_KEY = 'reflectEval.labelPlans';

/** Plans chosen with the command, by document URI (kept in the workspace state across sessions). */
let chosen = new Map<string, EditorPlanConfig>();
let memento: vscode.Memento | undefined;

/** Loads the plans chosen earlier in this workspace. */
export function initLabelPlans(context: vscode.ExtensionContext): void {
  memento = context.workspaceState;
  chosen = new Map(Object.entries(memento.get<Record<string, EditorPlanConfig>>(STATE_KEY) ?? {}));
}

function groupRules(): GroupRules {
  const prefix = vscode.workspace.getConfiguration('reflectEval').get<string>('annotations.expertPrefix')?.trim();
  return prefix ? { expertPrefix: prefix } : DEFAULT_GROUP_RULES;
}

/**
 * The plan of a document: the one chosen with the command, else a record found beside the file (written by the
 * CLI) with the target of `reflectEval.plan.target` (a decision for a pair); null when there is none.
 */
export function planConfigOf(document: DialogueFileDocument): EditorPlanConfig | null {
  const c = chosen.get(document.uri.toString());
  if (c) return c.kind === 'estimate' && !existsSync(c.recordPath) ? null : c;
  if (document.uri.scheme !== 'file') return null;
  const recordPath = labelPlanRecordPath(document.uri.fsPath);
  if (!existsSync(recordPath)) return null;
  const record = readRecord(recordPath);
  const halfWidth = vscode.workspace.getConfiguration('reflectEval').get<number>('plan.target') ?? 0.1;
  return { recordPath, target: record.against ? { decide: true } : { halfWidth } };
}

const records = new Map<string, { mtimeMs: number; record: unknown }>();

/** A record file read by `read`, cached by modification time (the plan's state is recomputed after every label). */
function cachedRecord<T>(path: string, read: (path: string) => T): T {
  const mtimeMs = statSync(path).mtimeMs;
  const hit = records.get(path);
  if (hit && hit.mtimeMs === mtimeMs) return hit.record as T;
  const record = read(path);
  records.set(path, { mtimeMs, record });
  return record;
}

/** A plan record from disk (cached by modification time). @throws Error naming the file when it is not a record */
function readRecord(path: string): LabelPlanRecord {
  return cachedRecord(path, readLabelPlanRecord);
}

/** What the item list needs of a plan: its item order and state line, or why it cannot be shown. */
export type EditorPlanState = { order: number[]; view: PlanStateView; candidates: PlanCandidate[] } | { error: string };

/** A candidate the plan names (drawn: label it now; provisional: where the design would put it next). */
export interface PlanCandidate {
  itemId: string;
  candidateId: string;
  status: PlanEntryStatus;
}

/** The plan's candidates that still need labels, in its order (drawn first): what `U` follows and the editor marks. */
function planCandidates(order: readonly PlanEntry[]): PlanCandidate[] {
  return order.filter((o) => !o.labelled).map((o) => ({ itemId: o.itemId, candidateId: o.candidateId, status: o.status }));
}

/**
 * The plan of `document` on its current items (unsaved labels included), or null without a plan.
 *
 * @param names - readable evaluator names by id
 */
export function editorPlanState(document: DialogueFileDocument, items: readonly DialogueItem[], blind: boolean, names: ReadonlyMap<string, string>): EditorPlanState | null {
  let config: EditorPlanConfig | null;
  try {
    config = planConfigOf(document);
    if (!config || config.kind === 'estimate') return estimatePlanState(document, items, blind);
    const record = readRecord(config.recordPath);
    const plan = planLabels(items, record, { target: config.target, groupRules: groupRules() });
    return { order: planListOrder(plan, items), view: planStateView(plan, { blind, name: (id) => names.get(id) ?? id }), candidates: planCandidates(plan.order) };
  } catch (err) {
    return { error: (err as Error).message };
  }
}

interface Pick<T> extends vscode.QuickPickItem {
  value: T;
}

async function pick<T>(title: string, items: Pick<T>[]): Promise<T | undefined> {
  const p = await vscode.window.showQuickPick(items, { title, ignoreFocusOut: true, matchOnDescription: true });
  return p?.value;
}

/** Each evaluator's number of candidates with a usable (finite, ok) score, by evaluator id: what a plan can use. */
function scoredCounts(items: readonly DialogueItem[]): Map<string, number> {
  const usable = new Map<string, number>();
  for (const it of items) for (const c of it.candidates) for (const [id, s] of Object.entries(c.scores)) if (s.status === 'ok' && typeof s.value === 'number' && Number.isFinite(s.value)) usable.set(id, (usable.get(id) ?? 0) + 1);
  return usable;
}

/** The dialogue file a plan command works on, or null (after saying why) when no dialogue editor is active. */
function planStudy(document: DialogueFileDocument | undefined, what: string): DialogueFileDocument | null {
  if (!document) {
    void vscode.window.showInformationMessage('Open a dialogue file (*.dialogues.jsonl) in the ReflectEval editor first.');
    return null;
  }
  if (document.uri.scheme !== 'file') throw new Error(`${what} is kept beside the dialogue file; save the file to disk first`);
  return document;
}

/**
 * Labels per candidate, the plan's choice (issue 41 item 2): the study's own count (`own`), or 1 for one annotator
 * labelling alone, 2 or 3. Undefined when the pick is dismissed.
 */
function pickLabelsPerCandidate(title: string, own: number, human: HumanGroup): Promise<number | undefined> {
  return pick(title, [...new Set([own, 1, 2, 3])].map((k) => ({ label: `${k} label${k === 1 ? '' : 's'} of the ${human}`, description: k === own ? 'the study’s own count' : k === 1 ? 'one annotator labelling alone' : '', value: k })));
}

/**
 * Starts or follows a plan through its job, as the CLI does: when the record beside the file holds a plan for other
 * settings (`difference`), asks before overwriting it; then runs the plan, forgets the cached record, remembers the
 * plan for the document and switches the editor to it.
 *
 * @param plan - the plan's fields (`restart` is added when the user agrees to overwrite)
 */
async function startOrFollow(document: DialogueFileDocument, config: EditorPlanConfig, difference: string | null, plan: Record<string, unknown>, source: string, run: (plan: FileJobPlan) => Promise<JobReport>, show: (document: DialogueFileDocument) => void): Promise<void> {
  let restart = false;
  if (difference) {
    const answer = await vscode.window.showWarningMessage(`${basename(config.recordPath)} holds a plan for ${difference}. Start a new plan and overwrite it?`, { modal: true }, 'Start a New Plan');
    if (answer !== 'Start a New Plan') return;
    restart = true;
  }
  const { validatePlan } = await import('../core/jobs/plans');
  const report = await run(validatePlan({ ...plan, ...(restart ? { restart: true } : {}) }, source) as FileJobPlan);
  records.delete(config.recordPath);
  if (report.nothingDone) return;
  chosen.set(document.uri.toString(), config);
  await memento?.update(STATE_KEY, Object.fromEntries(chosen));
  show(document);
}

/**
 * "ReflectEval: Plan Labels…": evaluator (or pair), human group and target by quick picks; starts a plan or follows
 * the one beside the file when it has the same evaluators and group; then `show` switches the editor to plan order.
 */
export async function planLabelsCommand(
  document: DialogueFileDocument | undefined,
  itemsOf: (document: DialogueFileDocument) => readonly DialogueItem[],
  show: (document: DialogueFileDocument) => void,
  run: (plan: FileJobPlan) => Promise<JobReport>,
): Promise<void> {
  const study = planStudy(document, 'a labelling plan');
  if (!study) return;
  const items = itemsOf(study);
  const usable = scoredCounts(items);
  const ids = [...usable].filter(([, n]) => n >= 3).map(([id]) => id);
  if (ids.length === 0) throw new Error(`${basename(study.uri.fsPath)} has no evaluator with scores on at least 3 candidates: score or judge it first`);
  const names = displayNames(ids, evaluatorSignatures(items));
  const evaluatorPicks = ids.map((id) => ({ label: names.get(id) ?? id, description: `${usable.get(id)} scored`, detail: id, value: id }));
  const evaluator = await pick('Plan Labels (1/5): the evaluator whose agreement with humans to estimate', evaluatorPicks);
  if (!evaluator) return;
  const against = await pick<string | null>('Plan Labels (2/5): compare with a second evaluator?', [{ label: 'No: one evaluator', value: null }, ...evaluatorPicks.filter((p) => p.value !== evaluator)]);
  if (against === undefined) return;
  const auto = resolveHuman(items, 'auto', groupRules());
  const groups: HumanGroup[] = ['experts', 'laypeople', 'all'];
  const human = await pick('Plan Labels (3/5): whose coherence labels', groups.sort((a, b) => (a === auto ? -1 : b === auto ? 1 : 0)).map((g) => ({ label: g, description: g === auto ? 'the correlation table’s choice for this file' : '', value: g })));
  if (!human) return;
  const targets: Pick<PlanTarget>[] = [
    ...(against ? [{ label: 'decide', description: 'stop when the interval on rho_A − rho_B excludes 0', value: { decide: true } as PlanTarget }] : []),
    ...[0.15, 0.1, 0.05].map((h) => ({ label: `half-width ${h}`, description: 'stop when the interval is this narrow', value: { halfWidth: h } as PlanTarget })),
  ];
  // Labels per candidate is the plan's choice (issue 41 item 2): the study's own count by default, 1 when nobody of
  // the group has labelled yet (one annotator labelling alone).
  const own = labellingPool(items, { evaluator, ...(against ? { against } : {}), human, groupRules: groupRules() }).labelsPerCandidate;
  const labelsPerCandidate = await pickLabelsPerCandidate('Plan Labels (4/5): labels that make a candidate labelled', own, human);
  if (labelsPerCandidate === undefined) return;
  const target = await pick('Plan Labels (5/5): target', targets);
  if (!target) return;

  // Starting or following the plan is the core's labelling-plan job (src/core/jobs/planLabels.ts), as the CLI runs it.
  const recordPath = labelPlanRecordPath(study.uri.fsPath);
  const old = existsSync(recordPath) ? readRecord(recordPath) : null;
  const difference = old && planRecordDifference(old, { evaluator, ...(against ? { against } : {}), human }) ? `other settings (${names.get(old.evaluator) ?? old.evaluator}${old.against ? ` vs ${names.get(old.against) ?? old.against}` : ''}, ${old.human})` : null;
  const plan = { job: 'plan-labels', evaluator, ...(against ? { against } : {}), human, target, labelsPerCandidate, seed: 1, expertPrefix: groupRules().expertPrefix };
  await startOrFollow(study, { recordPath, target }, difference, plan, 'Plan Labels…', run, show);
}

/**
 * An estimate plan beside the file (`reflect-eval estimate … --target h`, `<file>.estimate-plan.json`; issue 43
 * item 4): the estimate per group with its anytime interval and labels to go in the item list's plan line, the
 * items in the plan's order, recomputed after every label — blind mode shows the order and counts only
 * (`estimatePlanView`). Null when there is none.
 */
function estimatePlanState(document: DialogueFileDocument, items: readonly DialogueItem[], blind: boolean): EditorPlanState | null {
  if (document.uri.scheme !== 'file') return null;
  const path = estimatePlanRecordPath(document.uri.fsPath);
  if (!existsSync(path)) return null;
  const record = cachedRecord(path, (p) => parsePlanRecord(readFileSync(p, 'utf8'), p));
  if (!isEstimatePlanRecord(record)) return { error: `${basename(path)} is not an estimate plan's record` };
  const v = estimatePlanView(items, record, { blind, groupRules: groupRules(), next: Number.MAX_SAFE_INTEGER });
  return {
    order: v.itemOrder,
    // Each group's estimate with its interval and labels to go on the line itself (blind mode: counts only).
    view: { text: `${v.text} — ${v.rows.map((r) => `${r.key}: ${r.text || `${r.labelled} of ${r.candidates} labelled`}`).join('; ')}`, title: v.title, estimateShown: v.estimateShown, labelsToGo: v.labelsToGo, stopped: v.stopped },
    candidates: v.next,
  };
}

/**
 * "ReflectEval: Start an Estimate Plan…" (issue 43 item 4): what is estimated (the coherence rate, an error's share,
 * or the mean rating of an ordinal or numeric dimension of the study's rubric), per which groups, whose labels, what
 * predicts them, labels per candidate and the target, by quick picks; starts the plan through the core's estimate
 * job (as `reflect-eval estimate` does) or follows the one beside the file, then `show` switches the editor to the
 * plan's order with each group's estimate, interval and labels to go on the plan line.
 */
export async function estimatePlanCommand(
  document: DialogueFileDocument | undefined,
  itemsOf: (document: DialogueFileDocument) => readonly DialogueItem[],
  show: (document: DialogueFileDocument) => void,
  run: (plan: FileJobPlan) => Promise<JobReport>,
): Promise<void> {
  const study = planStudy(document, 'an estimate plan');
  if (!study) return;
  const items = itemsOf(study);
  const { rubric } = loadRubric(study.uri.fsPath);
  const mi = rubric.name === MI_RUBRIC.name;
  const estimands: Pick<string>[] = mi
    ? [
        { label: 'coherence rate', description: 'majority vote of the group', value: 'coherence-rate' },
        { label: 'coherence rate (share of labels)', value: 'coherence-rate:mean' },
        { label: 'mean empathy rating', description: '1–5, rated when coherent', value: 'rating-mean:empathy' },
        ...ERROR_SHARE_CATEGORIES.map((c) => ({ label: `share of ${c} among incoherent`, description: 'majority most evident error', value: `error-share:${c}` })),
      ]
    : rubric.dimensions.filter((d) => d.type === 'ordinal' || d.type === 'numeric').map((d) => ({ label: `mean rating of ${d.title ?? d.name}`, description: d.type, value: `rating-mean:${d.name}` }));
  if (estimands.length === 0) throw new Error(`${basename(study.uri.fsPath)}'s rubric has no ordinal or numeric dimension to estimate a mean rating of`);
  const estimand = await pick('Estimate Plan (1/6): what to estimate', estimands);
  if (!estimand) return;
  const by = await pick<string | null>('Estimate Plan (2/6): one estimate per', [
    { label: 'the whole study', value: null },
    ...['strategy', 'origin', 'model', 'source'].map((k) => ({ label: k, description: k === 'strategy' ? 'decoding strategy (GEM 2022 Figure 3)' : '', value: k })),
  ]);
  if (by === undefined) return;
  const human = await pick<HumanGroup>('Estimate Plan (3/6): whose labels are estimated', (['experts', 'laypeople', 'all'] as HumanGroup[]).map((g) => ({ label: g, value: g })));
  if (!human) return;
  const usable = scoredCounts(items);
  const names = displayNames([...usable.keys()], evaluatorSignatures(items));
  const other = human === 'experts' ? 'laypeople' : human === 'laypeople' ? 'experts' : null;
  const predictor = await pick<string | null>('Estimate Plan (4/6): what predicts them', [
    ...(other ? [{ label: `the ${other}' labels`, description: `human:${other}`, value: `human:${other}` }] : []),
    ...[...usable].map(([id, n]) => ({ label: names.get(id) ?? id, description: `${n} scored`, detail: id, value: id })),
    { label: 'nothing', description: `the ${human}' labels alone`, value: null },
  ]);
  if (predictor === undefined) return;
  const predictors = predictor ? [predictor] : [];
  // Labels per candidate is the plan's choice (issue 41 item 2): the study's own count, or 1 for one annotator alone.
  const spec = parseEstimand(estimand, rubric);
  const own = estimationPool(items, { estimand: spec, human, predictors, groupRules: groupRules() }).labelsPerCandidate;
  const labelsPerCandidate = await pickLabelsPerCandidate('Estimate Plan (5/6): labels that make a candidate labelled', own, human);
  if (labelsPerCandidate === undefined) return;
  const [lo, hi] = estimandOf(spec).scale(1, 1).bounds;
  const widths = [0.15, 0.1, 0.05].map((f) => Math.round(f * (hi - lo) * 1000) / 1000);
  const halfWidth = await pick('Estimate Plan (6/6): target', widths.map((h) => ({ label: `± ${h}`, description: 'stop when every group’s interval is this narrow', value: h })));
  if (halfWidth === undefined) return;

  const recordPath = estimatePlanRecordPath(study.uri.fsPath);
  const plan = { job: 'estimate', estimand, human, predictors, ...(by ? { by } : {}), labelsPerCandidate, halfWidth, seed: 1, expertPrefix: groupRules().expertPrefix };
  const old = existsSync(recordPath) ? parsePlanRecord(readFileSync(recordPath, 'utf8'), recordPath) : null;
  const difference = old === null ? null : isEstimatePlanRecord(old) ? estimateRecordDifference(old, plan as EstimatePlanJob, spec) : 'a Spearman labelling plan';
  await startOrFollow(study, { recordPath, target: { halfWidth }, kind: 'estimate' }, difference, plan, 'Start an Estimate Plan…', run, show);
}
