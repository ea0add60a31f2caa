/**
 * The built-in metrics, registered in the metric registry, and the registry's API. Import metrics from here
 * (not from `registry.ts`) so the built-in ones are always present.
 *
 * Each metric module registers with one line below.
 */
import { bleu4 } from './bleu4';
import { meteorMetric } from './meteor';
import { registerMetric } from './registry';
import { rougeLMetric } from './rougeL';
import { sacrebleu } from './sacrebleu';

export { getMetric, listMetrics, registerMetric, scoreItems, unregisterMetric, type AnyMetric, type ScoreItemsOptions, type ScoreItemsResult } from './registry';
export { metricEvaluatorId, MetricConfigError, type Metric, type MetricCard, type MetricInput, type MetricOutput, type MetricValues } from './metric';

registerMetric(bleu4);
registerMetric(sacrebleu);
registerMetric(rougeLMetric);
registerMetric(meteorMetric);
