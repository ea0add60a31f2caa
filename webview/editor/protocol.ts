/**
 * The typed message protocol between the extension host and the dialogue editor webview. Both sides compile against these
 * definitions; nothing else crosses the boundary.
 */
import type { LabelOp } from '../../src/core/labels/annotate';
import type { CandidateView, ItemView } from '../../src/core/labels/annotatorView';
import type { ScoreGroup } from '../../src/core/navigation/scoreSummary';
import type { EditorAction } from '../../src/core/labels/labelKeys';
import type { ItemFilter, LabelProgress } from '../../src/core/navigation/itemNavigation';

/** How the item list is sorted: file order, or the labelling plan's (next to label first; issue 16 item 3). */
export type ListOrder = 'file' | 'plan';

/**
 * The item list's filter, order and progress as the host computed them (src/core/navigation/itemNavigation.ts;
 * the plan: src/core/planning/planView.ts). Sent after every `index` and whenever the filter or order changes.
 */
export interface NavigatorState {
  /** File indices of the listed items, in list order; null: every item in file order. */
  shown: number[] | null;
  filter: ItemFilter;
  order: ListOrder;
  /** Origin groups to filter by (empty in blind mode). */
  origins: string[];
  /** Blind mode: the origin and judge-vs-humans filters are not offered (they would reveal origins and scores). */
  blind: boolean;
  /** Filters the host dropped because blind mode hides what they need. */
  dropped: string[];
  /** Labelled (coherence answered) / total, for the viewing annotator and every annotator. */
  progress: LabelProgress;
  /** The plan's state line (with `order: 'plan'`), or why there is none. */
  plan: { text: string; title: string } | { error: string } | null;
}

/** Why a candidate is marked in the list of candidates (hover text), from the same rules as the filters. */
export interface CandidateMarks {
  /** e.g. `coherent: Expert-1, Lay-1 · incoherent: Lay-2`. */
  annotatorsDisagree?: string;
  /** Each disagreeing judge (absent in blind mode). */
  judgeHumansDisagree?: string;
}

/** One row of the item list (kept small so 10,000 items stay cheap to send). */
export interface ItemEntry {
  index: number;
  id: string;
  /** Short title: transcript/utterance (or turn index), with what tells apart items that would read alike (core `itemTitleList`). */
  label: string;
  /** The first words of the last client turn (second line of the row). */
  snippet?: string;
  /** Id, dataset and topic, for the row's tooltip. */
  description?: string;
  candidates: number;
  /** Candidates the current annotator has labelled (coherent yes/no). */
  labelled: number;
  /** Candidates whose label by the current annotator is complete (empathy given, or errors and MEE). */
  complete: number;
}

/**
 * A line of the file that needs attention (src/core/format/lineReport.ts `problemLines`): one entry per line with
 * all its reasons; a line that is not an item is kept verbatim on save.
 */
export interface ProblemEntry {
  /** 1-based line number in the editor's text (what Go to Line and the Problems panel use). */
  line: number;
  severity: 'error' | 'warning';
  /** Every reason, in order. */
  reasons: string[];
}

/**
 * An unsaved label that could not simply be merged into the file a job rewrote on disk (issue 14 item 3): changed on
 * both sides (`conflict`), or its item or candidate is gone from the file. Both values are shown; the user picks.
 */
export interface ConflictEntry {
  id: number;
  kind: 'conflict' | 'itemMissing' | 'candidateMissing';
  itemId: string;
  /** Index of the item in the list, when the file still has it. */
  itemIndex: number | null;
  /** The candidate's text (shortened), or its id when it is gone. */
  candidate: string;
  annotator: string;
  /** The unsaved value of the fields in question (what the document holds). */
  mine: string;
  /** The value on disk. */
  disk: string;
}

/**
 * Labels applied in the host (issue 19 item 3). A labelling key runs a VS Code command in the extension host; the
 * host labels the focused candidate itself, without asking the webview, when it knows which candidate that is: the
 * webview's last {@link FocusState} is settled and reports every message that can move focus the host sent (`move`
 * on `action`, `reveal`, `notice` and `index`; the host also counts each `nextUnlabelled` it was asked for, whose
 * `reveal` or `notice` is still to come). A key that arrives while such a message is on its way waits in the host for
 * the report that follows it (keyRoute.ts). Otherwise the key goes to the webview as an `action` and comes back as a
 * `label` operation, in order after the messages that move focus. A click or Tab in the webview posts its focus
 * state in the event that moves focus, before a key typed next is forwarded to VS Code's keybinding service; the
 * end-to-end test checks that such a key labels the candidate just clicked (test/e2e/labelling.e2e.test.ts).
 */
export interface FocusState {
  type: 'focusState';
  /** The last `move` of a host message the webview handled. */
  move: number;
  /** The selected item (file index) and its id when shown. */
  index: number;
  itemId: string | null;
  /** The focused candidate, by the id the view gives it (opaque in blind mode). */
  candidateId: string | null;
  /**
   * The item is shown, focus is on a candidate, no action is held back and no answer to a `nextUnlabelled` request
   * is on its way: a key now labels `candidateId` of `itemId`.
   */
  settled: boolean;
}

