/**
 * The typed message protocol between the extension host and the dialogue editor webview, on the shared message layer
 * (webview/shared/messages.ts: numbered envelopes, requests answered by an `ack`, the host's `done` watermark). Both
 * sides compile against these definitions; nothing else crosses the boundary.
 */
import type { Protocol, RequestShape } from '../shared/messages';
import type { LabelOp } from '../../src/core/labels/annotate';
import type { CandidateView, ItemView } from '../../src/core/labels/annotatorView';
import type { ScoreGroup } from '../../src/core/navigation/scoreSummary';
import type { EditorAction } from '../../src/core/labels/labelKeys';
import type { ItemFilter, LabelProgress } from '../../src/core/navigation/itemNavigation';
import type { Rubric } from '../../src/core/rubric/rubric';
import type { RubricProblem } from '../../src/core/rubric/rubricFile';
import type { ResponseList } from '../../src/core/navigation/responseList';

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
  /** Labelled in the current dimension / total, for the viewing annotator and every annotator; the viewing annotator's progress per dimension. */
  progress: LabelProgress;
  /** The current dimension: what "labelled", the labelled filter, "next unlabelled" and the progress count (the rubric's primary by default). */
  dimension: string;
  /** The rubric's dimensions to choose the current one from. */
  dimensions: { name: string; title: string }[];
  /** The plan's state line (with `order: 'plan'`), or why there is none. */
  plan: { text: string; title: string } | { error: string } | null;
  /** Candidates to go by the rule for `U` (the filters and search, the current dimension); null without an annotator. */
  toGo: number | null;
  /** Whether filters or search are active (candidates that do not match are dimmed; `toGo` counts the matching ones). */
  filtered: boolean;
  /** In plan order: the plan's drawn candidates waiting for labels (null: not following a plan). */
  drawn: number | null;
}

