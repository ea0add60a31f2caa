/**
 * Decoding strategies as the first study groups responses (Wu et al., GEM 2022, §3.4 and Figures 3–4): a
 * strategy is model × decoding method × parameters, e.g. "GPT-2 nucleus p=0.4"; the human reference is
 * "ground truth".
 */
import type { CandidateOrigin } from './types';

/** A decoding strategy: a stable label plus its parts. */
export interface DecodingStrategy {
  /** Display label and grouping key, e.g. `GPT-2 nucleus p=0.4`, `bundled:reflect-gpt2-tiny greedy`, `ground truth`. */
  label: string;
  /** Model name (the origin's `source`, else its `model` with any folder path removed); `ground truth` for humans. */
  model: string;
  /** Decoding method (`greedy`, `beamSearch`, `nucleusSampling`, …), when the origin records one. */
  method?: string;
  /** The parameters that tell strategies of one method apart (`numBeams`, `topP`, `topK`, `temperature`). */
  params?: Record<string, number>;
  /** True for human-written responses (the reference). */
  human: boolean;
}

/** Label of the human reference's strategy (§5.2, Figure 3). */
export const GROUND_TRUTH = 'ground truth';

function modelName(origin: CandidateOrigin): string {
  if (origin.source?.trim()) return origin.source.trim();
  const m = origin.model?.trim();
  if (!m) return origin.kind;
  if (/^[a-z]+:/i.test(m) && !/^[a-z]:[\\/]/i.test(m)) return m; // bundled:…, hub-like schemes
  const parts = m.split(/[\\/]+/).filter(Boolean);
  // a hub id "org/name" has exactly two parts and no leading slash; a folder keeps only its last part
  if (parts.length === 2 && !m.startsWith('/') && !m.startsWith('.')) return m;
  return parts[parts.length - 1] ?? m;
}

/**
 * The decoding strategy of one candidate origin. Human origins are `ground truth`. Otherwise the label is the
 * model name followed, when decoding settings are recorded, by `greedy`, `beam k=<numBeams>`,
 * `nucleus p=<topP>` (or the method name), then `top-k=<topK>` when topK > 0 and `T=<temperature>` when the
 * temperature is not 1. An origin without decoding settings (e.g. an imported table's `GPT-3` source) is
 * labelled by its model name alone.
 */
export function decodingStrategy(origin: CandidateOrigin): DecodingStrategy {
  if (origin.kind === 'human') return { label: GROUND_TRUTH, model: GROUND_TRUTH, human: true };
  const model = modelName(origin);
  const d = origin.decoding;
  if (!d?.strategy) return { label: model, model, human: false };
  const params: Record<string, number> = {};
  const parts: string[] = [];
  if (d.strategy === 'greedy') parts.push('greedy');
  else if (d.strategy === 'beamSearch') {
    parts.push(typeof d.numBeams === 'number' ? `beam k=${d.numBeams}` : 'beam');
    if (typeof d.numBeams === 'number') params.numBeams = d.numBeams;
  } else if (d.strategy === 'nucleusSampling') {
    parts.push(typeof d.topP === 'number' ? `nucleus p=${d.topP}` : 'nucleus');
    if (typeof d.topP === 'number') params.topP = d.topP;
  } else parts.push(d.strategy);
  if (typeof d.topK === 'number' && d.topK > 0 && d.strategy !== 'greedy' && d.strategy !== 'beamSearch') {
    parts.push(`top-k=${d.topK}`);
    params.topK = d.topK;
  }
  if (typeof d.temperature === 'number' && d.temperature !== 1 && d.strategy !== 'greedy' && d.strategy !== 'beamSearch') {
    parts.push(`T=${d.temperature}`);
    params.temperature = d.temperature;
  }
  return { label: `${model} ${parts.join(' ')}`, model, method: d.strategy, params, human: false };
}
