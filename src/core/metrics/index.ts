/**
 * The built-in metrics, registered in the metric registry, and the registry's API. Import metrics from here
 * (not from `registry.ts`) so the built-in ones are always present.
 *
 * Each metric module registers with one line below.
 */
export { getMetric, listMetrics, registerMetric, scoreItems, unregisterMetric, type AnyMetric, type ScoreItemsOptions, type ScoreItemsResult } from './registry';
export { metricEvaluatorId, MetricConfigError, type Metric, type MetricCard, type MetricInput, type MetricOutput, type MetricValues } from './metric';


import { bertscore } from './bertscore';
import { followUpLikelihood, followUpLikelihoodFromFile } from './followUpLikelihood';
import { registerMetric as register } from './registry';

register(bertscore);
// Your own follow-ups file (same format as data/followups/fed-followups.json) replaces the shipped list.
register(process.env.REFLECT_EVAL_FOLLOWUPS ? followUpLikelihoodFromFile(process.env.REFLECT_EVAL_FOLLOWUPS) : followUpLikelihood);