/** Why a candidate is marked in the list of candidates (hover text), from the same rules as the filters. */
export interface CandidateMarks {
  /** e.g. `coherent: Expert-1, Lay-1 · incoherent: Lay-2`. */
  annotatorsDisagree?: string;
  /** Each disagreeing judge (absent in blind mode). */
  judgeHumansDisagree?: string;
  /** The candidate does not match the active filters or search (dimmed; `U` skips it). */
  unmatched?: string;
  /** The plan drew it: label it (plan order only). */
  drawn?: string;
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
  /** Candidates the current annotator has labelled in the rubric's primary dimension (MI: coherent yes/no). */
  labelled: number;
  /** Candidates whose label by the current annotator is complete: every question asked answered (MI: empathy given, or errors and MEE). */
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
 * webview's last {@link FocusState} is settled and reports every message that can move focus the host sent
 * ({@link MOVES_FOCUS}, and the answer to a `nextUnlabelled` request, which the host counts from the moment the
 * request arrives). A key that arrives while such a message is on its way waits in the host for the report that
 * follows it (src/extension/editor/keyRoute.ts). Otherwise the key goes to the webview as an `action` and comes back
 * as a `label` request, in order after the messages that move focus. A click or Tab in the webview posts its focus
 * state in the event that moves focus, before a key typed next is forwarded to VS Code's keybinding service; the
 * end-to-end test checks that such a key labels the candidate just clicked (test/e2e/labelling.e2e.test.ts).
 */
export interface FocusState {
  /** The number (`seq`) of the last host message that can move focus the webview has handled. */
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
  /** The focused card's active question (a rubric dimension): what clear clears (keys the rubric does not declare go to the webview). */
  question?: string | null;
}

/** A team packet open in the editor (issue 44 item 2; read from its manifest beside it, src/extension/editor/study.ts). */
export interface PacketInfo {
  /** The annotator the packet was written for: the editor labels as them, and no one else. */
  annotator: string;
  /** Candidates assigned to them in this packet. */
  assigned: number;
  /** The study the packet was cut from (its file name). */
  study: string;
  /** The manifest's file name. */
  manifest: string;
  blind: boolean;
}

/** The file's item list and what the editor shows it as (sent when the webview is ready, and after a structural change). */
export interface IndexView {
  file: string;
  entries: ItemEntry[];
  problems: ProblemEntry[];
  annotator: string | null;
  blind: boolean;
  comparison: boolean;
  /** The rubric labels follow (the study's, or the MI preset); null when its file has problems: no labelling then. */
  rubric: Rubric | null;
  /** The rubric is the MI preset (no rubric file): the editor shows the coherence, error and empathy questions as before rubrics. */
  preset: boolean;
  /** Why the rubric file (or a packet's manifest) cannot be used: file, line, field and message of each problem. */
  rubricProblems: RubricProblem[];
  /** Set when the file is a team packet: the annotator is the packet's, blind mode is on. */
  packet: PacketInfo | null;
  /** Lines of the study's label sidecars that are left out, and why (file, line, field, message; issue 44 item 1). */
  labelProblems?: LabelProblemEntry[];
}

/** A problem of a label in a sidecar file (`study.labels/E1.jsonl`), as the editor's banner lists it. */
export interface LabelProblemEntry {
  file: string;
  line: number;
  field?: string;
  message: string;
}

/**
 * The selected item as the annotator sees it: the whole view, or (with `base`) only what changed since the full
 * item message numbered `base`. The webview shows its own label requests, and the host's announced labels, on top
 * until the message's `done` covers them.
 */
export interface ItemMessage {
  index: number;
  /** The whole view; absent with `base` (see `candidates`). */
  view?: ItemView;
  /**
   * With `base`, instead of `view`: only the candidates (as the view shows them, in any order) that changed since
   * the full item message `base` and the partial ones after it; the context, the reference and the order of the
   * candidates have not changed (issue 19 item 3: after a label key, one candidate, not the item).
   */
  candidates?: CandidateView[];
  /**
   * Each shown candidate's scores (by the id the view gives it) as readable, grouped lines, named over every
   * evaluator of the file so names match the correlation tables. Empty in blind mode. With `base`: only the
   * candidates whose lines changed; the others keep theirs.
   */
  scores: Record<string, ScoreGroup[]>;
  /**
   * The number (`seq`) of the full item message this one builds on. A webview that does not hold that message asks
   * for the item again (`select`).
   */
  base?: number;
  /** Disagreement marks by the id the view gives each candidate (only candidates with a mark). */
  marks?: Record<string, CandidateMarks>;
}

/** Where "next unlabelled" goes: the item and the candidate (shown id) to reveal, or a message for the hint line. */
export type NextUnlabelled = { index: number; candidateId: string } | { notice: string };

/** The commands the editor's toolbar and bars run. */
export type EditorCommand = 'generate' | 'judge' | 'showCorrelation' | 'showAgreement' | 'setAnnotator' | 'toggleBlindMode' | 'toggleComparison' | 'showLabellingKeys' | 'planLabels';

export interface EditorProtocol extends Protocol {
  toWebview: {
    index: IndexView;
    /**
     * Rows of the item list that changed since the last `index` or `entries` (the items' lines were edited in
     * place: a label, an undo of one), each replacing the row of the same `index`. Sent instead of a whole `index`
     * so a key press in a 5,000-item file costs one row (issue 19 item 3); items added, removed or moved send an
     * `index`.
     */
    entries: { entries: ItemEntry[] };
    navigator: { state: NavigatorState };
    /** A short message for the hint line. */
    notice: { text: string };
    /**
     * Whether VS Code now sends the labelling keys to this editor: the focus context key of their keybindings
     * (`reflectEval.dialogueEditorFocus`) is set. It follows the webview's `focus` message after a round trip through
     * the extension host, so a key typed the moment focus enters the webview can arrive before it and is then not
     * seen by the extension; the legend shows the keys as live only once this says so.
     */
    keys: { live: boolean };
    item: ItemMessage;
    /** A labelling key was pressed (a VS Code command ran) and the host leaves it to the webview: act on the focused candidate. */
    action: { action: EditorAction };
    /**
     * A labelling key the host applies itself (a host operation: `done.host` reaches this message's number once
     * applied) to the candidate the webview reported focused: shown at once, like the webview's own label requests.
     */
    labelled: { itemId: string; candidateId: string; op: LabelOp };
    /** Show this item with this candidate focused (drill-down from a panel). */
    reveal: { index: number; candidateId: string | null };
    /**
     * Open a response list (issue 41 item 4: a correlation cell's or plot point's responses): a banner says what it
     * is, J/K move through it across items, Escape leaves it and returns to the item and candidate the user was on.
     * Its response at `start` is shown and focused at once (this message moves focus).
     */
    responseList: { list: ResponseList };
    /** Unsaved labels that need the user's pick after a merge with the file on disk (empty: none). */
    conflicts: { conflicts: ConflictEntry[] };
  };
  toHost: {
    /** The page is loaded (and after a reload): send the index. */
    ready: Record<string, never>;
    /** The user selected an item: send it whole. */
    select: { index: number };
    /** Posted whenever it changes (deduplicated): which candidate a key would label now. */
    focusState: FocusState;
    /** The webview gained or lost keyboard focus (drives the `reflectEval.dialogueEditorFocus` context key). */
    focus: { focused: boolean };
    /** Show this 1-based line of the file in a text editor (a problem line the banner lists). */
    revealLine: { line: number };
    /** The user's pick for a {@link ConflictEntry}: keep the unsaved label, or the file's. */
    resolveConflict: { id: number; choice: 'mine' | 'disk' };
    /** The item list's filter and order, or the current dimension, changed. */
    navigate: { filter: ItemFilter; order: ListOrder; dimension?: string };
    command: { command: EditorCommand };
  };
  requests: {
    /** One change to the current annotator's label; applied in the order sent, each one undo step. */
    label: RequestShape<{ itemId: string; candidateId: string; op: LabelOp }, undefined>;
    /**
     * Go to the next candidate after this one (item index, shown candidate id), in list order, that passes the
     * filters and search and that the annotator has not labelled in the current dimension, after the label requests
     * sent before it (issue 41 item 3's rule for `U`). The answer moves focus.
     */
    nextUnlabelled: RequestShape<{ index: number; candidateId: string | null }, NextUnlabelled>;
    /** F3 / Enter in the search field (`back`: Shift+F3): the next candidate in list order that matches the filters and search. The answer moves focus. */
    nextMatch: RequestShape<{ index: number; candidateId: string | null; back: boolean }, NextUnlabelled>;
  };
}

/** The host messages that can move the webview's focus (besides the answer to `nextUnlabelled`). */
export const MOVES_FOCUS: readonly (keyof EditorProtocol['toWebview'])[] = ['index', 'action', 'reveal', 'responseList'];
