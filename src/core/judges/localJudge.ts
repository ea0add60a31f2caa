/**
 * A local judge: any local ONNX language model (decoder-only, or encoder-decoder with the prompt as encoder input)
 * answers an assessment request by the probabilities it gives each valid answer, never by free generation.
 *
 * **Base models** (no chat template, e.g. the bundled GPT-2): for every valid answer a (the integers min..max,
 * written with a leading space as they would follow "Rating (1-5):", or the request's words: " Yes", " No"),
 * log P(a | prompt) is the sum of its tokens' log-probabilities (log-softmax of the logits, natural log).
 *
 * **Instruct models** (the model folder has a chat template: Llama-3.x-Instruct, Qwen3, Gemma-3-it…): the prompt is
 * the user turn of a conversation in the model's own template (after an optional system turn), rendered with
 * `@huggingface/jinja` as transformers.js renders it, ending with the assistant's turn opened (Qwen3: with an empty
 * thinking block, `enable_thinking: false`). The answers are the reply texts "1" … "5", "Yes", "No", tokenized as
 * they follow the template's assistant prefix in this tokenizer (Qwen3 writes "37" as two digit tokens, Llama 3 as
 * one). log P(reply = a) is the sum of a's tokens' log-probabilities; when one answer's tokens begin another's (Qwen3's
 * "3" and "37"), the reply must also end there: log P(a) adds log Σ_e P(e | a) over the model's end-of-turn ids.
 *
 * The reply is the most probable answer (first on ties); `expected` is Σ a·P(a) / Σ P(a) over the valid answers.
 *
 * **Error categories** (requests of `kind: errorCategories`): each of the first study's six categories is asked
 * separately — the prompt followed by {@link categoryQuestion} — and answered from P(Yes) against P(No) (the words
 * tokenized as above). A category applies when P(Yes) > P(No); the most evident error is the applying category of
 * highest P(Yes) (the only one, when one applies). With `rationale: true` the model then writes a short rationale
 * (greedy, at most `rationaleTokens` tokens) as the `rationale` of a JSON reply whose categories are the verdict
 * already read (the request's own reply format), so the rationale explains the verdict and never changes it.
 *
 * Prompts of a context share the task body and the dialogue: a decoder-only model that keeps prompt caches
 * (`OnnxCausalLM.prefixCache`) computes only what each prompt adds to the longest beginning it has kept (across
 * candidates, requests and categories). Prompts longer than the model's positions leave out their oldest turns
 * (the judge's `budget`), then are left-truncated keeping the request at the end.
 */
import { createHash } from 'node:crypto';
import { buildSignature } from '../evaluators/signature';
import { ERROR_CATEGORIES } from '../labels/scheme';
import { logSoftmax, logSumExp } from '../decoding/samplers';
import { teacherForcing } from '../decoding/teacherForcing';
import type { GenerativeLM } from '../models/languageModel';
import type { ChatMessage, ModelChatTemplate } from '../models/modelChatTemplate';
import type { ErrorCategory } from '../dialogue/types';
import type { Judge, JudgeRequest, JudgeResult } from './judge';
import type { RequestSpec } from '../templates/judgePrompt';

/** The valid answers of a request as numbers: its `values` when it lists them, else the integers from min to max. */
export function validAnswers(spec: RequestSpec): number[] {
  if (spec.values) return [...spec.values];
  const out: number[] = [];
  for (let v = Math.ceil(spec.min); v <= Math.floor(spec.max); v++) out.push(v);
  return out;
}

/** How a local judge asks its model (see the module docs). Every field that changes a verdict is in its signature. */
export interface LocalJudgeOptions {
  /**
   * Wrap prompts in the model's chat template: `'auto'` (default) when the model folder has one, `true` requires one
   * (an error naming the folder otherwise), `false` uses the prompt as it is.
   */
  chat?: boolean | 'auto';
  /** A system turn before the prompt (chat only; default none). */
  system?: string;
  /**
   * Variables for the chat template (default `{enable_thinking: false}`: Qwen3 answers without a thinking block;
   * templates that do not read a variable ignore it).
   */
  templateArgs?: Record<string, unknown>;
  /** Error-category requests: write a rationale after the verdict (default false: categories only). */
  rationale?: boolean;
  /** The rationale's length bound in tokens (default 96). */
  rationaleTokens?: number;
}

