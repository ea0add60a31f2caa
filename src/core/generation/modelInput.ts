/**
 * The seeds' model input format (Wu et al., GEM 2022, §3.2 and footnote 4).
 *
 * A context becomes a sequence of utterances, each prefixed by its interlocutor tag and separated by ` |`,
 * followed by the therapist tag and the plain-text control code of the wanted response type:
 *
 * `<client> The baby was up all night and I'm exhausted. |<therapist> So, what you're saying is you've had a
 * rough night? |<client> Yes. She was up every three hours to eat, I don't understand it. |<therapist> ~<listening>`
 *
 * The context is left-truncated to its most recent 384 tokens of the generator's tokenizer, and the
 * reference response right-truncated to 128 tokens (GEM 2022 §3.2).
 */
import type { TherapistBehaviour, Turn } from '../dialogue/types';

/** Control codes of GEM 2022 footnote 4, by AnnoMI therapist behaviour. */
export const CONTROL_CODES: Readonly<Record<TherapistBehaviour, string>> = {
  question: '<asking>',
  therapist_input: '<informing>',
  reflection: '<listening>',
  other: '<other>',
};

/** Separator placed between utterances. */
export const UTTERANCE_SEPARATOR = ' |';

/** GEM 2022 §3.2: contexts keep their most recent 384 tokens. */
export const MAX_CONTEXT_TOKENS = 384;
/** GEM 2022 §3.2: references are right-truncated to 128 tokens. */
export const MAX_RESPONSE_TOKENS = 128;

/** The subset of a tokenizer the input builder needs. Token ids are non-negative integers. */
export interface TextTokenizer {
  /** Token ids of `text`, with no special tokens added. */
  encode(text: string): number[];
  /** Text of `ids`, special tokens skipped. */
  decode(ids: number[]): string;
}

/** `<speaker> text` for one turn. */
export function renderTurn(turn: Turn): string {
  return `<${turn.speaker}> ${turn.text}`;
}

/**
 * The full (untruncated) input string for generating a therapist response of type `behaviour` after `context`.
 *
 * @throws Error if `behaviour` has no control code.
 */
export function renderContext(context: readonly Turn[], behaviour: TherapistBehaviour = 'reflection'): string {
  const code = CONTROL_CODES[behaviour];
  if (!code) throw new Error(`no control code for therapist behaviour "${behaviour}" (known: ${Object.keys(CONTROL_CODES).join(', ')})`);
  const prompt = `<therapist> ~${code}`;
  return [...context.map(renderTurn), prompt].join(UTTERANCE_SEPARATOR);
}

/** A model input ready for a decoder. */
export interface ModelInput {
  /** The untruncated input string. */
  text: string;
  /** Token ids after left truncation; length ≤ `maxContextTokens`. */
  inputIds: number[];
  /** Number of tokens dropped from the left. */
  truncatedTokens: number;
  /** Number of whole context turns that fit in the window (GEM 2022 footnote 5's N). */
  turnsInWindow: number;
}

/**
 * Builds the model input for `context`, left-truncated to the most recent `maxContextTokens` tokens.
 * Truncation happens on the token ids of the whole string, so the control code at the end is always kept.
 *
 * @param maxContextTokens - window size in tokens (default 384, GEM 2022 §3.2); must be ≥ 1
 */
export function buildModelInput(
  context: readonly Turn[],
  tokenizer: TextTokenizer,
  options: { behaviour?: TherapistBehaviour; maxContextTokens?: number } = {},
): ModelInput {
  const max = options.maxContextTokens ?? MAX_CONTEXT_TOKENS;
  if (!(max >= 1)) throw new RangeError(`maxContextTokens must be ≥ 1, got ${max}`);
  const behaviour = options.behaviour ?? 'reflection';
  const text = renderContext(context, behaviour);
  const ids = tokenizer.encode(text);
  const truncatedTokens = Math.max(0, ids.length - max);
  return {
    text,
    inputIds: truncatedTokens > 0 ? ids.slice(truncatedTokens) : ids,
    truncatedTokens,
    turnsInWindow: turnsInWindow(context, tokenizer, behaviour, max),
  };
}

/**
 * The largest N such that the input built from the last N turns fits in `max` tokens: the number of whole
 * turns a left-truncated window keeps. Found by binary search (token count grows with N).
 */
export function turnsInWindow(context: readonly Turn[], tokenizer: TextTokenizer, behaviour: TherapistBehaviour, max: number): number {
  const fits = (n: number) => tokenizer.encode(renderContext(context.slice(context.length - n), behaviour)).length <= max;
  if (fits(context.length)) return context.length;
  let lo = 0; // fits (0 turns = control code only; assumed to fit)
  let hi = context.length; // does not fit
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    if (fits(mid)) lo = mid;
    else hi = mid;
  }
  return lo;
}

/**
 * Reference response token ids right-truncated to `maxResponseTokens` (default 128, GEM 2022 §3.2).
 * The response is tokenized with a leading space, as it follows the control code in the training sequence.
 */
export function responseIds(response: string, tokenizer: TextTokenizer, maxResponseTokens = MAX_RESPONSE_TOKENS): number[] {
  return tokenizer.encode(' ' + response).slice(0, maxResponseTokens);
}

/**
 * Cleans a decoded continuation: strips surrounding whitespace and cuts at the first utterance separator
 * (` |<`), since a response is one utterance (the model input format above).
 */
export function cleanResponse(text: string): string {
  const cut = text.indexOf(UTTERANCE_SEPARATOR + '<');
  return (cut >= 0 ? text.slice(0, cut) : text).trim();
}
