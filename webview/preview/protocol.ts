/**
 * The typed message protocol between the extension host and the judge-prompt preview webview. Both sides compile against these
 * definitions; nothing else crosses the boundary.
 */

export type PreviewHostMessage =
  | {
      type: 'preview';
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
    };

export type PreviewWebviewMessage = { type: 'ready' };