/** The question asked after the prompt, one category at a time (its text is part of the judge's signature). */
export function categoryQuestion(category: string): string {
  return `Question: does the Response Candidate have the problem "${category}"? Answer Yes or No.`;
}

/** The categories' names as the request and the first study write them. */
const CATEGORY_NAMES: Record<ErrorCategory, string> = {
  malformed: 'Malformed',
  dialogueContradicting: 'Dialogue-contradicting',
  parroting: 'Parroting',
  offTopic: 'Off-topic',
  onTopicButUnverifiable: 'On-topic but unverifiable',
  other: 'Other',
};

const DEFAULT_TEMPLATE_ARGS = { enable_thinking: false };
const DEFAULT_RATIONALE_TOKENS = 96;

const digest = (text: string) => createHash('sha256').update(text).digest('hex').slice(0, 8);

/**
 * Log-probabilities of each answer (token ids) after `promptIds`, natural log: Σ log P(token | everything before),
 * plus, with `ends`, log Σ_e P(e | prompt, answer) over the end ids `ends` (the reply ends there).
 *
 * A decoder-only model with {@link GenerativeLM.promptLogits} computes the prompt once (through its prefix cache)
 * and the answers as a tree: answers sharing first tokens share their rows, one pass per answer length; others score
 * each answer by teacher forcing on one encoding of the prompt.
 *
 * @returns one value per answer, in order
 */
export async function answerLogProbs(model: GenerativeLM, promptIds: number[], answers: number[][], ends?: readonly number[]): Promise<number[]> {
  if (model.architecture === 'decoder-only' && model.promptLogits) {
    if (!ends && answers.every((a) => a.length === 1)) {
      const logits = await model.promptLogits(promptIds);
      const lp = logSoftmax(logits, new Float64Array(logits.length));
      return answers.map((a) => lp[a[0]]);
    }
    return answerTree(model, promptIds, answers, ends);
  }
  // Encoder-decoder models (BART) read the prompt in the encoder; their decoder starts with the forced BOS, as in
  // generation and perplexity, unscored.
  const forcedBos = model.architecture === 'encoder-decoder' ? model.specialTokens.forcedBosTokenId : null;
  const prefix = forcedBos !== null ? { prefixIds: [forcedBos] } : {};
  const continuations = ends ? answers.flatMap((a) => ends.map((e) => [...a, e])) : answers;
  const results = await teacherForcing(model, continuations.map((c) => ({ promptIds, continuationIds: c, ...prefix })));
  if (!ends) return results.map((r) => r.sumLogProb);
  return answers.map((_, i) => logSumExp(Float64Array.from(results.slice(i * ends.length, (i + 1) * ends.length), (r) => r.sumLogProb)));
}

/** A node of the answers' token tree. */
interface TreeNode {
  token: number;
  /** log P of the tokens from the root to here. */
  lp: number;
  children: Map<number, TreeNode>;
  /** Indices of the answers ending here. */
  answers: number[];
}

/** {@link answerLogProbs} through a decoding session: the tree of answers, one step per depth. */
async function answerTree(model: GenerativeLM, promptIds: number[], answers: number[][], ends?: readonly number[]): Promise<number[]> {
  const root: TreeNode = { token: -1, lp: 0, children: new Map(), answers: [] };
  answers.forEach((a, i) => {
    let n = root;
    for (const t of a) {
      let c = n.children.get(t);
      if (!c) n.children.set(t, (c = { token: t, lp: 0, children: new Map(), answers: [] }));
      n = c;
    }
    n.answers.push(i);
  });
  const out = new Array<number>(answers.length).fill(-Infinity);
  // A node needs its next-token distribution when it has children, or answers ending in it that must end there.
  const needs = (n: TreeNode) => n.children.size > 0 || (ends !== undefined && n.answers.length > 0);
  const depth = Math.max(...answers.map((a) => a.length));
  const { session, logits } = await model.startDecoding([promptIds], { expand: 1, maxNewTokens: depth, prefixCache: true });
  try {
    let frontier = [root];
    let rows = logits;
    for (;;) {
      const V = session.vocab;
      const next: TreeNode[] = [];
      const parents: number[] = [];
      frontier.forEach((node, row) => {
        const lp = logSoftmax(rows.subarray(row * V, (row + 1) * V), new Float64Array(V));
        if (ends && node.answers.length) {
          const end = logSumExp(Float64Array.from(ends, (e) => lp[e]));
          for (const i of node.answers) out[i] = node.lp + end;
        }
        for (const c of node.children.values()) {
          c.lp = node.lp + lp[c.token];
          if (!ends) for (const i of c.answers) out[i] = c.lp;
          if (needs(c)) {
            next.push(c);
            parents.push(row);
          }
        }
      });
      if (next.length === 0) break;
      session.select(parents);
      rows = await session.step(next.map((c) => c.token));
      frontier = next;
    }
  } finally {
    session.release?.();
  }
  return out;
}

