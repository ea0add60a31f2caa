/**
 * Where a labelling key is applied (issue 19 item 3; the protocol in webview/editor/protocol.ts, `FocusState`):
 * in the extension host, on the candidate the webview last reported focused, when that report is settled and
 * follows every host message that can move focus; otherwise in the webview, which knows. A labelling key that
 * arrives while a move is on its way (a key typed at once after `j`) is held until the webview reports where focus
 * went, then applied in the host; keys after a held one wait behind it, so the order of keys is kept. Moves are
 * known by the numbers the message layer gives the host's messages (`seq`, webview/shared/messages.ts): the webview
 * reports the number of the last message that can move focus it has handled. No `vscode` import, so the rule is
 * unit-tested (test/extension/editor/keyRoute.test.ts).
 */
import { isLabelAction, type EditorAction, type LabelAction } from '../../core/labels/labelKeys';
import type { FocusState } from '../../../webview/editor/protocol';

/** The candidate a key labels: the item (file index and id), the candidate's id in the view, and its active question. */
export interface KeyTarget {
  index: number;
  itemId: string;
  candidateId: string;
  /** The card's active question (a rubric dimension), as the webview last reported it; null when none was. */
  question: string | null;
}

/** What the route does with a key: the dialogue editor's side. */
export interface KeyRouteHost {
  /** Labels `at` in the host (queued after every label operation before it). */
  apply(action: LabelAction, at: KeyTarget): void;
  /** Sends the key to the webview as an `action` (a message that can move focus); returns the message's number. */
  forward(action: EditorAction): number;
  /**
   * Whether the host can decide this label key from the document: a key the rubric declares, or clear. A key that
   * acts on the card's active question (and moves it on) goes to the webview, which keeps the question.
   */
  decidable?(action: LabelAction): boolean;
}

/**
 * Longest wait for the report of a move before held keys go to the webview (ms). The report normally follows the
 * move within the webview's handling of one message; the webview applies a forwarded key correctly too, only later.
 */
export const HOLD_MS = 300;

/** One dialogue editor's record of the focus its webview reported and the host messages that may move it. */
export class KeyRoute {
  /** The number of the last message sent that can move focus. */
  private lastMove = 0;
  /** Answers that will move focus (to `nextUnlabelled` requests), not yet sent. */
  private owed = 0;
  private reported: FocusState | null = null;
  private held: EditorAction[] = [];
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private readonly host: KeyRouteHost,
    private readonly holdMs = HOLD_MS,
  ) {}

  /**
   * A host message that can move the webview's focus went out (`index`, `action`, `reveal`) as number `seq`. Until
   * the webview reports a state after it, keys do not label in the host.
   */
  moved(seq: number): void {
    this.lastMove = Math.max(this.lastMove, seq);
  }

  /**
   * A request whose answer moves focus arrived (`nextUnlabelled`): from now until the webview reports a state after
   * that answer ({@link paid}), keys do not label in the host.
   */
  owe(): void {
    this.owed++;
  }

  /** The answer owed for a request went out as number `seq`. */
  paid(seq: number): void {
    this.owed = Math.max(0, this.owed - 1);
    this.moved(seq);
  }

  /** Records the webview's focus state (the latest wins; the webview posts them in order) and releases held keys. */
  report(state: FocusState): void {
    this.reported = state;
    this.release();
  }

  /** The candidate a key labels now, or null when only the webview knows (focus unsettled, or a move in flight). */
  target(): KeyTarget | null {
    const s = this.reported;
    if (!s || !s.settled || this.moveInFlight() || s.itemId === null || s.candidateId === null) return null;
    return { index: s.index, itemId: s.itemId, candidateId: s.candidateId, question: s.question ?? null };
  }

  /**
   * A key from VS Code's keybinding service. A labelling key labels in the host when the focus is known; waits for
   * the webview's report when a move is on its way; otherwise goes to the webview, as every other key does. While
   * keys are held, every key waits behind them.
   */
  key(action: EditorAction): void {
    if (this.held.length > 0) {
      this.held.push(action);
      return;
    }
    if (this.inHost(action)) {
      const at = this.target();
      if (at) return this.host.apply(action, at);
      if (this.moveInFlight()) {
        this.held.push(action);
        this.timer = setTimeout(() => this.flush(), this.holdMs);
        return;
      }
    }
    this.forward(action);
  }

  /** Keys held, waiting for the webview's report (for tests and traces). */
  get holding(): number {
    return this.held.length;
  }

  /** Sends every held key to the webview, in order: the report did not come in time. */
  flush(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    for (const action of this.held.splice(0)) this.forward(action);
  }

  /** Stops the timer (the editor closed); held keys are dropped with it. */
  dispose(): void {
    clearTimeout(this.timer);
    this.held = [];
  }

  /** A label key the host may apply itself (the others, and keys that move focus, go to the webview). */
  private inHost(action: EditorAction): action is LabelAction {
    return isLabelAction(action) && (this.host.decidable?.(action) ?? true);
  }

  /** The webview has not yet reported a state after the last message that can move focus (sent or owed). */
  private moveInFlight(): boolean {
    return this.owed > 0 || (this.reported?.move ?? 0) < this.lastMove;
  }

  private forward(action: EditorAction): void {
    this.moved(this.host.forward(action));
  }

  /** Applies or forwards held keys, in order, as far as the last report allows. */
  private release(): void {
    while (this.held.length > 0) {
      const action = this.held[0];
      if (this.inHost(action)) {
        const at = this.target();
        if (!at && this.moveInFlight()) return;
        this.held.shift();
        // Reported, but not settled on a candidate (an item on its way, none focused): the webview decides.
        if (at) this.host.apply(action, at);
        else this.forward(action);
      } else {
        this.held.shift();
        this.forward(action);
      }
    }
    clearTimeout(this.timer);
    this.timer = undefined;
  }
}
