/**
 * What the dialogue editor sends its webview, decided by one pure function ({@link decide}): from the editor's state
 * (which includes what the webview has been sent), the document and settings now, and what happened, the list of
 * messages and the next state. The choices it makes (issue 19 item 3):
 *
 * - the whole item list (`index`, then `navigator`) when the webview is ready, the settings change or the document
 *   changed in structure; only the rows of items whose lines were edited in place (`entries`) after a label;
 * - the selected item whole (`item` with `view`) when it is selected, or when what it is built from besides its
 *   candidates changed; otherwise only the candidates and score lines that changed, naming the full message they
 *   build on (`base`);
 * - the navigator (filter, order, progress, plan) after every index and change of the list settings, and after an
 *   edit in place only when it changed.
 *
 * No `vscode` import: the controller (controller.ts) applies the decision, and test/extension/editor/updates.test.ts
 * pins it down on documents built in memory.
 */
import { labelStatus, rubricStatus } from '../../core/labels/annotate';
import { isLabelledBy, type LabelScope } from '../../core/navigation/itemNavigation';
import { MI_RUBRIC } from '../../core/rubric/presets';
import type { Rubric } from '../../core/rubric/rubric';
import type { StudySetup } from './study';
import { annotatorView, type ItemView } from '../../core/labels/annotatorView';
import { documentItems, type DialogueDocument } from '../../core/format/jsonl';
import { itemIndexOfLine, sameEvaluators, sameOrigins, sameTitleInputs } from '../../core/format/lineUpdate';
import type { ProblemLine } from '../../core/format/lineReport';
import type { DialogueItem, Score } from '../../core/dialogue/types';
import { displayNames, evaluatorSignatures } from '../../core/evaluators/evaluatorNames';
import { evaluatorScale, summariseScores, type ScoreGroup } from '../../core/navigation/scoreSummary';
import { labelProgressAfter, type LabelProgress } from '../../core/navigation/itemNavigation';
import { itemDescription, itemTitleList, type ItemTitleParts } from '../../core/dialogue/itemTitle';
import type { EditorProtocol, ItemEntry, LabelProblemEntry } from '../../../webview/editor/protocol';
import type { ToWebviewParams, ToWebviewType } from '../../../webview/shared/messages';
import { candidateMarks, navigatorState, scopeOf, type EvaluatorInfo, type ListPlan, type ListSettings, type PlanState } from '../itemNavigator';

/** One message for the webview, before the channel numbers it. */
export type Outgoing = { [K in ToWebviewType<EditorProtocol>]: { type: K; params: ToWebviewParams<EditorProtocol, K> } }[ToWebviewType<EditorProtocol>];

/** The valid answers of the bundled judge requests, by request name (for the scales of judge scores). */
export type RequestSpecs = Record<string, { min: number; max: number; integer?: boolean }>;

/** Readable names and scales of a document's evaluators, for one version. */
export interface VersionedInfo extends EvaluatorInfo {
  version: number;
}

/** The index's entries and problem lines for one version and annotator. */
export interface IndexParts {
  version: number;
  annotator: string | null;
  /** The rubric the entries were counted under. */
  rubric: Rubric | null;
  doc: DialogueDocument;
  items: DialogueItem[];
  titles: ItemTitleParts[];
  lines: ProblemLine[];
  entries: ItemEntry[];
}

/** What the webview was last sent, as the decisions need it. */
export interface Sent {
  /** The index (or the entries after it): the parse, items and titles it was built from. */
  index?: { version: number; doc: DialogueDocument; items: DialogueItem[]; titles: ItemTitleParts[]; annotator: string | null; rubric: Rubric | null };
  /** The navigator: the items it was computed over, their origin groups, and the state as JSON. */
  navigator?: { items: readonly DialogueItem[]; origins: string[]; json: string };
  /**
   * The selected item, as JSON: its score lines by the id the view gives each candidate (`byCandidate`), each
   * candidate as shown (`cards`) and the rest of the view (`rest`); `key` says which item under which settings,
   * `stamp` is the number of the last full item message (what a partial one builds on). A label changes no score and
   * one candidate, so the item message after a key carries only that candidate and no score line, not the whole
   * item again (a study item with 26 candidates × 17 scores has ~140 KB of score lines).
   */
  item?: { key: string; stamp: number; byCandidate: Map<string, string>; rest: string; cards: Map<string, string> };
}

