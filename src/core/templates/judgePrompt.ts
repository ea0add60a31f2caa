/**
 * Judge prompt assembly (Wu et al., ICMI 2023 §2.4 and Appendix A, Tables 6–7): a task body followed by an
 * assessment request, both Mustache templates loaded from a prompts folder (see `prompts/README.md`).
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import Mustache from 'mustache';
import { speakerDisplayName } from '../dialogue/speakers';
import type { Turn } from '../dialogue/types';

/** Placeholders a template may use. */
export const PROMPT_PLACEHOLDERS = ['dialogue', 'role', 'text', 'response'] as const;

/** The valid answers of an assessment request. */
export interface RequestSpec {
  min: number;
  max: number;
  /** Only whole numbers are valid (Rating 1–5). */
  integer: boolean;
  description?: string;
  /**
   * What the request asks for: `number` (default; a value in [min, max]) or `errorCategories` (which of the first
   * study's error categories apply, the most evident one and a rationale; parsed by `parseErrorCategoriesReply`, the
   * score's value is 1 when no category applies and 0 otherwise, so min 0, max 1).
   */
  kind?: 'number' | 'errorCategories';
  /**
   * Answers given as words instead of numbers, each mapped to its value in [min, max], e.g. `{"Yes": 1, "No": 0}`
   * for a binary request. The reply's first word is matched ignoring case; the local judge scores these words.
   */
  answers?: Record<string, number>;
  /**
   * The only valid numbers, when they are not every whole number of [min, max] (an ordinal scale whose points skip
   * values, e.g. 0, 2, 4): a reply that is another number is unparsable. Absent for contiguous scales.
   */
  values?: number[];
  /**
   * The rubric dimension the request rates (requests built from a rubric, judges/dimensionRequest.ts): part of the
   * spec, hence of the template hash and the cache key, so requests for two dimensions never share either.
   */
  dimension?: string;
}

/** A template problem, naming the file and 1-based line. */
export class PromptTemplateError extends Error {
  constructor(
    readonly file: string,
    readonly line: number,
    message: string,
  ) {
    super(`${file}:${line}: ${message}`);
    this.name = 'PromptTemplateError';
  }
}

/** Templates read from one prompts folder. */
export interface PromptLibrary {
  root: string;
  parts: Record<string, { file: string; source: string }>;
  bodies: Record<string, { file: string; source: string }>;
  requests: Record<string, { file: string; source: string; spec: RequestSpec }>;
}

function readTemplates(dir: string): Record<string, { file: string; source: string }> {
  if (!existsSync(dir)) return {};
  const out: Record<string, { file: string; source: string }> = {};
  for (const f of readdirSync(dir).sort()) {
    if (!f.endsWith('.mustache')) continue;
    const file = join(dir, f);
    out[basename(f, '.mustache')] = { file, source: readFileSync(file, 'utf8') };
  }
  return out;
}

/**
 * Loads the templates of one or more prompts folders; later folders override earlier ones by name
 * (bundled prompts first, then the workspace's).
 *
 * @throws PromptTemplateError when a request has no valid `.json` range file
 */
export function loadPromptLibrary(...roots: string[]): PromptLibrary {
  const lib: PromptLibrary = { root: roots[roots.length - 1], parts: {}, bodies: {}, requests: {} };
  for (const root of roots) {
    Object.assign(lib.parts, readTemplates(join(root, 'parts')));
    Object.assign(lib.bodies, readTemplates(join(root, 'bodies')));
    for (const [name, t] of Object.entries(readTemplates(join(root, 'requests')))) {
      const specFile = join(root, 'requests', `${name}.json`);
      if (!existsSync(specFile)) throw new PromptTemplateError(specFile, 1, `request "${name}" needs a ${name}.json with {"min", "max", "integer"}`);
      let spec: RequestSpec;
      try {
        spec = JSON.parse(readFileSync(specFile, 'utf8')) as RequestSpec;
      } catch (err) {
        throw new PromptTemplateError(specFile, 1, `not valid JSON: ${(err as Error).message}`);
      }
      if (spec.kind !== undefined && spec.kind !== 'number' && spec.kind !== 'errorCategories') {
        throw new PromptTemplateError(specFile, 1, '"kind" must be "number" or "errorCategories"');
      }
      if (spec.kind === 'errorCategories') spec = { ...spec, min: spec.min ?? 0, max: spec.max ?? 1, integer: true };
      if (typeof spec.min !== 'number' || typeof spec.max !== 'number' || !(spec.min < spec.max)) {
        throw new PromptTemplateError(specFile, 1, 'needs numeric "min" < "max"');
      }
      if (spec.answers !== undefined) {
        const ok = typeof spec.answers === 'object' && spec.answers !== null && Object.keys(spec.answers).length >= 2 && Object.entries(spec.answers).every(([w, v]) => /^\S+$/.test(w) && typeof v === 'number' && v >= spec.min && v <= spec.max);
        if (!ok) throw new PromptTemplateError(specFile, 1, '"answers" must map two or more single words to values in [min, max], e.g. {"Yes": 1, "No": 0}');
      }
      lib.requests[name] = { ...t, spec: { ...spec, integer: Boolean(spec.integer) } };
    }
  }
  return lib;
}

