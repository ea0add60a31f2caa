/**
 * The built-in metrics, registered in the metric registry, and the registry's API. Import metrics from here
 * (not from `registry.ts`) so the built-in ones are always present.
 *
 * Each metric module registers with one line below.
 */
import { bertscore } from './bertscore';
import { bleu4 } from './bleu4';
import { cocoBleu } from './cocoBleu';
import { cocoRougeLMetric } from './cocoRougeL';
import { followUpLikelihood, followUpLikelihoodFromFile } from './followUpLikelihood';
import { meteorMetric } from './meteor';
import { nmtBleu } from './nmtBleu';
import { registerMetric } from './registry';
import { rougeLMetric } from './rougeL';
import { sacrebleu } from './sacrebleu';

export { getMetric, isReferenceBasedEvaluator, listMetrics, registerMetric, scoreItems, unregisterMetric, type AnyMetric, type ScoreItemsOptions, type ScoreItemsResult } from './registry';
export { metricEvaluatorId, MetricConfigError, VALUE_WARNING, valueWarning, type Metric, type MetricCard, type MetricInput, type MetricOutput, type MetricValues } from './metric';

registerMetric(bleu4);
registerMetric(sacrebleu);
registerMetric(rougeLMetric);
registerMetric(meteorMetric);
registerMetric(nmtBleu);
registerMetric(bertscore);
// Your own follow-ups file (same format as data/followups/fed-followups.json) replaces the shipped list.
registerMetric(process.env.REFLECT_EVAL_FOLLOWUPS ? followUpLikelihoodFromFile(process.env.REFLECT_EVAL_FOLLOWUPS) : followUpLikelihood);
// nlg-eval's overlap metrics (pycocoevalcap BLEU-1…4 and ROUGE-L with β = 1.2, whitespace / space tokens).
registerMetric(cocoBleu);
registerMetric(cocoRougeLMetric);
