/**
 * The dialogue editor webview's state, in one object (issue 38 item 2; it was twenty module variables of main.ts),
 * and the rules that change it without touching the page: which label operations are still shown on top of what
 * the host last sent, how a partial item message merges into the full one it builds on, when a key can act, and
 * what the host is told about focus. main.ts renders from it; test/webview/editor/store.test.ts pins the rules down.
 */
import { applyLabelOpToAnnotation, type LabelOp } from '../../src/core/labels/annotate';
import type { ItemView } from '../../src/core/labels/annotatorView';
import type { ScoreGroup } from '../../src/core/navigation/scoreSummary';
import type { EditorAction } from '../../src/core/labels/labelKeys';
import type { Rubric } from '../../src/core/rubric/rubric';
import type { Done } from '../shared/messages';
import type { CandidateMarks, FocusState, ItemEntry, ItemMessage, PacketInfo, ProblemEntry } from './protocol';
import { responseListBanner, responsePosition, stepResponse, type ResponseList, type ResponseListEntry } from '../../src/core/navigation/responseList';

/** A label operation shown before the host has applied it: the webview's own `label` request, or one the host announced (`labelled`). */
export interface PendingOp {
  /** Who numbered it: the webview (its request's number) or the host (its announcement's number). */
  side: keyof Done;
  seq: number;
  itemId: string;
  candidateId: string;
  op: LabelOp;
}

/** The selected item as the host last sent it, and the number of the full item message it was built from. */
export interface CurrentItem {
  index: number;
  view: ItemView;
  scores: Record<string, ScoreGroup[]>;
  /** The full item message's number (what a partial one names as its `base`). */
  base: number;
  marks?: Record<string, CandidateMarks>;
}

/** What the page keeps across reloads (VS Code's webview state). */
export interface SavedState {
  selected?: number;
  /**
   * The focused candidate (its id in the view): when the page is loaded again — VS Code drops a hidden editor's page,
   * e.g. while a preview tab covers it — focus returns to it, not to the item's first unlabelled candidate.
   */
  focused?: string | null;
  /** The response list open when the page was dropped (it stays open). */
  responses?: OpenResponses | null;
  /** Score groups collapsed by the researcher. */
  collapsedScores?: string[];
}

/** A response list being walked (issue 41 item 4): the list, the position shown last, and where Escape returns. */
export interface OpenResponses {
  list: ResponseList;
  /** The position shown last (J/K go on from it when the user focused a candidate outside the list meanwhile). */
  last: number;
  /** The item and candidate the user was on when the list opened. */
  returnTo: { index: number; candidateId: string | null };
}

export interface EditorStore {
  entries: ItemEntry[];
  problems: ProblemEntry[];
  annotator: string | null;
  blind: boolean;
  comparison: boolean;
  /** The rubric labels follow (null: its file has problems, no labelling); `preset`: the MI preset, shown as before rubrics. */
  rubric: Rubric | null;
  preset: boolean;
  /** Set when the file is a team packet. */
  packet: PacketInfo | null;
  /** The focused card's active question (a rubric dimension; keys a rubric does not declare act on it). */
  question: string | null;
  /** The candidate the active question was chosen for (a new card starts on its first open question). */
  questionOf: string | null;
  /** Open this text or number box of the focused card after the next render (Enter, or a digit that starts a number). */
  editAfterRender: { candidateId: string; dimension: string; initial?: string } | null;
  selected: number;
  /** An index has arrived. */
  indexed: boolean;
  current: CurrentItem | null;
  pending: PendingOp[];
  /** The number of the last host message that can move focus handled (protocol.ts, `FocusState`). */
  lastMove: number;
  /** The number of the answer to a "next unlabelled" request being handled (it moves focus; counted once handled). */
  answeredMove: number;
  /** The focused candidate (keys act on it). */
  focused: string | null;
  /** Where focus goes when the next item arrives. */
  focusOnArrival: 'first' | 'last' | 'firstIncomplete';
  /** Focus this candidate when its item arrives (drill-down from a panel). */
  revealCandidate: string | null;
  /** Focus the Other text field of this candidate after the next render. */
  focusOtherOf: string | null;
  /**
   * Actions that arrived while the selected item was on its way, or while the answer to a "next unlabelled" request
   * was; they run, in order, once it is shown (so a key typed right after U labels the candidate U goes to).
   */
  deferred: EditorAction[];
  /** The focus state last posted, as JSON (posted again only when it changes). */
  lastFocusState: string;
  /** Score groups the researcher collapsed (metrics, judges, other): kept for every candidate and item. */
  collapsedGroups: Set<string>;
  /** The response list open (J/K move through it, Escape returns), or null. */
  responses: OpenResponses | null;
}

/** A page's state as it starts (from what VS Code kept of it). */
export function createStore(saved: SavedState = {}): EditorStore {
  return {
    entries: [],
    problems: [],
    annotator: null,
    blind: false,
    comparison: false,
    rubric: null,
    preset: true,
    packet: null,
    question: null,
    questionOf: null,
    editAfterRender: null,
    selected: saved.selected ?? 0,
    indexed: false,
    current: null,
    pending: [],
    lastMove: 0,
    answeredMove: 0,
    focused: null,
    focusOnArrival: 'firstIncomplete',
    // A page loaded again focuses the candidate it left (when its item is the one selected).
    revealCandidate: saved.focused ?? null,
    focusOtherOf: null,
    deferred: [],
    lastFocusState: '',
    collapsedGroups: new Set(saved.collapsedScores ?? []),
    responses: saved.responses ?? null,
  };
}