type Token = [string, string, number, number, Token[]?, ...unknown[]];

function lineOf(source: string, index: number): number {
  return source.slice(0, index).split('\n').length;
}

/**
 * Checks placeholders and partial references of one template.
 *
 * @param placeholders - the names the template may use (default: the judge prompts' {@link PROMPT_PLACEHOLDERS})
 * @throws PromptTemplateError naming the file and line of a syntax error, an unknown placeholder or part
 */
export function checkTemplate(file: string, source: string, partials: Record<string, unknown>, placeholders: readonly string[] = PROMPT_PLACEHOLDERS): void {
  let tokens: Token[];
  try {
    tokens = Mustache.parse(source) as unknown as Token[];
  } catch (err) {
    const m = /at (\d+)/.exec((err as Error).message);
    throw new PromptTemplateError(file, m ? lineOf(source, Number(m[1])) : 1, (err as Error).message);
  }
  const walk = (ts: Token[]) => {
    for (const t of ts) {
      const [type, name, start] = t;
      if (type === '>' && !(name in partials)) throw new PromptTemplateError(file, lineOf(source, start), `unknown part "{{> ${name}}}" (known: ${Object.keys(partials).join(', ') || 'none'})`);
      if ((type === 'name' || type === '&' || type === '#' || type === '^') && !placeholders.includes(name)) {
        throw new PromptTemplateError(file, lineOf(source, start), `unknown placeholder "${name}" (known: ${placeholders.join(', ')})`);
      }
      if (t[4]) walk(t[4]);
    }
  };
  walk(tokens);
}

/** A judge prompt variant: a task body × an assessment request. */
export interface PromptVariant {
  body: string;
  request: string;
}

/** An assembled prompt with the hash of the exact template text that produced it. */
export interface AssembledPrompt {
  text: string;
  spec: RequestSpec;
  /** First 12 hex digits of SHA-256 over the body, request and every part's source. */
  templateHash: string;
}

/** Names of the parts a template includes, directly or through other parts. */
function partsUsed(lib: PromptLibrary, source: string, seen = new Set<string>()): Set<string> {
  const walk = (tokens: Token[]) => {
    for (const t of tokens) {
      if (t[0] === '>' && !seen.has(t[1]) && lib.parts[t[1]]) {
        seen.add(t[1]);
        partsUsed(lib, lib.parts[t[1]].source, seen);
      }
      if (t[4]) walk(t[4]);
    }
  };
  try {
    walk(Mustache.parse(source) as unknown as Token[]);
  } catch {
    // A syntax error is reported with its file and line by assemblePrompt.
  }
  return seen;
}

/**
 * Hash identifying the template text of a variant: its body, its request and range, and the parts the body
 * includes. Editing any of them gives a new hash; editing a part the variant does not use does not.
 *
 * @throws PromptTemplateError when the body or request does not exist
 */
export function templateHash(lib: PromptLibrary, variant: PromptVariant): string {
  const body = lib.bodies[variant.body];
  const request = lib.requests[variant.request];
  if (!body) throw new PromptTemplateError(join(lib.root, 'bodies', `${variant.body}.mustache`), 1, `no task body "${variant.body}" (known: ${Object.keys(lib.bodies).join(', ')})`);
  if (!request) throw new PromptTemplateError(join(lib.root, 'requests', `${variant.request}.mustache`), 1, `no assessment request "${variant.request}" (known: ${Object.keys(lib.requests).join(', ')})`);
  const h = createHash('sha256');
  h.update(body.source).update('\u0000').update(request.source).update('\u0000').update(JSON.stringify(request.spec));
  const used = new Set([...partsUsed(lib, body.source), ...partsUsed(lib, request.source)]);
  for (const name of [...used].sort()) h.update('\u0000' + name + '\u0000' + lib.parts[name].source);
  return h.digest('hex').slice(0, 12);
}

/**
 * Assembles the prompt of `variant` for one response to one context: body, a blank line, request.
 *
 * @throws PromptTemplateError naming the file and line of an unknown placeholder or part
 */
