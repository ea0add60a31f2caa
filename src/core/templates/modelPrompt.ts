/**
 * A local instruct model's generation prompt: the messages of ReflectEval's chat template
 * (`prompts/generation/chat.mustache`, as for API chat generators) rendered in the model's own chat template
 * (`ModelTokenizer.chatTemplate`, `@huggingface/jinja`), ending with the assistant's turn opened, and tokenized as the
 * model reads it. A context that does not fit the window leaves out its oldest turns (down to the last one); what is
 * then still too long is left-truncated.
 */
import type { Turn, TherapistBehaviour } from '../dialogue/types';
import type { ModelTokenizer } from '../models/tokenizer';
import { renderChatMessages, type ChatTemplate } from './chatTemplate';

/** A chat generation prompt. */
export interface ChatPrompt {
  ids: number[];
  /** The oldest turns left out to fit. */
  droppedTurns: number;
  /** What candidates record as `decoding.promptFormat`: `chat-template@<hash>+model-chat@<hash>`. */
  promptFormat: string;
}

/**
 * The prompt ids of one context for a model with a chat template.
 *
 * @param maxTokens - the window: the prompt's tokens at most (wrapping included)
 * @param templateArgs - variables for the model's template (default `{enable_thinking: false}`, Qwen3's non-thinking
 *   mode; templates that do not read it ignore it)
 * @throws Error when the tokenizer has no chat template
 */
export function chatPromptIds(
  tokenizer: ModelTokenizer,
  template: ChatTemplate,
  context: readonly Turn[],
  options: { behaviour: TherapistBehaviour; maxTokens: number; templateArgs?: Record<string, unknown> },
): ChatPrompt {
  const model = tokenizer.chatTemplate;
  if (!model) throw new Error('the model has no chat template');
  const ids = (turns: readonly Turn[]) =>
    tokenizer.encode(model.render(renderChatMessages(template, turns, options.behaviour), { addGenerationPrompt: true, kwargs: options.templateArgs ?? { enable_thinking: false } }));
  let dropped = 0;
  let out = ids(context);
  while (out.length > options.maxTokens && dropped < context.length - 1) {
    dropped++;
    out = ids(context.slice(dropped));
  }
  if (out.length > options.maxTokens) out = out.slice(out.length - options.maxTokens);
  return { ids: out, droppedTurns: dropped, promptFormat: `chat-template@${template.hash}+model-chat@${model.hash}` };
}
