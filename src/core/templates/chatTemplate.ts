/**
 * The chat template of API generators on chat-completions endpoints: an editable Mustache file that turns a
 * dialogue context into chat messages (the bundled one is `prompts/generation/chat.mustache`).
 *
 * Format: a line `### system`, `### user` or `### assistant` starts a message with that role; its content is the
 * rendered text up to the next such line, with surrounding blank lines trimmed. Text before the first role line
 * must be blank (Mustache comments `{{! … }}` are). Placeholders: `{{#dialogue}} … {{/dialogue}}` over the
 * context turns with `{{role}}` (`Therapist` / `Client`) and `{{text}}`, as in the judge prompts; `{{context}}`,
 * the context in the seeds' model-input format (GEM 2022 §3.2, {@link renderContext}). Values are inserted
 * verbatim (no HTML escaping).
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import Mustache from 'mustache';
import { checkTemplate, PromptTemplateError } from './judgePrompt';
import { speakerDisplayName } from '../dialogue/speakers';
import type { TherapistBehaviour, Turn } from '../dialogue/types';
import { renderContext } from './modelInput';

/** Placeholders a chat template may use. */
export const CHAT_TEMPLATE_PLACEHOLDERS = ['dialogue', 'role', 'text', 'context'] as const;

/** File name of the chat template inside a prompts folder. */
export const CHAT_TEMPLATE_FILE = join('generation', 'chat.mustache');

/** One chat message. */
export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

/** A loaded, checked chat template. */
export interface ChatTemplate {
  file: string;
  source: string;
  /** First 12 hex digits of SHA-256 over the template text (recorded in candidate origins). */
  hash: string;
}

const ROLE_LINE = /^###[ \t]+(system|user|assistant)[ \t]*$/;

/**
 * Reads and checks a chat template file.
 *
 * @throws PromptTemplateError naming the file and line of a missing file, a syntax error or an unknown placeholder
 */
export function loadChatTemplate(file: string): ChatTemplate {
  if (!existsSync(file)) throw new PromptTemplateError(file, 1, 'chat template not found');
  const source = readFileSync(file, 'utf8');
  checkTemplate(file, source, {}, CHAT_TEMPLATE_PLACEHOLDERS);
  const template = { file, source, hash: createHash('sha256').update(source).digest('hex').slice(0, 12) };
  // Render an empty dialogue once so a template without any message fails now, not at the first call.
  renderChatMessages(template, []);
  return template;
}

/**
 * The chat template of the last prompts folder in `roots` that has `generation/chat.mustache` (bundled prompts
 * first, then the workspace's, as for judge templates).
 *
 * @throws PromptTemplateError when no root has one
 */
export function findChatTemplate(...roots: string[]): ChatTemplate {
  for (const root of [...roots].reverse()) {
    const file = join(root, CHAT_TEMPLATE_FILE);
    if (existsSync(file)) return loadChatTemplate(file);
  }
  throw new PromptTemplateError(join(roots[roots.length - 1] ?? '.', CHAT_TEMPLATE_FILE), 1, 'no chat template in any prompts folder');
}

/**
 * Renders the messages of a chat template for one context.
 *
 * @param behaviour - response type for `{{context}}`'s control code (default `reflection`)
 * @throws PromptTemplateError when the rendered template has text before its first role line or no message
 */
export function renderChatMessages(template: ChatTemplate, context: readonly Turn[], behaviour: TherapistBehaviour = 'reflection'): ChatMessage[] {
  const view = {
    dialogue: context.map((t) => ({ role: speakerDisplayName(t.speaker), text: t.text })),
    context: renderContext(context, behaviour),
  };
  const text = Mustache.render(template.source, view, {}, { escape: (s: string) => s });
  const messages: ChatMessage[] = [];
  let current: { role: ChatMessage['role']; lines: string[] } | undefined;
  const flush = () => {
    if (current) messages.push({ role: current.role, content: current.lines.join('\n').trim() });
  };
  for (const line of text.split('\n')) {
    const m = ROLE_LINE.exec(line);
    if (m) {
      flush();
      current = { role: m[1] as ChatMessage['role'], lines: [] };
    } else if (current) {
      current.lines.push(line);
    } else if (line.trim() !== '') {
      throw new PromptTemplateError(template.file, 1, `text before the first "### system|user|assistant" line: ${JSON.stringify(line.slice(0, 60))}`);
    }
  }
  flush();
  if (messages.length === 0) throw new PromptTemplateError(template.file, 1, 'no message: start one with a line "### user" (or "### system", "### assistant")');
  return messages;
}
