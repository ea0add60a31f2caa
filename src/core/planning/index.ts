/**
 * The labelling planner (issue 16; docs/labelling-plan.md). Entry points: {@link startLabelPlan} (a plan's record),
 * {@link planLabels} (its state on a dialogue file: estimate, interval, stop, labels to go, order),
 * {@link planItemOrder} (item ids for an item list) and {@link simulatePlans} (replays on a fully labelled file).
 */
export { anticipatedLabels, PLAN_DEFAULTS, planClocks, planItemOrder, planLabels, startLabelPlan } from './planner';
export type { LabelPlan, LabelPlanRecord, ModelSelection, PlanEntry, PlanEntryStatus, PlanLabelsOptions, PlanSettings, PlanStop, PlanTarget, StartPlanOptions } from './planner';
export { labellingPool, poolFingerprint } from './pool';
export type { LabellingPool, PoolCandidate, PoolOptions } from './pool';
export { SequentialPlan } from '../design/sequentialPlan';
export type { DesignKind, DesignSettings, PlanDraw, PlanEstimate } from '../design/sequentialPlan';
export { simulatePlans } from './simulate';
export type { SimulatedDecision, SimulatedTarget, SimulationOptions, SimulationResult } from './simulate';
export { SpearmanTotals } from './spearmanTotals';
export type { WorkingModelSpec } from '../design/workingModel';
export { LABEL_PLAN_FORMAT, planRecordDifference, readLabelPlanRecord, writeLabelPlanRecord } from './planRecord';
export type { PlanIdentity } from './planRecord';
