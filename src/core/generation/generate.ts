/**
 * Generating candidate responses for dialogue items with a local ONNX model (decoder-only or encoder-decoder;
 * the model input is `buildModelInput`'s ids either way, as the bundled fixtures were trained).
 */
import type { GenerativeLM, RunTimer } from '../models/languageModel';
import type { Candidate, DialogueItem, TherapistBehaviour } from '../dialogue/types';
import { greedySearch } from './decode';
import { buildModelInput, MAX_CONTEXT_TOKENS, UTTERANCE_SEPARATOR } from './modelInput';

/** Settings of a generation run. */
export interface GenerateSettings {
  strategy: 'greedy';
  /** Default 128. */
  maxNewTokens?: number;
  /** Response type to condition on (default `reflection`, control code `<listening>`). */
  behaviour?: TherapistBehaviour;
  /** Context window in tokens (default 384). */
  maxContextTokens?: number;
  /** Contexts decoded together in one batch (default 4). */
  batchSize?: number;
}

/** Progress after each batch. */
export interface GenerateProgress {
  itemsDone: number;
  itemsTotal: number;
  tokensGenerated: number;
  elapsedMs: number;
}

/**
 * Cleans a decoded continuation: strips surrounding whitespace and cuts at the first utterance separator
 * (` |<`), since a response is one utterance.
 */
export function cleanResponse(text: string): string {
  const cut = text.indexOf(UTTERANCE_SEPARATOR + '<');
  return (cut >= 0 ? text.slice(0, cut) : text).trim();
}

function nextCandidateId(item: DialogueItem, prefix: string): string {
  const used = new Set(item.candidates.map((c) => c.id));
  let n = 1;
  while (used.has(`${prefix}${n}`)) n++;
  return `${prefix}${n}`;
}

/**
 * Generates one greedy candidate per item and returns updated copies of the items (inputs untouched).
 * A candidate whose text equals an existing candidate of the same model and strategy is not added twice.
 * On abort, items finished so far carry their candidates; the rest are returned unchanged.
 */
export async function generateCandidates(
  model: GenerativeLM,
  items: DialogueItem[],
  settings: GenerateSettings,
  options: { signal?: AbortSignal; onProgress?: (p: GenerateProgress) => void; timer?: RunTimer; now?: () => Date } = {},
): Promise<DialogueItem[]> {
  const batchSize = Math.max(1, settings.batchSize ?? 4);
  const maxNewTokens = settings.maxNewTokens ?? 128;
  const maxContextTokens = Math.min(settings.maxContextTokens ?? MAX_CONTEXT_TOKENS, model.maxPositions - maxNewTokens);
  const result = items.map((it) => it);
  const start = performance.now();
  let tokens = 0;
  for (let i = 0; i < items.length; i += batchSize) {
    if (options.signal?.aborted) break;
    const slice = items.slice(i, i + batchSize);
    const prompts = slice.map((it) => buildModelInput(it.context, model.tokenizer, { behaviour: settings.behaviour, maxContextTokens }).inputIds);
    const decoded = await greedySearch(model, prompts, { maxNewTokens, signal: options.signal, timer: options.timer });
    if (options.signal?.aborted) break;
    decoded.forEach((seq, k) => {
      tokens += seq.tokenIds.length;
      const item = structuredClone(slice[k]);
      const text = cleanResponse(model.tokenizer.decode(seq.tokenIds));
      const duplicate = item.candidates.some(
        (c) => c.text === text && c.origin.kind === 'model' && c.origin.model === model.ref && c.origin.decoding?.strategy === 'greedy',
      );
      if (!duplicate) {
        const candidate: Candidate = {
          id: nextCandidateId(item, 'g'),
          text,
          origin: {
            kind: 'model',
            model: model.ref,
            decoding: { strategy: 'greedy', maxNewTokens, behaviour: settings.behaviour ?? 'reflection', maxContextTokens },
            createdAt: (options.now?.() ?? new Date()).toISOString(),
          },
          annotations: [],
          scores: {},
        };
        item.candidates.push(candidate);
      }
      result[i + k] = item;
    });
    options.onProgress?.({ itemsDone: Math.min(i + batchSize, items.length), itemsTotal: items.length, tokensGenerated: tokens, elapsedMs: performance.now() - start });
  }
  return result;
}
