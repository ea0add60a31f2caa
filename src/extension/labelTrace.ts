/**
 * Opt-in timing of a label's path through the extension host, for `npm run bench -- editor`: with the environment
 * variable `REFLECT_EVAL_TRACE_LABELS=<file>` set when VS Code starts, each step appends one JSON line
 * `{"event":…,"at":<Date.now() ms>,"ms":<performance.now() ms>}` to that file. Events, in a key's order: `command`
 * (the keybinding's command reached the host), `held` (a labelling key waits for the webview's report of where a
 * move took focus, editor/keyRoute.ts), `forwarded` (the key goes to the webview as an action), `received` (the webview's
 * label operation arrived), `edit` (the WorkspaceEdit is handed to VS Code), `changed` (VS Code reports the document changed),
 * `handled` (the editor's change handler is done), `ack` (the host acknowledged the operation). Nothing is written
 * without the variable; the lines hold no text of the document.
 */
import { appendFileSync } from 'node:fs';

/** Appends one timing line when tracing is on (see the module comment); never throws. */
export function traceLabel(event: 'command' | 'held' | 'forwarded' | 'received' | 'edit' | 'changed' | 'handled' | 'ack'): void {
  const file = process.env.REFLECT_EVAL_TRACE_LABELS;
  if (!file) return;
  try {
    appendFileSync(file, `${JSON.stringify({ event, at: Date.now(), ms: performance.now() })}\n`);
  } catch {
    // A trace is a measurement aid: a file that cannot be written must not break labelling.
  }
}