/** Index of the first double quote not escaped by a backslash in `text`, or −1. */
function closingQuote(text: string): number {
  for (let i = 0; i < text.length; i++) {
    if (text[i] === '\\') i++;
    else if (text[i] === '"') return i;
  }
  return -1;
}

/** Whether no answer's tokens begin another's (then the first tokens alone tell the answers apart). */
function prefixFree(answers: readonly number[][]): boolean {
  const key = (a: readonly number[]) => a.join(',');
  const all = new Set(answers.map(key));
  for (const a of answers) for (let k = 1; k < a.length; k++) if (all.has(key(a.slice(0, k)))) return false;
  return new Set(answers.map(key)).size === answers.length;
}

/** Whether the answers' token ids need the reply's end scored too (see the module docs). */
export function answersMustEnd(coder: JudgePromptCoder, answers: readonly number[][]): boolean {
  return coder.chat !== undefined && !prefixFree(answers);
}

/** The reply, the argmax and the probability-weighted expected score from the answers' log-probabilities. */
function resultOf(values: number[], words: string[] | undefined, lps: number[], note?: string): JudgeResult {
  let best = 0;
  for (let i = 1; i < lps.length; i++) if (lps[i] > lps[best]) best = i;
  const maxLp = lps[best];
  const weights = lps.map((lp) => Math.exp(lp - maxLp));
  const z = weights.reduce((s, w) => s + w, 0);
  const expected = weights.reduce((s, w, i) => s + w * values[i], 0) / z;
  return { raw: words ? words[best] : String(values[best]), value: values[best], status: 'ok', expected, ...(note ? { message: note } : {}) };
}

/**
 * How a local judge turns prompts and answers into token ids for one model: the chat wrapping (or none) and each
 * answer text's ids as they follow the prompt. Exported for the fixtures' reference script
 * (scripts/fixtures/chat_cases.ts), which must build the judge's prompts exactly.
 */
export class JudgePromptCoder {
  readonly chat: ModelChatTemplate | undefined;
  /** Tokens the chat wrapping adds around a prompt. */
  readonly overhead: number;
  private readonly answerIds = new Map<string, number[]>();

  /** @throws Error when `options.chat` is true and the model has no chat template */
  constructor(
    private readonly model: Pick<GenerativeLM, 'tokenizer' | 'ref'>,
    private readonly options: LocalJudgeOptions = {},
  ) {
    const template = model.tokenizer.chatTemplate;
    if (options.chat === true && !template) throw new Error(`model ${model.ref} has no chat template (tokenizer_config.json chat_template, chat_template.jinja): judge it with "chat": false`);
    this.chat = options.chat === false ? undefined : template;
    this.overhead = this.chat ? model.tokenizer.encode(this.wrap('')).length : 0;
  }

  /** The text the model reads for a prompt. */
  wrap(prompt: string): string {
    if (!this.chat) return prompt;
    const messages: ChatMessage[] = [...(this.options.system ? [{ role: 'system' as const, content: this.options.system }] : []), { role: 'user', content: prompt }];
    return this.chat.render(messages, { addGenerationPrompt: true, kwargs: this.options.templateArgs ?? DEFAULT_TEMPLATE_ARGS });
  }

