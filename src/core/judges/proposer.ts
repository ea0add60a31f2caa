/**
 * Proposer rewrites for the prompt search (issue 17 item 1; docs/prompt-search.md): a configured chat model on an
 * OpenAI-compatible endpoint rewrites the text of one task-body part (default Part A, the task overview of ICMI
 * 2023 §2.4) `rewrites` times; each rewrite becomes a part of its own that the search swaps in wherever the original
 * part is switched on. This is the "instruction proposal" step of automatic prompt optimisers (APE, Zhou et al.,
 * ICLR 2023; OPRO, Yang et al., ICLR 2024), kept to what an honest search needs: the proposer sees the part's text
 * only — never a label, never a held-out item — so choosing among its rewrites on development items leaves the
 * held-out number as honest as choosing among the hand-written variants.
 *
 * Each rewrite is its own request (seed `seed + i`), cached in a response cache by the proposer's description
 * (endpoint, model, header names — no secrets) and the request body, so a rerun proposes the same texts without a
 * call. Retries with backoff are the `openai` package's.
 */
import { createHash } from 'node:crypto';
import OpenAI from 'openai';
import { responseCacheKey, type ResponseCache } from '../cache/responseCache';
import { isObject, rejectUnknownFields, type Fail } from '../config';

/** The proposer of a search plan (`proposer` in search.json). */
export interface ProposerSpec {
  /** OpenAI-compatible endpoint, e.g. `https://api.openai.com/v1` or `http://127.0.0.1:8000/v1`. */
  baseURL: string;
  model: string;
  /** Environment variable the CLI reads the key from (default OPENAI_API_KEY); the editor uses SecretStorage. */
  apiKeyEnv?: string;
  /** Extra headers (only their names enter cache keys). */
  headers?: Record<string, string>;
  /** Rewrites to propose, 1–10. */
  rewrites: number;
  /** The part to rewrite: a part file name or its letter (default `A`). */
  part?: string;
  /** Sampling temperature, 0–2 (default 1: rewrites should differ). */
  temperature?: number;
  /** Seed of the first rewrite; rewrite i is asked with seed + i (default 0). */
  seed?: number;
  /** Reply tokens at most (default 600). */
  maxTokens?: number;
}

/** One proposed rewrite: the part name it is given and its text. */
export interface ProposedPart {
  /** e.g. `Ar1-3f2a9c0b` for the first rewrite of Part A: the letters name it in shape names (`parts-Ar1BCD`). */
  name: string;
  /** The part it replaces. */
  replaces: string;
  text: string;
}

/** What a proposal run gave. */
export interface Proposal {
  parts: ProposedPart[];
  calls: number;
  cacheHits: number;
  /** Why rewrites were left out (an empty reply, a failed call), one line each. */
  warnings: string[];
}

const FIELDS = ['baseURL', 'model', 'apiKeyEnv', 'headers', 'rewrites', 'part', 'temperature', 'seed', 'maxTokens'];

/**
 * Checks a plan's `proposer` field.
 *
 * @throws ConfigError (through `fail`) naming the field, e.g. `proposer.rewrites: must be an integer from 1 to 10`
 */
