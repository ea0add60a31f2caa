/**
 * The typed message protocol between the extension host and the judge-prompt preview webview, on the shared message
 * layer (webview/shared/messages.ts). Both sides compile against these definitions; nothing else crosses the boundary.
 */
import type { Protocol } from '../shared/messages';

/** The prompt a template (or a prompt search variant) assembles for the selected candidate. */
export interface PreviewView {
  /** The template file being edited. */
  template: string;
  variant: { body: string; request: string };
  /** Where the candidate comes from, e.g. `annomi.dialogues.jsonl · annomi-4-32 · g1`. */
  candidate: string | null;
  prompt: string | null;
  tokens: { count: number; tokenizer: string; approximate: boolean; judge: string } | null;
  error: string | null;
  /**
   * Where mustache.js indents a partial by the text before its tag (`Response: {{> part}}`): one sentence each,
   * naming file and line. The prompt shows the indentation as the judge gets it.
   */
  warnings: string[];
}

export interface PreviewProtocol extends Protocol {
  toWebview: { preview: PreviewView };
  /** `ready`: the page is loaded (and after a reload). */
  toHost: { ready: Record<string, never> };
  requests: Record<string, never>;
}
