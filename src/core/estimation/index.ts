/**
 * Expert-level estimates from cheap labels (issue 43; docs/estimation.md): prediction-powered estimates of coherence
 * rates, error shares and mean ratings per group, and which candidates the experts should label.
 *
 * - fixed sample: {@link predictionPoweredMean}, {@link predictionPoweredMeanDifference},
 *   {@link pairedPredictionPoweredDifference}, {@link classicalMean} (ppi_py parity), {@link fixedSampleEstimates};
 * - the estimate planner: {@link startEstimatePlan}, {@link estimatePlan}, {@link estimatePlanView} (the editor's);
 * - measurement: {@link simulateEstimates}, {@link estimateBound};
 * - the chart: {@link estimateChartSvg}.
 */
export { estimatePlan, estimatePlanRecordPath, forgetEstimateReplays, startEstimatePlan } from './activePlan';
export type { EstimatePlanState, StartEstimatePlanOptions, StratumState, StratumStop } from './activePlan';
export { estimateBound } from './bound';
export type { EstimateBoundResult } from './bound';
export { crossFittedCalibration } from './calibration';
export { estimateChartSvg } from './chart';
export type { ChartPanel, ChartRow } from './chart';
export { describeEstimand, ERROR_SHARE_CATEGORIES, estimandOf, parseEstimand, RATING_DIMENSIONS } from './estimands';
export type { Estimand, RatingDimension } from './estimands';
export { estimatePlanView, estimateView } from './estimateView';
export type { EstimateView, EstimateViewRow } from './estimateView';
export { fixedSampleEstimates } from './fixedSample';
export type { FixedSampleResult } from './fixedSample';
export { estimationPool } from './pool';
export type { EstimationPool, EstimationUnit } from './pool';
export { classicalMean, classicalMeanDifference, pairedPredictionPoweredDifference, powerTunedLambda, predictionPoweredMean, predictionPoweredMeanDifference, predictionPoweredOls } from './predictionPowered';
export { simulateEstimates } from './simulate';
export type { EstimateSimulationResult } from './simulate';