/** The dialogue editor's one state object. */
export interface EditorState {
  /** The selected item (file index). */
  selected: number;
  /** Whether it shows every annotator's labels. */
  comparison: boolean;
  /** The item list's filter and order (navigation, issue 18 item 3). */
  list: ListSettings;
  /** The file indices the item list shows, and the labelling progress, as last computed (for "next unlabelled" and the status bar). */
  listed: number[] | null;
  /** In plan order, the plan's candidates that need labels, in its order (what `U` follows first; the drawn ones are marked). */
  planned?: ListPlan;
  /** Candidates to go by the rule for `U` as last computed, and whether filters or search narrow them (the status bar). */
  toGo?: { count: number | null; filtered: boolean };
  progress: LabelProgress | null;
  /** Lines changed in place since the webview was last sent the document (`'all'`: a structural change). */
  changedSinceSent: Set<number> | 'all';
  /** The evaluators' names and scales, kept across edits that change no evaluator. */
  info?: VersionedInfo;
  /** The index built ahead, while the webview loads its page (see the controller's first timer). */
  prepared?: IndexParts;
  sent: Sent;
}

/** A fresh editor's state. */
export function initialState(): EditorState {
  return { selected: 0, comparison: false, list: { filter: {}, order: 'file' }, listed: null, progress: null, changedSinceSent: new Set(), sent: {} };
}

/** The document and the settings at the moment of a decision. */
export interface EditorNow {
  version: number;
  /** The document's cached parse. */
  doc: DialogueDocument;
  /** The file's name as the workspace shows it. */
  file: string;
  annotator: string | null;
  blind: boolean;
  /** Problem lines only the file's bytes show (while there are any, no edit is sent in place). */
  diskProblems: number;
  /** The problem lines now (text and bytes), for the banner and the diagnostics. */
  problems(): ProblemLine[];
  requestSpecs: RequestSpecs;
  /** The labelling plan's order and state line (labelPlan.ts). */
  plan(items: readonly DialogueItem[], blind: boolean, names: ReadonlyMap<string, string>): PlanState;
  /** The study's rubric (null when its file has problems) and, for a team packet, its manifest (study.ts). */
  setup: StudySetup;
  /** Problems of the study's labels in sidecar files, each with its file and line (issue 44 item 1). */
  labelProblems?(): LabelProblemEntry[];
}

/** The rubric and current dimension of a decision ("labelled" in the list, progress and filters). */
export function scopeNow(state: Pick<EditorState, 'list'>, now: Pick<EditorNow, 'setup'>): LabelScope | undefined {
  return scopeOf(now.setup.rubric, state.list);
}

/** What happened. */
export type EditorEvent =
  /** The webview (re)loaded, or the problem lines of the bytes changed: the whole list again. */
  | { kind: 'index' }
  /** The annotator, blind mode, comparison or the plan changed: the list and the selected item again. */
  | { kind: 'refresh' }
  /** The user selected an item: send it whole. */
  | { kind: 'select'; index: number }
  /** The document changed: `lines` changed in place, or (undefined) its structure. */
  | { kind: 'changed'; lines: readonly number[] | undefined }
  /** The list's filter or order changed. */
  | { kind: 'navigate'; list: ListSettings }
  /** Nothing to send yet: build the index ahead (while the webview loads). */
  | { kind: 'prepare' };

/** The messages to send, in order, and the state after them; `diagnostics`: the problem lines to show, when computed. */
export interface Decision {
  messages: Outgoing[];
  state: EditorState;
  diagnostics?: ProblemLine[];
}

/**
 * What to send the webview after `event`: a pure function of the state, the document now and the event.
 *
 * @param nextSeq - the number the message layer will give the first message (the next follow one by one): a full
 *   item message's number is what later partial ones name as their `base`
 */