/** What the page saves of the store. */
export function savedState(s: EditorStore): SavedState {
  return { selected: s.selected, focused: s.focused, collapsedScores: [...s.collapsedGroups], responses: s.responses };
}

/** The selected item with the operations not yet applied by the host applied to the annotator's own labels. */
export function displayed(s: EditorStore, now = new Date()): ItemView | null {
  const current = s.current;
  if (!current) return null;
  const ops = s.pending.filter((p) => p.itemId === current.view.id);
  const annotator = s.annotator;
  if (ops.length === 0 || !annotator) return current.view;
  return {
    ...current.view,
    candidates: current.view.candidates.map((c) => {
      let mine = c.mine;
      for (const p of ops) {
        if (p.candidateId !== c.id) continue;
        // An operation the rubric refuses (it changed meanwhile) is the host's to report: shown as not applied.
        try {
          mine = s.rubric && !s.preset ? applyLabelOpToAnnotation(mine, annotator, p.op, now, s.rubric) : applyLabelOpToAnnotation(mine, annotator, p.op, now);
        } catch {
          /* the host reports it */
        }
      }
      return mine === c.mine ? c : { ...c, mine };
    }),
  };
}

/** Drops the operations the host has applied (`done`, stamped on its messages); true when any was dropped. */
export function acknowledge(s: EditorStore, done: Done): boolean {
  const before = s.pending.length;
  s.pending = s.pending.filter((p) => p.seq > done[p.side]);
  return s.pending.length !== before;
}

/**
 * Takes an item message (number `seq`) for the selected item: a full one as it is; a partial one merged into the
 * full one it builds on. `askAgain` when the page does not hold that one (select the item again); `ignored` when
 * the message is for an item no longer selected.
 */
export function takeItem(s: EditorStore, msg: ItemMessage, seq: number): 'shown' | 'askAgain' | 'ignored' {
  if (msg.index !== s.selected) return 'ignored';
  let scores = msg.scores ?? {};
  let base = seq;
  let view = msg.view;
  if (msg.base !== undefined) {
    const current = s.current;
    if (current?.index !== msg.index || current.base !== msg.base) return 'askAgain';
    scores = { ...current.scores, ...scores };
    base = msg.base;
    const changed = new Map((msg.candidates ?? []).map((c) => [c.id, c]));
    view = { ...current.view, candidates: current.view.candidates.map((c) => changed.get(c.id) ?? c) };
  }
  if (!view) return 'ignored';
  s.current = { index: msg.index, view, scores, base, marks: msg.marks };
  return 'shown';
}

/** Whether an action can run now: the selected item is shown and no "next unlabelled" answer is on its way. */
export function canAct(s: EditorStore, awaitingNext: number): boolean {
  return !!s.current && s.current.index === s.selected && awaitingNext === 0;
}

/** What the host is told about focus (protocol.ts, `FocusState`). */
export function focusStateOf(s: EditorStore, awaitingNext: number): FocusState {
  return {
    move: s.lastMove,
    index: s.current?.index ?? s.selected,
    itemId: s.current?.view.id ?? null,
    candidateId: s.focused,
    settled: canAct(s, awaitingNext) && s.deferred.length === 0 && s.focused !== null && !!displayed(s)?.candidates.some((c) => c.id === s.focused),
    // The active question matters to the host only outside the MI preset (whose keys are all declared).
    ...(!s.preset && s.question !== null ? { question: s.question } : {}),
  };
}

/** The focus state to post, or null when it is the one posted last. */
export function focusStateToPost(s: EditorStore, awaitingNext: number): FocusState | null {
  const state = focusStateOf(s, awaitingNext);
  const key = JSON.stringify(state);
  if (key === s.lastFocusState) return null;
  s.lastFocusState = key;
  return state;
}

/**
 * Opens a response list: returns the response to show first. Escape will return to where the user is now — or, when
 * a list is already open (a second cell clicked), to where they were before the first.
 */
export function openResponses(s: EditorStore, list: ResponseList): ResponseListEntry {
  const start = Math.min(Math.max(0, list.start), list.entries.length - 1);
  const returnTo = s.responses?.returnTo ?? { index: s.current?.index ?? s.selected, candidateId: s.focused };
  s.responses = { list, last: start, returnTo };
  return list.entries[start];
}

/**
 * J (+1) or K (−1) while a response list is open: the response to show next, `'end'` past either end of the list,
 * null when no list is open (J/K then move between candidates as usual).
 */
export function moveInResponses(s: EditorStore, delta: 1 | -1): ResponseListEntry | 'end' | null {
  const open = s.responses;
  if (!open) return null;
  const at = responsePosition(open.list, s.current?.index ?? s.selected, s.focused);
  const next = stepResponse(open.list.entries.length, at, open.last, delta);
  if (next === null) return 'end';
  open.last = next;
  return open.list.entries[next];
}

/** Escape: closes the response list; returns where to go back to (null when none was open). */
export function leaveResponses(s: EditorStore): { index: number; candidateId: string | null } | null {
  const open = s.responses;
  if (!open) return null;
  s.responses = null;
  return open.returnTo;
}

/** The banner's line for the open response list (null: none open), at the focused response when it is in the list. */
export function responsesBanner(s: EditorStore): string | null {
  const open = s.responses;
  if (!open) return null;
  // While a response is on its way (its item not shown yet, or its candidate not focused yet), the banner names it,
  // not the candidate still on screen.
  if (s.revealCandidate !== null || s.current?.index !== s.selected) return responseListBanner(open.list, open.last, s.blind);
  const at = responsePosition(open.list, s.selected, s.focused);
  if (at >= 0) open.last = at;
  return responseListBanner(open.list, at, s.blind);
}
