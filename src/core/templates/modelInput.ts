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
import type { TextTokenizer } from '../models/tokenizer';

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
  return [...context.map(renderTurn), promptText(behaviour)].join(UTTERANCE_SEPARATOR);
}

/** `<therapist> ~<code>`, the end of every input; throws if `behaviour` has no control code. */
function promptText(behaviour: TherapistBehaviour): string {
  const code = CONTROL_CODES[behaviour];
  if (!code) throw new Error(`no control code for therapist behaviour "${behaviour}" (known: ${Object.keys(CONTROL_CODES).join(', ')})`);
  return `<therapist> ~${code}`;
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
 * turns a left-truncated window keeps. Token count grows with N, so the search gallops from the most recent turn
 * (N = 1, 2, 4, …) until the window overflows, then bisects: every string encoded is at most about twice the
 * window, never the whole dialogue (a long AnnoMI session has thousands of tokens before its last turns).
 */
export function turnsInWindow(context: readonly Turn[], tokenizer: TextTokenizer, behaviour: TherapistBehaviour, max: number): number {
  return largestFitting(context.length, (n) => tokenizer.encode(renderContext(context.slice(context.length - n), behaviour)).length <= max);
}

/**
 * The largest n in [0, limit] with `fits(n)`, for a `fits` that holds up to some n and fails beyond it (0 is
 * assumed to fit: the control code alone). Gallops n = 1, 2, 4, … until a probe fails or reaches `limit`, then
 * bisects between the last fitting and the first failing probe: O(log n) calls, each probe at most about twice
 * the answer.
 */
function largestFitting(limit: number, fits: (n: number) => boolean): number {
  let lo = 0; // fits
  let hi = -1; // does not fit (-1: not found yet)
  for (let n = 1; hi < 0; n *= 2) {
    const probe = Math.min(n, limit);
    if (!fits(probe)) hi = probe;
    else if (probe === limit) return limit;
    else lo = probe;
  }
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    if (fits(mid)) lo = mid;
    else hi = mid;
  }
  return lo;
}

/**
 * {@link turnsInWindow} for every prefix of one dialogue, tokenizing each turn about three times in all instead
 * of encoding a window-sized string several times per prefix (a full AnnoMI study measures ~4,400 windows).
 *
 * A window's input is `turn_a |turn_a+1 | … |prompt`; its token count is the sum of the counts of its units —
 * `turn_a` alone, ` |turn_j` for the others, ` |prompt` — when every junction ` |<` starts a new pre-token, as
 * in byte-level BPE tokenizers (GPT-2, BART), where merges never cross pre-tokens. This is checked, not assumed:
 * the whole dialogue followed by a prompt is encoded once and must equal the concatenation of its units' ids;
 * where it does not (a tokenizer that merges across the separator), every window is measured by encoding it, as
 * {@link turnsInWindow} does. Either way the counts are the tokenizer's own.
 */
export class DialogueWindows {
  private readonly rendered: string[];
  private readonly sepPrefix: Float64Array;
  private readonly first = new Map<number, number>();
  private readonly promptCount = new Map<TherapistBehaviour, number>();
  /** False when the units do not add up for this tokenizer: measure each window by encoding it. */
  readonly additive: boolean;

  constructor(
    private readonly turns: readonly Turn[],
    private readonly tokenizer: TextTokenizer,
  ) {
    this.rendered = turns.map(renderTurn);
    this.sepPrefix = new Float64Array(turns.length + 1);
    const units: number[][] = [];
    this.rendered.forEach((r, j) => {
      const ids = tokenizer.encode(UTTERANCE_SEPARATOR + r);
      this.sepPrefix[j + 1] = this.sepPrefix[j] + ids.length;
      if (j > 0) units.push(ids);
    });
    if (turns.length === 0) {
      this.additive = true;
      return;
    }
    const head = tokenizer.encode(this.rendered[0]);
    this.first.set(0, head.length);
    const prompt = tokenizer.encode(UTTERANCE_SEPARATOR + promptText('reflection'));
    this.promptCount.set('reflection', prompt.length);
    const whole = tokenizer.encode(renderContext(turns, 'reflection'));
    const joined = [head, ...units, prompt].flat();
    this.additive = whole.length === joined.length && whole.every((id, k) => id === joined[k]);
  }

  /** Tokens of the input built from turns [a, end) and the prompt for `behaviour`. */
  private windowTokens(a: number, end: number, behaviour: TherapistBehaviour): number {
    if (!this.additive) return this.tokenizer.encode(renderContext(this.turns.slice(a, end), behaviour)).length;
    let prompt = this.promptCount.get(behaviour);
    if (prompt === undefined) {
      prompt = this.tokenizer.encode(UTTERANCE_SEPARATOR + promptText(behaviour)).length;
      this.promptCount.set(behaviour, prompt);
    }
    if (a === end) return this.tokenizer.encode(promptText(behaviour)).length;
    let head = this.first.get(a);
    if (head === undefined) {
      head = this.tokenizer.encode(this.rendered[a]).length;
      this.first.set(a, head);
    }
    return head + (this.sepPrefix[end] - this.sepPrefix[a + 1]) + prompt;
  }

  /**
   * The number of whole turns of `turns.slice(0, end)` that fit in `max` tokens with the prompt for `behaviour`:
   * exactly `turnsInWindow(turns.slice(0, end), tokenizer, behaviour, max)`.
   */
  turnsInWindow(end: number, behaviour: TherapistBehaviour, max: number): number {
    return largestFitting(end, (n) => this.windowTokens(end - n, end, behaviour) <= max);
  }
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