export function decide(state: EditorState, now: EditorNow, event: EditorEvent, nextSeq: number): Decision {
  const d = new Decider(state, now, nextSeq);
  switch (event.kind) {
    case 'index':
      d.index();
      break;
    case 'refresh':
      d.refresh();
      break;
    case 'select':
      d.state.selected = event.index;
      d.item(event.index, true);
      break;
    case 'changed':
      d.changed(event.lines);
      break;
    case 'navigate': {
      d.state.list = event.list;
      d.navigator();
      // The candidates' marks are about the current dimension, the filters and search (dimmed), and the plan (drawn).
      d.item(d.state.selected);
      break;
    }
    case 'prepare':
      d.prepare();
      break;
  }
  return d.decision();
}

/** Readable names and scales of every evaluator of `items` (kept from `previous` while the version is the same). */
export function evaluatorInfoOf(items: readonly DialogueItem[], version: number, requests: RequestSpecs, previous?: VersionedInfo): VersionedInfo {
  if (previous && previous.version === version) return previous;
  const ids = [...new Set(items.flatMap((it) => it.candidates.flatMap((c) => Object.keys(c.scores))))];
  return { version, names: displayNames(ids, evaluatorSignatures(items)), scales: new Map(ids.map((id) => [id, evaluatorScale(id, requests)])) };
}

/**
 * One row of the item list: its candidates labelled by `annotator` in the rubric's primary dimension, and complete
 * (every question asked answered; the MI preset's rule as before rubrics).
 */
export function entryOf(item: DialogueItem, index: number, annotator: string | null, title: ItemTitleParts, rubric: Rubric | null = MI_RUBRIC): ItemEntry {
  const mine = annotator ? item.candidates.map((c) => c.annotations.find((a) => a.annotator === annotator)) : [];
  const mi = rubric === MI_RUBRIC;
  const primary: LabelScope | undefined = rubric && !mi ? { rubric, dimension: rubric.primary } : undefined;
  return {
    index,
    id: item.id,
    label: title.where,
    snippet: title.words,
    description: itemDescription(item),
    candidates: item.candidates.length,
    labelled: !rubric ? 0 : mi ? mine.filter((a) => typeof a?.coherent === 'boolean').length : annotator ? item.candidates.filter((c) => isLabelledBy(c, annotator, primary)).length : 0,
    complete: !rubric ? 0 : mine.filter((a) => (mi ? labelStatus(a) === 'complete' : rubricStatus(a, rubric).status === 'complete')).length,
  };
}

/** One decision in the making: the state is copied once and updated as messages are added. */
class Decider {
  readonly state: EditorState;
  private readonly messages: Outgoing[] = [];
  private diagnostics: ProblemLine[] | undefined;

  constructor(
    state: EditorState,
    private readonly now: EditorNow,
    private readonly firstSeq: number,
  ) {
    this.state = { ...state, sent: { ...state.sent } };
  }

  decision(): Decision {
    return { messages: this.messages, state: this.state, ...(this.diagnostics ? { diagnostics: this.diagnostics } : {}) };
  }

  /** Adds a message; returns the number it will go out as. */
  private send(msg: Outgoing): number {
    this.messages.push(msg);
    return this.firstSeq + this.messages.length - 1;
  }

  private info(items: readonly DialogueItem[]): VersionedInfo {
    this.state.info = evaluatorInfoOf(items, this.now.version, this.now.requestSpecs, this.state.info);
    return this.state.info;
  }

  /** Builds the index ahead for this version and annotator (the evaluators' names too). */
  prepare(): void {
    if (this.state.sent.index) return;
    this.info(documentItems(this.now.doc));
    this.state.prepared = this.indexParts();
  }