export function assemblePrompt(lib: PromptLibrary, variant: PromptVariant, context: readonly Turn[], response: string): AssembledPrompt {
  const hash = templateHash(lib, variant);
  const body = lib.bodies[variant.body];
  const request = lib.requests[variant.request];
  const partials = Object.fromEntries(Object.entries(lib.parts).map(([k, v]) => [k, v.source]));
  for (const p of Object.values(lib.parts)) checkTemplate(p.file, p.source, partials);
  checkTemplate(body.file, body.source, partials);
  checkTemplate(request.file, request.source, partials);
  const view = {
    dialogue: context.map((t) => ({ role: speakerDisplayName(t.speaker), text: t.text })),
    response,
  };
  const render = (src: string) => Mustache.render(src, view, partials, { escape: (s: string) => s });
  const text = `${render(body.source).trimEnd()}\n\n${render(request.source).trimEnd()}`;
  return { text, spec: request.spec, templateHash: hash };
}

/**
 * {@link assemblePrompt} within a token budget: while the prompt is longer than `maxTokens`, the oldest turn of the
 * context is left out (the task description, error explanations, tutorial, the latest turns, the response and the
 * request stay whole), down to the last turn. A prompt that is still too long is returned as it is (the judge
 * truncates it). `droppedTurns` says how many turns were left out.
 */
export function assemblePromptWithin(
  lib: PromptLibrary,
  variant: PromptVariant,
  context: readonly Turn[],
  response: string,
  budget: { maxTokens: number; count(text: string): number },
): AssembledPrompt & { droppedTurns: number } {
  let dropped = 0;
  let prompt = assemblePrompt(lib, variant, context, response);
  while (dropped < context.length - 1 && budget.count(prompt.text) > budget.maxTokens) {
    dropped++;
    prompt = assemblePrompt(lib, variant, context.slice(dropped), response);
  }
  return { ...prompt, droppedTurns: dropped };
}

/** A partial whose later lines mustache.js indents by the width of the text before its tag. */
export interface PartialIndentWarning {
  /** The template the tag is in. */
  file: string;
  /** 1-based line of the `{{> name}}` tag. */
  line: number;
  partial: string;
  /** The text before the tag on its line, e.g. `Response: `. */
  prefix: string;
  /** Spaces added before each later line of the partial (the prefix's width). */
  indent: number;
  message: string;
}

/**
 * Partials whose indentation comes from a text prefix: mustache.js 4 (`Writer.indentPartial`) indents every line
 * after the first of a partial by the width of what precedes its tag when the tag is the first on its line —
 * counting each non-blank character of text as a space. `Response: {{> answer}}` with a two-line `answer` renders
 * its second line with 10 leading spaces. The assembled prompt shows this faithfully; this says where it comes from.
 * A partial of one line (or not known) gives no warning.
 *
 * @param source - the template's text
 * @param partials - the partials' sources by name
 * @returns warnings in the order of the tags (nested sections included)
 */
export function partialIndentWarnings(file: string, source: string, partials: Record<string, string>): PartialIndentWarning[] {
  type Token = [string, string, number, number, ...unknown[]];
  const out: PartialIndentWarning[] = [];
  const lineOf = (offset: number) => source.slice(0, offset).split('\n').length;
  const walk = (tokens: Token[]) => {
    for (const t of tokens) {
      if (t[0] === '>') {
        const [, name, start, , indentation, tagIndex, lineHasNonSpace] = t as [string, string, number, number, string, number, boolean];
        const partial = partials[name];
        const later = partial === undefined ? [] : partial.split('\n').slice(1).filter((l) => l.length > 0);
        if (tagIndex === 0 && lineHasNonSpace && indentation && later.length > 0) {
          const lineStart = source.lastIndexOf('\n', start - 1) + 1;
          const prefix = source.slice(lineStart, start);
          const indent = indentation.replace(/[^ \t]/g, '').length;
          out.push({
            file,
            line: lineOf(start),
            partial: name,
            prefix,
            indent,
            message: `${basename(file)}:${lineOf(start)}: {{> ${name}}} follows the text ${JSON.stringify(prefix)} on its line, so mustache.js indents the partial's ${later.length} later line(s) by ${indent} spaces (the width of that text). Put the tag on its own line, or the text inside the partial, if that is not wanted.`,
          });
        }
      } else if ((t[0] === '#' || t[0] === '^') && Array.isArray(t[4])) {
        walk(t[4] as Token[]);
      }
    }
  };
  walk(Mustache.parse(source) as unknown as Token[]);
  return out;
}

/** {@link partialIndentWarnings} of a prompt variant's body and request and of every part, each once. */
export function variantIndentWarnings(lib: PromptLibrary, variant: PromptVariant): PartialIndentWarning[] {
  const partials = Object.fromEntries(Object.entries(lib.parts).map(([k, v]) => [k, v.source]));
  const templates = [lib.bodies[variant.body], lib.requests[variant.request], ...Object.values(lib.parts)].filter((t): t is { file: string; source: string } => !!t);
  return templates.flatMap((t) => partialIndentWarnings(t.file, t.source, partials));
}