export function validateProposer(value: unknown, at: string, fail: Fail): ProposerSpec {
  if (!isObject(value)) fail(at, 'must be an object like {"baseURL": "https://api.openai.com/v1", "model": "gpt-4o-mini", "rewrites": 4}');
  const p = value as Record<string, unknown>;
  rejectUnknownFields(p, FIELDS, at, fail);
  if (typeof p.baseURL !== 'string' || !/^https?:\/\//.test(p.baseURL)) fail(`${at}.baseURL`, 'must be an http(s) URL of an OpenAI-compatible endpoint');
  if (typeof p.model !== 'string' || !p.model.trim()) fail(`${at}.model`, 'must name the proposer model');
  if (!(Number.isInteger(p.rewrites) && (p.rewrites as number) >= 1 && (p.rewrites as number) <= 10)) fail(`${at}.rewrites`, 'must be an integer from 1 to 10');
  if (p.part !== undefined && (typeof p.part !== 'string' || !p.part)) fail(`${at}.part`, 'must be a part name or letter');
  if (p.apiKeyEnv !== undefined && (typeof p.apiKeyEnv !== 'string' || !/^[A-Za-z_][A-Za-z0-9_]*$/.test(p.apiKeyEnv))) fail(`${at}.apiKeyEnv`, 'must be an environment variable name');
  if (p.headers !== undefined && !(isObject(p.headers) && Object.values(p.headers).every((v) => typeof v === 'string'))) fail(`${at}.headers`, 'must be an object of string values');
  if (p.temperature !== undefined && !(typeof p.temperature === 'number' && p.temperature >= 0 && p.temperature <= 2)) fail(`${at}.temperature`, 'must be a number from 0 to 2');
  if (p.seed !== undefined && !Number.isInteger(p.seed)) fail(`${at}.seed`, 'must be an integer');
  if (p.maxTokens !== undefined && !(Number.isInteger(p.maxTokens) && (p.maxTokens as number) >= 16)) fail(`${at}.maxTokens`, 'must be an integer ≥ 16');
  return p as unknown as ProposerSpec;
}

/** What identifies the proposer's behaviour in cache keys (no secrets). */
export function proposerDescription(spec: ProposerSpec): Record<string, unknown> {
  return { kind: 'proposer-openai-chat', baseURL: spec.baseURL, model: spec.model, ...(spec.headers ? { headerNames: Object.keys(spec.headers).sort() } : {}) };
}

/** The instruction the proposer gets for a part's text. */
export function proposerMessages(partText: string): { role: 'system' | 'user'; content: string }[] {
  return [
    {
      role: 'system',
      content:
        'You write instructions for a language model that rates responses in counselling dialogues (motivational interviewing reflections). ' +
        'Rewrite the instructions you are given so that an evaluator model understands the task better: keep every definition and what is asked, ' +
        'change wording, structure and emphasis. Reply with the rewritten instructions only, as plain text, with no preamble.',
    },
    { role: 'user', content: partText.trim() },
  ];
}

/** The chat request body of rewrite `i` (what is sent, and what the cache key covers). */
export function proposerRequestBody(spec: ProposerSpec, partText: string, i: number): Record<string, unknown> {
  return {
    model: spec.model,
    messages: proposerMessages(partText),
    n: 1,
    temperature: spec.temperature ?? 1,
    max_tokens: spec.maxTokens ?? 600,
    seed: (spec.seed ?? 0) + i,
  };
}

/** The name a rewrite's part gets: the original part's letter + `r<i>`, and a digest of the text. */
export function rewritePartName(replaces: string, i: number, text: string): string {
  const letter = /^([A-Za-z0-9]+)-/.exec(replaces)?.[1] ?? replaces;
  return `${letter}r${i + 1}-${createHash('sha256').update(text).digest('hex').slice(0, 8)}`;
}

/**
 * Asks the proposer for `spec.rewrites` rewrites of a part's text, or takes them from the cache.
 *
 * @param replaces - the part's name (it names the rewrites)
 * @param partText - the part's template text as the library holds it
 * @returns the rewrites that came back non-empty (as literal text: any `{{` in them stays text), with call counts
 */
export async function proposeRewrites(spec: ProposerSpec, apiKey: string, replaces: string, partText: string, cache: ResponseCache<{ text: string }> | null, signal?: AbortSignal): Promise<Proposal> {
  const client = new OpenAI({ baseURL: spec.baseURL, apiKey, defaultHeaders: spec.headers, maxRetries: 3, timeout: 120_000 });
  const description = proposerDescription(spec);
  const out: Proposal = { parts: [], calls: 0, cacheHits: 0, warnings: [] };
  for (let i = 0; i < spec.rewrites; i++) {
    if (signal?.aborted) break;
    const body = proposerRequestBody(spec, partText, i);
    const key = responseCacheKey(description, JSON.stringify(body));
    let text = cache?.get(key)?.text;
    if (text !== undefined) out.cacheHits++;
    else {
      out.calls++;
      try {
        const res = await client.chat.completions.create(body as unknown as OpenAI.Chat.ChatCompletionCreateParamsNonStreaming, { signal });
        text = res.choices?.[0]?.message?.content ?? '';
      } catch (err) {
        out.warnings.push(`proposer rewrite ${i + 1} of ${replaces} failed: ${(err as Error).message}`);
        continue;
      }
      if (text.trim()) cache?.set(key, { text });
    }
    if (!text.trim()) {
      out.warnings.push(`proposer rewrite ${i + 1} of ${replaces} came back empty: left out`);
      continue;
    }
    if (text.includes('<%') || text.includes('%>')) {
      out.warnings.push(`proposer rewrite ${i + 1} of ${replaces} contains "<%" or "%>", so it cannot be embedded as literal text: left out`);
      continue;
    }
    out.parts.push({ name: rewritePartName(replaces, i, text), replaces, text: text.trim() });
  }
  return out;
}

/** A rewrite as template text: literal (a delimiter change keeps `{{` text), ending in a line break. */
export function rewriteTemplate(part: ProposedPart): string {
  return `{{=<% %>=}}${part.text}<%={{ }}=%>\n`;
}