  /** The index's entries and problem lines for this version and annotator (the prepared ones when still current). */
  private indexParts(): IndexParts {
    const { doc, annotator, version } = this.now;
    const p = this.state.prepared;
    const rubric = this.now.setup.rubric;
    if (p && p.version === version && p.doc === doc && p.annotator === annotator && p.rubric === rubric) return p;
    const lines = this.now.problems();
    this.diagnostics = lines;
    const items = documentItems(doc);
    const titles = itemTitleList(items);
    return { version, annotator, rubric, doc, items, titles, lines, entries: items.map((it, i) => entryOf(it, i, annotator, titles[i], rubric)) };
  }

  /** The whole item list, then the navigator. */
  index(): void {
    const { doc, annotator, items, titles, lines, entries, version, rubric } = this.indexParts();
    // The diagnostics are set whenever the parts are built; prepared parts set them when prepared.
    this.state.prepared = undefined;
    this.state.sent.index = { version, doc, items, titles, annotator, rubric };
    this.state.changedSinceSent = new Set();
    this.send({
      type: 'index',
      params: {
        file: this.now.file,
        entries,
        problems: lines.map((l) => ({ line: l.editorLine, severity: l.severity, reasons: l.reasons })),
        annotator,
        blind: this.now.blind,
        comparison: this.state.comparison,
        rubric,
        preset: rubric === MI_RUBRIC,
        rubricProblems: this.now.setup.problems,
        labelProblems: this.now.labelProblems?.() ?? [],
        packet: this.now.setup.packet,
      },
    });
    this.navigator();
  }

  /** The index and the selected item again. */
  refresh(): void {
    this.index();
    this.item(this.state.selected);
  }

  /**
   * The item list's filter, order, progress and plan state. `known`: what the caller knows of the items (after an
   * edit in place); then the navigator is sent only when it changed.
   */
  navigator(known?: { origins?: string[]; progress?: LabelProgress }): void {
    const { doc, annotator, blind } = this.now;
    const sentIndex = this.state.sent.index;
    const items = sentIndex && sentIndex.doc === doc ? sentIndex.items : documentItems(doc);
    const { state, listed, planned } = navigatorState(items, this.state.list, { annotator, blind, info: this.info(items), plan: this.now.plan, known, scope: scopeNow(this.state, this.now) });
    this.state.listed = listed;
    this.state.planned = planned;
    this.state.toGo = { count: state.toGo, filtered: state.filtered };
    this.state.progress = state.progress;
    // After an edit in place the state is often what the webview has (a second key on the same candidate).
    const json = JSON.stringify(state);
    const same = known !== undefined && this.state.sent.navigator?.json === json;
    this.state.sent.navigator = { items, origins: state.origins, json };
    if (!same) this.send({ type: 'navigator', params: { state } });
  }

  /** The item at `index`: whole when `full` or when more than its candidates changed, else what changed. */
  item(index: number, full = false): void {
    const items = documentItems(this.now.doc);
    const item = items[index];
    if (!item) return;
    const { annotator, blind } = this.now;
    const comparison = this.state.comparison;
    const view = annotatorView(item, { annotator, blind, comparison });
    const info = this.info(items);
    const marks = candidateMarks(item, view, { blind, annotator, info, scope: scopeNow(this.state, this.now), filter: this.state.list.filter, planned: this.state.planned });
    const scores = scoreGroupsOf(view, info);
    const key = JSON.stringify([index, item.id, annotator, blind, comparison, view.candidates.map((c) => c.id), this.now.setup.rubric?.name ?? null, this.state.list.dimension ?? null]);
    const byCandidate = new Map(view.candidates.map((c) => [c.id, JSON.stringify(scores[c.id] ?? [])]));
    // The webview renders score lines from `scores`; the view's own copy of every score is not sent.
    const slim = { ...view, candidates: view.candidates.map(({ scores: _scores, ...c }) => c) } as ItemView;
    // The view but its candidates (context, reference, modes), and each candidate as shown: sent again only when changed.
    const rest = JSON.stringify({ ...slim, candidates: null });
    const cards = new Map(slim.candidates.map((c) => [c.id, JSON.stringify(c)]));
    const sent = this.state.sent.item;
    if (full || !sent || sent.key !== key || sent.rest !== rest) {
      const stamp = this.send({ type: 'item', params: { index, view: slim, scores, marks } });
      this.state.sent.item = { key, stamp, byCandidate, rest, cards };
      return;
    }
    const changed: Record<string, ScoreGroup[]> = {};
    for (const [id, json] of byCandidate) if (sent.byCandidate.get(id) !== json) changed[id] = scores[id] ?? [];
    const candidates = slim.candidates.filter((c) => sent.cards.get(c.id) !== cards.get(c.id));
    this.state.sent.item = { ...sent, byCandidate, cards };
    this.send({ type: 'item', params: { index, candidates, scores: changed, base: sent.stamp, marks } });
  }