  /**
   * The ids of an answer as it follows a prompt: base models, `" " + answer`'s tokens; chat, the tokens the reply
   * text adds after the template's assistant prefix (checked to leave the prefix's tokens as they are).
   *
   * @throws Error when the answer's first token would merge with the prompt's last one
   */
  answer(text: string): number[] {
    const known = this.answerIds.get(text);
    if (known) return known;
    let ids: number[];
    if (!this.chat) ids = this.model.tokenizer.encode(` ${text}`);
    else {
      const prefix = this.wrap('');
      const before = this.model.tokenizer.encode(prefix);
      const after = this.model.tokenizer.encode(prefix + text);
      if (after.length <= before.length || before.some((t, i) => after[i] !== t)) {
        throw new Error(`model ${this.model.ref}: the reply "${text}" does not tokenize apart from its chat template's assistant prefix`);
      }
      ids = after.slice(before.length);
    }
    this.answerIds.set(text, ids);
    return ids;
  }
}

/** A judgement waiting for the model. */
interface Pending {
  req: JudgeRequest;
  resolve: (r: JudgeResult) => void;
  reject: (e: unknown) => void;
}

/**
 * Creates a local judge on a loaded model (see the module docs). Its id is `local:<model reference>`; its signature
 * says everything that changes a verdict:
 * - base models: `backend:local|model:<reference>|answers:logprob|fit:oldest-turns-first|categories:yes-no@<question
 *   digest>` (the first fields as before chat judges existed, so those evaluator ids stay);
 * - chat: `backend:local|model:<reference>|chat:<template hash>|args:<template variables>|system:<digest or none>|
 *   answers:logprob-reply|categories:yes-no@<question digest>|rationale:<off or greedy-N>|fit:oldest-turns-first`.
 *
 * Judgements run one at a time on the model, in the order asked.
 *
 * @throws Error when `options.chat` is true and the model has no chat template
 */
