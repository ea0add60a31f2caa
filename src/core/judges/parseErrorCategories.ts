/**
 * Parsing an error-category judge's reply (the `errorCategories` request, prompts/requests/error-categories.mustache):
 * which of the first study's error categories apply (GEM 2022 §4; ACL 2023 §3: Malformed, Dialogue-contradicting,
 * Parroting, Off-topic, On-topic but unverifiable, Other), the most evident one (MEE) and a rationale.
 */
import type { ErrorCategory } from '../dialogue/types';
import { ERROR_CATEGORIES } from '../labels/scheme';

/** What an error-category judge said about one candidate. */
export interface ErrorCategoryJudgement {
  /** The categories that apply, in the scheme's order, without repeats; empty = coherent and consistent. */
  categories: ErrorCategory[];
  /** The most evident error; set only when `categories` is not empty (filled with the only category when one applies). */
  mostEvidentError?: ErrorCategory;
  /** The judge's short rationale, verbatim (trimmed). */
  rationale?: string;
}

/** The parse of one reply: a judgement, or `unparsable` with a reason (never a default). */
export type ParsedErrorCategories = ({ status: 'ok' } & ErrorCategoryJudgement) | { status: 'unparsable'; message: string };

/** The JSON schema sent as OpenAI's `response_format: {type: 'json_schema'}` for an error-category request. */
export const ERROR_CATEGORIES_JSON_SCHEMA = {
  name: 'error_categories',
  strict: true,
  schema: {
    type: 'object',
    additionalProperties: false,
    required: ['categories', 'mostEvidentError', 'rationale'],
    properties: {
      categories: { type: 'array', items: { type: 'string', enum: ['Malformed', 'Dialogue-contradicting', 'Parroting', 'Off-topic', 'On-topic but unverifiable', 'Other'] } },
      mostEvidentError: { type: ['string', 'null'], enum: ['Malformed', 'Dialogue-contradicting', 'Parroting', 'Off-topic', 'On-topic but unverifiable', 'Other', null] },
      rationale: { type: 'string' },
    },
  },
} as const;

const NAMES: ReadonlyMap<string, ErrorCategory> = new Map(
  ERROR_CATEGORIES.flatMap((c) => {
    const forms: Record<ErrorCategory, string[]> = {
      malformed: ['malformed'],
      dialogueContradicting: ['dialogue-contradicting', 'dialoguecontradicting', 'dialogue contradicting', 'contradicting', 'contradicts dialogue'],
      parroting: ['parroting'],
      offTopic: ['off-topic', 'offtopic', 'off topic'],
      onTopicButUnverifiable: ['on-topic but unverifiable', 'ontopicbutunverifiable', 'on topic but unverifiable', 'unverifiable', 'on-topic-but-unverifiable'],
      other: ['other'],
    };
    return forms[c].map((f) => [f, c] as [string, ErrorCategory]);
  }),
);

const NONE = new Set(['none', 'no error', 'no errors', 'coherent', 'n/a', '-', '']);