export type EditorHostMessage =
  | { type: 'index'; file: string; entries: ItemEntry[]; problems: ProblemEntry[]; annotator: string | null; blind: boolean; comparison: boolean; move: number }
  /**
   * Rows of the item list that changed since the last `index` or `entries` (the items' lines were edited in place:
   * a label, an undo of one), each replacing the row of the same `index`. Sent instead of a whole `index` so a key
   * press in a 5,000-item file costs one row (issue 19 item 3); items added, removed or moved send an `index`.
   */
  | { type: 'entries'; entries: ItemEntry[] }
  | { type: 'navigator'; state: NavigatorState }
  /**
   * A short message for the hint line (e.g. "next unlabelled" found none); `move`: see {@link FocusState};
   * `answers`: this is the answer to the webview's `nextUnlabelled` request.
   */
  | { type: 'notice'; text: string; move?: number; answers?: 'nextUnlabelled' }
  /**
   * Whether VS Code now sends the labelling keys to this editor: the focus context key of their keybindings
   * (`reflectEval.dialogueEditorFocus`) is set. It follows the webview's `focus` message after a round trip through
   * the extension host, so a key typed the moment focus enters the webview can arrive before it and is then not
   * seen by the extension; the legend shows the keys as live only once this says so.
   */
  | { type: 'keys'; live: boolean }
  /**
   * The selected item as the annotator sees it. `ack`: the last label operation (by `seq`) the document already
   * reflects; the webview re-applies its later ones on top until they are acknowledged.
   */
  | {
      type: 'item';
      index: number;
      /** The whole view, with `scoresStamp`; absent with `scoresBase` (see `candidates`). */
      view?: ItemView;
      /**
       * With `scoresBase`, instead of `view`: only the candidates (as the view shows them, in any order) that
       * changed since the full set `scoresBase` and the partial ones after it; the context, the reference and the
       * order of the candidates have not changed (issue 19 item 3: after a label key, one candidate, not the item).
       */
      candidates?: CandidateView[];
      ack: number;
      /** The last label the host applied itself (`labelled`, by `hostSeq`) that the document already reflects. */
      hostAck: number;
      /**
       * Each shown candidate's scores (by the id the view gives it) as readable, grouped lines, named over every
       * evaluator of the file so names match the correlation tables. Empty in blind mode.
       */
      scores: Record<string, ScoreGroup[]>;
      /** Set when `scores` is every shown candidate's: a number for this full set. */
      scoresStamp?: number;
      /**
       * Set instead when `scores` holds only the candidates whose lines changed since the full set `scoresBase`
       * (and the partial sets after it): the others keep theirs. A webview that does not hold that set asks for the
       * item again (`select`).
       */
      scoresBase?: number;
      /** Disagreement marks by the id the view gives each candidate (only candidates with a mark). */
      marks?: Record<string, CandidateMarks>;
    }
  /**
   * Label operations up to `seq` (the webview's) or `hostSeq` (the host's own, `labelled`) have been applied (or
   * rejected); the document is the truth for them now.
   */
  | { type: 'ack'; seq?: number; hostSeq?: number }
  /**
   * A labelling key was pressed (a VS Code command ran) and the host leaves it to the webview: act on the focused
   * candidate. `move`: see {@link FocusState}.
   */
  | { type: 'action'; action: EditorAction; move: number }
  /**
   * A labelling key the host applied itself to the candidate the webview reported focused: shown at once, like the
   * webview's own operations, until `ack` with this `hostSeq` (which increases by one per message).
   */
  | { type: 'labelled'; hostSeq: number; itemId: string; candidateId: string; op: LabelOp }
  | { type: 'busy'; message: string | null }
  /**
   * Show this item with this candidate focused (drill-down from a panel; `answers`: the answer to the webview's
   * `nextUnlabelled` request, which holds back the keys after it until it arrives).
   */
  | { type: 'reveal'; index: number; candidateId: string | null; move: number; answers?: 'nextUnlabelled' }
  /** Unsaved labels that need the user's pick after a merge with the file on disk (empty: none). */
  | { type: 'conflicts'; conflicts: ConflictEntry[] };

export type EditorWebviewMessage =
  | { type: 'ready' }
  | { type: 'select'; index: number }
  /** One change to the current annotator's label; `seq` increases by one per message from this webview. */
  | { type: 'label'; seq: number; itemId: string; candidateId: string; op: LabelOp }
  /** Posted whenever it changes (deduplicated): which candidate a key would label now. */
  | FocusState
  /** The webview gained or lost keyboard focus (drives the `reflectEval.dialogueEditorFocus` context key). */
  | { type: 'focus'; focused: boolean }
  /** Show this 1-based line of the file in a text editor (a problem line the banner lists). */
  | { type: 'revealLine'; line: number }
  /** The user's pick for a {@link ConflictEntry}: keep the unsaved label, or the file's. */
  | { type: 'resolveConflict'; id: number; choice: 'mine' | 'disk' }
  /** The item list's filter and order changed. */
  | { type: 'navigate'; filter: ItemFilter; order: ListOrder }
  /** Go to the next candidate the annotator has not labelled after this one (item index, shown candidate id), in list order. */
  | { type: 'nextUnlabelled'; index: number; candidateId: string | null }
  | { type: 'command'; command: 'generate' | 'judge' | 'showCorrelation' | 'showAgreement' | 'setAnnotator' | 'toggleBlindMode' | 'toggleComparison' | 'showLabellingKeys' | 'planLabels' };