export function localOnnxJudge(model: GenerativeLM, id = `local:${model.ref}`, options: LocalJudgeOptions = {}): Judge {
  const coder = new JudgePromptCoder(model, options);
  const ends = [...new Set(model.specialTokens.eosTokenIds)];
  const rationaleTokens = options.rationaleTokens ?? DEFAULT_RATIONALE_TOKENS;
  const questions = ERROR_CATEGORIES.map((c) => categoryQuestion(CATEGORY_NAMES[c]));
  const longestQuestion = Math.max(...questions.map((q) => model.tokenizer.encode(`\n\n${q}`).length));
  let chain: Promise<void> = Promise.resolve();

  /** Prompt ids within the model's positions, leaving room for `answerRoom` more tokens. */
  const fit = (text: string, answerRoom: number) => {
    const ids = model.tokenizer.encode(coder.wrap(text));
    const room = model.architecture === 'decoder-only' ? model.maxPositions - answerRoom : model.maxPositions;
    return { ids: ids.length > room ? ids.slice(ids.length - room) : ids, truncated: ids.length > room ? ids.length : 0 };
  };
  const truncationNote = (from: number, to: number) => (from ? `prompt left-truncated from ${from} to ${to} tokens` : undefined);

  const numeric = async (req: JudgeRequest): Promise<JudgeResult> => {
    const words = req.spec.answers ? Object.keys(req.spec.answers) : undefined;
    const values = words ? words.map((w) => (req.spec.answers as Record<string, number>)[w]) : validAnswers(req.spec);
    const answers = (words ?? values.map(String)).map((a) => coder.answer(a));
    const mustEnd = answersMustEnd(coder, answers);
    const longest = Math.max(...answers.map((a) => a.length)) + (mustEnd ? 1 : 0);
    const { ids, truncated } = fit(req.prompt, longest);
    const lps = await answerLogProbs(model, ids, answers, mustEnd ? ends : undefined);
    return resultOf(values, words, lps, truncationNote(truncated, ids.length));
  };

  const categories = async (req: JudgeRequest): Promise<JudgeResult> => {
    const yesNo = [coder.answer('Yes'), coder.answer('No')];
    const mustEnd = answersMustEnd(coder, yesNo);
    const room = Math.max(...yesNo.map((a) => a.length)) + (mustEnd ? 1 : 0);
    const pYes: Record<string, number> = {};
    const notes: string[] = [];
    for (const [i, c] of ERROR_CATEGORIES.entries()) {
      const { ids, truncated } = fit(`${req.prompt}\n\n${questions[i]}`, room);
      if (truncated) notes.push(`${CATEGORY_NAMES[c]}: ${truncationNote(truncated, ids.length)}`);
      const [yes, no] = await answerLogProbs(model, ids, yesNo, mustEnd ? ends : undefined);
      pYes[c] = 1 / (1 + Math.exp(no - yes));
    }
    const applying = ERROR_CATEGORIES.filter((c) => pYes[c] > 0.5);
    const mostEvidentError = applying.length ? applying.reduce((a, b) => (pYes[b] > pYes[a] ? b : a)) : undefined;
    const verdict = { categories: applying.map((c) => CATEGORY_NAMES[c]), mostEvidentError: mostEvidentError ? CATEGORY_NAMES[mostEvidentError] : null };
    let rationale: string | undefined;
    let raw = JSON.stringify({ ...verdict, pYes: Object.fromEntries(ERROR_CATEGORIES.map((c) => [CATEGORY_NAMES[c], Number(pYes[c].toFixed(6))])) });
    if (options.rationale) {
      const lead = `${JSON.stringify(verdict).slice(0, -1)}, "rationale": "`;
      rationale = await writeRationale(req.prompt, lead);
      raw = `${lead}${rationale.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"}`;
    }
    return {
      raw,
      value: applying.length === 0 ? 1 : 0,
      status: 'ok',
      errorCategories: { categories: applying, ...(mostEvidentError ? { mostEvidentError } : {}), ...(rationale ? { rationale } : {}) },
      ...(notes.length ? { message: notes.join('; ') } : {}),
    };
  };

  /** Greedy continuation of the reply `lead` until its string closes, the turn ends, or the bound. */
  const writeRationale = async (prompt: string, lead: string): Promise<string> => {
    const ids = model.tokenizer.encode(coder.wrap(prompt) + lead);
    const start = ids.slice(-(model.maxPositions - rationaleTokens - 1));
    const { session, logits } = await model.startDecoding([start], { expand: 1, maxNewTokens: rationaleTokens, prefixCache: true });
    const tokens: number[] = [];
    let row = logits;
    try {
      for (let step = 0; step < rationaleTokens; step++) {
        let best = 0;
        for (let v = 1; v < row.length; v++) if (row[v] > row[best]) best = v;
        if (ends.includes(best)) break;
        tokens.push(best);
        if (closingQuote(model.tokenizer.decode(tokens)) >= 0) break;
        if (step + 1 < rationaleTokens) row = await session.step([best]);
      }
    } finally {
      session.release?.();
    }
    const written = model.tokenizer.decode(tokens);
    const close = closingQuote(written);
    return (close < 0 ? written : written.slice(0, close)).replace(/\\"/g, '"').trim();
  };

  const run = (p: Pending) => (p.req.spec.kind === 'errorCategories' ? categories(p.req) : numeric(p.req)).then(p.resolve, p.reject);

  const chatFields: [string, string][] = coder.chat
    ? [
        ['chat', coder.chat.hash],
        ['args', JSON.stringify(options.templateArgs ?? DEFAULT_TEMPLATE_ARGS)],
        ['system', options.system ? digest(options.system) : 'none'],
        ['answers', 'logprob-reply'],
      ]
    : [['answers', 'logprob']];
  const signature = buildSignature([
    ['backend', 'local'],
    ['model', model.ref],
    ...chatFields,
    ...(coder.chat ? [] : ([['fit', 'oldest-turns-first']] as [string, string][])),
    ['categories', `yes-no@${digest(questions.join('\n'))}`],
    ...(coder.chat ? ([['rationale', options.rationale ? `greedy-${rationaleTokens}` : 'off'], ['fit', 'oldest-turns-first']] as [string, string][]) : options.rationale ? ([['rationale', `greedy-${rationaleTokens}`]] as [string, string][]) : []),
  ]);

  return {
    id,
    signature,
    // Room for the chat wrapping, the longest category question and the longest answer of a 0–100 scale (decoder-only
    // models share the positions between prompt and answer).
    budget: {
      maxTokens: (model.architecture === 'decoder-only' ? model.maxPositions - 4 : model.maxPositions) - coder.overhead - longestQuestion,
      count: (text: string) => model.tokenizer.encode(text).length,
    },
    judge(req: JudgeRequest): Promise<JudgeResult> {
      return new Promise<JudgeResult>((resolve, reject) => {
        // One judgement at a time on the model's session, in the order asked.
        chain = chain.then(() => run({ req, resolve, reject }));
      });
    },
  };
}
