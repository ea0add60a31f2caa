/**
 * Where a labelling key is applied (issue 19 item 3; the protocol in webview/editor/protocol.ts, `FocusState`):
 * in the extension host, on the candidate the webview last reported focused, when that report is settled and
 * follows every host message that can move focus; otherwise in the webview, which knows. No `vscode` import, so
 * the rule is unit-tested (test/extension/keyRoute.test.ts).
 */
import type { FocusState } from '../../webview/editor/protocol';

/** The candidate a key labels: the item (file index and id) and the candidate's id in the view. */
export interface KeyTarget {
  index: number;
  itemId: string;
  candidateId: string;
}

/** One dialogue editor's record of the focus its webview reported and the host messages that may move it. */
export class KeyRoute {
  private moves = 0;
  private reported: FocusState | null = null;

  /**
   * Numbers a host message that can move the webview's focus (`action`, `reveal`, `index`, and the `reveal` or
   * `notice` owed for a `nextUnlabelled` request, numbered when the request arrives). Until the webview reports a
   * state after it, keys go to the webview.
   */
  nextMove(): number {
    return ++this.moves;
  }

  /** Records the webview's focus state (the latest wins; the webview posts them in order). */
  report(state: FocusState): void {
    this.reported = state;
  }

  /** The candidate a key labels now, or null when only the webview knows (focus unsettled, or a move in flight). */
  target(): KeyTarget | null {
    const s = this.reported;
    if (!s || !s.settled || s.move !== this.moves || s.itemId === null || s.candidateId === null) return null;
    return { index: s.index, itemId: s.itemId, candidateId: s.candidateId };
  }
}