/** The category a name denotes (`"Off-topic"`, `"offTopic"`, `"on topic but unverifiable"`…), or undefined. */
export function errorCategoryFromName(name: string): ErrorCategory | undefined {
  const key = name.trim().replace(/^["'`*\-•\d.)\s]+|["'`*.\s]+$/g, '').toLowerCase().replace(/[_\s]+/g, ' ');
  return NAMES.get(key) ?? NAMES.get(key.replace(/ /g, '')) ?? NAMES.get(key.replace(/ /g, '-'));
}

function fromObject(o: Record<string, unknown>): ParsedErrorCategories {
  const rawList = o.categories ?? o.errors ?? o.errorCategories;
  if (!Array.isArray(rawList)) return { status: 'unparsable', message: 'the JSON has no "categories" list' };
  const categories: ErrorCategory[] = [];
  for (const n of rawList) {
    if (typeof n !== 'string') return { status: 'unparsable', message: `category ${JSON.stringify(n)} is not a name` };
    if (NONE.has(n.trim().toLowerCase())) continue;
    const c = errorCategoryFromName(n);
    if (!c) return { status: 'unparsable', message: `"${n}" is not one of the error categories` };
    if (!categories.includes(c)) categories.push(c);
  }
  const meeRaw = o.mostEvidentError ?? o.most_evident_error ?? o.mee;
  let mee: ErrorCategory | undefined;
  if (typeof meeRaw === 'string' && !NONE.has(meeRaw.trim().toLowerCase())) {
    mee = errorCategoryFromName(meeRaw);
    if (!mee) return { status: 'unparsable', message: `most evident error "${meeRaw}" is not one of the error categories` };
  } else if (meeRaw !== undefined && meeRaw !== null && typeof meeRaw !== 'string') return { status: 'unparsable', message: 'mostEvidentError is not a name' };
  return finish(categories, mee, typeof o.rationale === 'string' ? o.rationale : undefined);
}

function finish(list: ErrorCategory[], mee: ErrorCategory | undefined, rationale: string | undefined): ParsedErrorCategories {
  const categories = ERROR_CATEGORIES.filter((c) => list.includes(c));
  if (mee && !categories.includes(mee)) {
    if (categories.length > 0) return { status: 'unparsable', message: `the most evident error ${mee} is not among the categories given` };
    return { status: 'unparsable', message: `a most evident error (${mee}) but no category` };
  }
  const filled = mee ?? (categories.length === 1 ? categories[0] : undefined);
  const r = rationale?.trim();
  return { status: 'ok', categories, ...(filled ? { mostEvidentError: filled } : {}), ...(r ? { rationale: r } : {}) };
}

/** The first balanced `{…}` in a text (strings and escapes respected), or undefined. */
function firstJsonObject(text: string): string | undefined {
  const start = text.indexOf('{');
  if (start < 0) return undefined;
  let depth = 0;
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const ch = text[i];
    if (inString) {
      if (ch === '\\') i++;
      else if (ch === '"') inString = false;
    } else if (ch === '"') inString = true;
    else if (ch === '{') depth++;
    else if (ch === '}' && --depth === 0) return text.slice(start, i + 1);
  }
  return undefined;
}

/**
 * Parses an error-category reply. Accepted, in this order:
 * 1. JSON `{"categories": [...], "mostEvidentError": …, "rationale": …}` — the whole reply, inside a ```json code
 *    fence, or the first balanced object in the text (the JSON-schema response format gives the first form);
 * 2. labelled lines: `Categories: Parroting, Off-topic` (or `None`), `Most evident error: Parroting`,
 *    `Rationale: …`;
 * 3. a bare list of category names (comma, semicolon, newline or bullet separated), or `None`.
 *
 * Category names match ignoring case, spaces, hyphens and underscores (`Off-topic`, `offTopic`). A name outside the
 * scheme, a most evident error that is not among the categories, or a reply none of the forms fits is `unparsable`
 * with a reason — never a default. One category without an MEE fills the MEE (GEM 2022 §5.1's filling rule).
 *
 * @param raw - the reply verbatim
 */
export function parseErrorCategoriesReply(raw: string): ParsedErrorCategories {
  const text = raw.trim();
  const fence = /```(?:json)?\s*([\s\S]*?)```/i.exec(text);
  const candidates = [fence?.[1], text, firstJsonObject(text)].filter((t): t is string => typeof t === 'string' && t.trim().startsWith('{'));
  for (const c of candidates) {
    try {
      const o = JSON.parse(c.trim()) as unknown;
      if (o && typeof o === 'object' && !Array.isArray(o)) return fromObject(o as Record<string, unknown>);
    } catch {
      // not JSON: try the next form
    }
  }
  const lines = text.split(/\r?\n/);
  const labelled = (re: RegExp) => lines.map((l) => re.exec(l)).find(Boolean)?.[1];
  const catLine = labelled(/^\s*[*_]*(?:error )?categor(?:y|ies)[*_]*\s*[:=]\s*(.*)$/i);
  const meeLine = labelled(/^\s*[*_]*(?:most evident(?: error)?|mee)[*_]*\s*[:=]\s*(.*)$/i);
  const rationale = labelled(/^\s*[*_]*rationale[*_]*\s*[:=]\s*(.*)$/i);
  const listText = catLine ?? (meeLine === undefined && rationale === undefined ? text : undefined);
  if (listText === undefined) return { status: 'unparsable', message: 'no "categories" in the reply' };
  const names = listText.split(/[,;\n]|\s+and\s+/).map((n) => n.trim()).filter((n) => n.length > 0);
  const categories: ErrorCategory[] = [];
  for (const n of names) {
    if (NONE.has(n.toLowerCase().replace(/[.\s]+$/, ''))) continue;
    const c = errorCategoryFromName(n);
    if (!c) return { status: 'unparsable', message: `"${n.length > 60 ? n.slice(0, 57) + '…' : n}" is not one of the error categories` };
    categories.push(c);
  }
  if (names.length === 0) return { status: 'unparsable', message: 'an empty reply' };
  let mee: ErrorCategory | undefined;
  if (meeLine !== undefined && !NONE.has(meeLine.trim().toLowerCase().replace(/[.\s]+$/, ''))) {
    mee = errorCategoryFromName(meeLine);
    if (!mee) return { status: 'unparsable', message: `most evident error "${meeLine.trim()}" is not one of the error categories` };
  }
  return finish(categories, mee, rationale);
}