  /**
   * After a change of the document: when only item lines changed in place (their items still at the same index
   * with the same id, no problem line touched), just those rows, the navigator if it changed, and the selected item
   * if it is one of them; otherwise the whole index and the selected item (issue 19 item 3).
   */
  changed(lines: readonly number[] | undefined): void {
    const pending = this.state.changedSinceSent;
    if (!lines) this.state.changedSinceSent = 'all';
    else if (pending !== 'all') this.state.changedSinceSent = new Set([...pending, ...lines]);
    const all = this.state.changedSinceSent;
    this.state.changedSinceSent = new Set();
    if (!(all instanceof Set) || !this.inPlace(all)) this.refresh();
  }

  private inPlace(lines: Set<number>): boolean {
    const sent = this.state.sent.index;
    const { doc, annotator } = this.now;
    if (!sent || sent.annotator !== annotator || sent.rubric !== this.now.setup.rubric || this.now.diskProblems > 0) return false;
    // Same arrays: the incremental parse kept every item at its line and found no new problem (lineUpdate.ts).
    if (doc.itemLines !== sent.doc.itemLines || doc.problems !== sent.doc.problems) return false;
    const indices: number[] = [];
    for (const line of lines) {
      const i = itemIndexOfLine(doc.itemLines, line);
      if (i < 0) return false;
      indices.push(i);
    }
    const previousItems = sent.items;
    const items = sent.items.slice();
    const before: DialogueItem[] = [];
    const after: DialogueItem[] = [];
    const changed: number[] = [];
    for (const i of indices) {
      const item = (doc.lines[doc.itemLines[i]] as { item: DialogueItem }).item;
      if (item === items[i]) continue;
      if (!sameTitleInputs(items[i], item)) return false;
      before.push(items[i]);
      after.push(item);
      changed.push(i);
      items[i] = item;
    }
    // The evaluators' names and scales carry over to this version when no evaluator came or went.
    const info = this.state.info;
    if (info && info.version === sent.version && before.every((b, k) => sameEvaluators(b, after[k]))) this.state.info = { ...info, version: this.now.version };
    this.state.sent.index = { ...sent, version: this.now.version, doc, items };
    if (changed.length) this.send({ type: 'entries', params: { entries: changed.map((i) => entryOf(items[i], i, sent.annotator, sent.titles[i], sent.rubric)) } });
    const known: { origins?: string[]; progress?: LabelProgress } = {};
    const nav = this.state.sent.navigator;
    if (nav && nav.items === previousItems) {
      if (before.every((b, k) => sameOrigins(b, after[k]))) known.origins = nav.origins;
      if (this.state.progress) known.progress = labelProgressAfter(this.state.progress, before, after, sent.annotator, scopeNow(this.state, this.now));
    }
    this.navigator(known);
    if (changed.includes(this.state.selected)) this.item(this.state.selected);
    return true;
  }
}

/** The candidates' scores as readable groups, by the id the view shows each candidate under. */
function scoreGroupsOf(view: { candidates: { id: string; scores?: Record<string, Score> }[] }, info: EvaluatorInfo): Record<string, ScoreGroup[]> {
  const out: Record<string, ScoreGroup[]> = {};
  for (const c of view.candidates) if (c.scores && Object.keys(c.scores).length) out[c.id] = summariseScores(c.scores, info.names, info.scales);
  return out;
}

