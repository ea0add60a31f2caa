/**
 * The dialogue editor's controller: one per open editor, between its document model (dialogueDocument.ts) and its
 * webview (the message channel, webviewChannel.ts, on webview/editor/protocol.ts). It keeps the editor's one state
 * object ({@link EditorState}), turns what happens — the webview's messages, a change of the document, a labelling
 * key, a setting — into an event for the pure decision of what to send ({@link decide}, updates.ts), sends it, and
 * applies label operations to the document one at a time in the order they came (the webview's `label` requests and
 * the keys the host applies itself, keyRoute.ts). No `vscode` import: what it needs of VS Code (settings, commands,
 * diagnostics, the provider's selection and focus) comes through {@link EditorHost}, so the controller is
 * unit-tested with a document built in memory (test/extension/editor/controller.test.ts).
 */
import { applyLabelOp, type LabelOp } from '../../core/labels/annotate';
import { declaredKeys, isDeclaredKey, keyActionOf, resolveKey } from '../../core/labels/labelKeys';
import type { Rubric } from '../../core/rubric/rubric';
import { candidateIdOfView } from '../../core/labels/annotatorView';
import { documentItems, type DialogueDocument } from '../../core/format/jsonl';
import type { ProblemLine } from '../../core/format/lineReport';
import type { DialogueItem } from '../../core/dialogue/types';
import type { EditorAction, LabelAction } from '../../core/labels/labelKeys';
import type { LabelProgress } from '../../core/navigation/itemNavigation';
import type { ConflictEntry, EditorCommand, EditorProtocol, NextUnlabelled } from '../../../webview/editor/protocol';
import type { HostChannel } from '../webviewChannel';
import { nextMatchTarget, nextUnlabelledTarget, type PlanState } from '../itemNavigator';
import { KeyRoute, type KeyTarget } from './keyRoute';
import { decide, initialState, scopeNow, type EditorEvent, type EditorNow, type EditorState, type RequestSpecs } from './updates';
import type { StudySetup } from './study';
import type { ResponseList } from '../../core/navigation/responseList';

/** The document model as the controller uses it (`DialogueFileDocument`). */
export interface EditorDocument {
  readonly version: number;
  readonly isClosed: boolean;
  readonly isDirty: boolean;
  /** The file's name as the workspace shows it. */
  readonly name: string;
  /** Problem lines only the file's bytes show. */
  readonly diskProblemCount: number;
  parse(): DialogueDocument;
  /** Replaces items as one undoable edit; returns the lines changed; throws when a line is not where expected. */
  updateItems(update: (item: DialogueItem) => DialogueItem | undefined, label?: string): number;
  problemLines(): ProblemLine[];
  /** Problems of the study's labels in sidecar files (file, line, field, message). */
  labelProblems?(): { file: string; line: number; field?: string; message: string }[];
  /** Reads the file's bytes for problem lines the text cannot show; true when there were or are any. */
  readDiskProblems(): Promise<boolean>;
  conflicts(): ConflictEntry[];
  resolveConflict(id: number, choice: 'mine' | 'disk'): Promise<void>;
}

/** What the controller asks of VS Code (the provider, dialogueEditor.ts, implements it). */
export interface EditorHost {
  /** Who labels, and whether blind mode is on (`reflectEval.annotator`, `reflectEval.blindMode`; a team packet's annotator, always blind). */
  settings(): { annotator: string | null; blind: boolean };
  /** The study's rubric and, for a team packet, its manifest, as last read beside the file (study.ts). */
  setup(): StudySetup;
  /** The bundled judge requests' answer ranges (read once). */
  requestSpecs(): RequestSpecs;
  /** The labelling plan's order and state line for the document's items (labelPlan.ts). */
  plan(items: readonly DialogueItem[], blind: boolean, names: ReadonlyMap<string, string>): PlanState;
  /** Shows the document's problem lines in the Problems panel. */
  setDiagnostics(lines: ProblemLine[]): void;
  showError(message: string): void;
  /** Runs a ReflectEval command (`reflectEval.<command>`). */
  runCommand(command: EditorCommand): Promise<unknown>;
  /** Makes this editor's document the one commands act on. */
  activate(): void;
  /** The webview (re)loaded: it has not been told whether the keys are live. */
  webviewReady(): void;
  /** Shows a 1-based line of the file in a text editor. */
  revealLine(line: number): Promise<void>;
  /** The selected item (and candidate, by its id in the file) changed. */
  selected(itemIndex: number, candidateId: string | null): void;
  /** The webview gained or lost keyboard focus. */
  focused(focused: boolean): void;
  /** The labelling progress was computed again (the status bar). */
  progress(progress: LabelProgress | null): void;
  /** A step of a label's path, for `bench -- editor` (labelTrace.ts). */
  trace(step: 'command' | 'held' | 'forwarded' | 'received' | 'edit' | 'changed' | 'handled' | 'ack'): void;
}

/** Timers, so tests can run the controller's delayed steps at once. */
export interface Timers {
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

/**
 * How long after the editor opens the index is built ahead (ms): after VS Code's round trips that create the webview,
 * which wait for the extension host, and well inside the ~1 s the webview then takes to load its page
 * (docs/scale.md; the merge's base is parsed at the same moment, externalChanges.ts).
 */
export const PREPARE_DELAY_MS = 250;

export class EditorController {
  /** The editor's one state object (updates.ts). */
  state: EditorState = initialState();
  private readonly route: KeyRoute;
  /** The focused candidate last reported to the provider's selection. */
  private lastFocus: { index: number; candidateId: string } | undefined;
  private prepareTimer: unknown;
  private disposed = false;

  constructor(
    private readonly document: EditorDocument,
    private readonly host: EditorHost,
    private readonly channel: HostChannel<EditorProtocol>,
    private readonly timers: Timers = { setTimeout: (fn, ms) => setTimeout(fn, ms), clearTimeout: (h) => clearTimeout(h as ReturnType<typeof setTimeout>) },
  ) {
    this.route = new KeyRoute({
      apply: (action, at) => this.channel.ordered((announce) => this.applyKey(action, at, announce)),
      forward: (action) => {
        this.host.trace('forwarded');
        return this.channel.notify('action', { action });
      },
      decidable: (action) => this.decidable(action),
    });
    channel
      .on('ready', () => {
        this.host.webviewReady();
        this.update({ kind: 'index' });
        this.channel.notify('conflicts', { conflicts: this.document.conflicts() });
      })
      .on('select', (m) => {
        this.update({ kind: 'select', index: m.index });
        this.host.selected(m.index, null);
      })
      .on('focusState', (m) => {
        this.route.report(m);
        const { index, itemId, candidateId } = m;
        if (itemId === null || candidateId === null || (index === this.lastFocus?.index && candidateId === this.lastFocus.candidateId)) return;
        this.lastFocus = { index, candidateId };
        const item = documentItems(this.document.parse())[index];
        this.host.selected(index, item ? (candidateIdOfView(item, candidateId, this.host.settings().annotator ?? '') ?? candidateId) : candidateId);
      })
      .on('focus', (m) => this.host.focused(m.focused))
      .on('revealLine', (m) => this.host.revealLine(m.line))
      .on('resolveConflict', (m) => this.document.resolveConflict(m.id, m.choice))
      .on('navigate', (m) => this.update({ kind: 'navigate', list: { filter: m.filter, order: m.order, ...(m.dimension ? { dimension: m.dimension } : {}) } }))
      .on('command', (m) => {
        this.host.activate();
        return this.host.runCommand(m.command);
      })
      .handle('label', (m) => this.applyLabel(m.itemId, m.candidateId, m.op), { ordered: true, arrived: () => this.host.trace('received'), answered: () => this.host.trace('ack') })
      // After the label requests sent before it, so a label just made counts; its answer moves focus, so keys wait
      // for it from the moment it arrives (keyRoute.ts).
      .handle('nextUnlabelled', (m) => this.nextUnlabelled(m.index, m.candidateId), { ordered: true, arrived: () => this.route.owe(), answered: (seq) => this.route.paid(seq) })
      .handle('nextMatch', (m) => this.nextMatch(m.index, m.candidateId, m.back), { ordered: true, arrived: () => this.route.owe(), answered: (seq) => this.route.paid(seq) });
  }

  /**
   * Starts the editor's delayed work: while the webview loads its page (~1 s), after VS Code has created it, the
   * parse, the evaluators' names and the index's entries, then the file's bytes (issue 19 item 3).
   */
  start(): void {
    this.prepareTimer = this.timers.setTimeout(() => {
      if (this.document.isClosed || this.disposed) return;
      this.update({ kind: 'prepare' });
      void this.readDisk(false);
    }, PREPARE_DELAY_MS);
  }

  /** The document changed (`lines`: changed in place; undefined: in structure). */
  documentChanged(lines: readonly number[] | undefined): void {
    this.host.trace('changed');
    this.update({ kind: 'changed', lines });
    this.host.trace('handled');
    // Not dirty after a change: reloaded from disk (an external edit) or back at the saved text; read the bytes again.
    if (!this.document.isDirty) void this.readDisk(true);
  }

  /** The document was saved: what its bytes say now. */
  saved(): void {
    void this.document.readDiskProblems().then(() => this.update({ kind: 'index' }));
  }

  /** The annotator, blind mode or plan target changed: the list and the selected item again. */
  refresh(): void {
    this.update({ kind: 'refresh' });
  }

  /** The rubric or packet manifest beside the file changed (or became readable, or broken): everything again. */
  setupChanged(): void {
    this.refresh();
  }

  /** Shows or hides every annotator's labels. */
  toggleComparison(): void {
    this.state = { ...this.state, comparison: !this.state.comparison };
    this.refresh();
  }

  /** Switches the item list to plan order (after "Plan Labels…"). */
  showPlan(): void {
    this.state = { ...this.state, list: { ...this.state.list, order: 'plan' } };
    this.refresh();
  }

  /** A labelling key (a `reflectEval.label.*` command): applied in the host when it knows the focused candidate, else in the webview. */
  key(action: EditorAction): void {
    const holding = this.route.holding;
    this.route.key(action);
    if (this.route.holding > holding) this.host.trace('held');
  }

  /** Shows an item with a candidate focused (a drill-down from a panel). */
  reveal(index: number, candidateId: string | null): void {
    this.route.moved(this.channel.notify('reveal', { index, candidateId }));
  }

  /**
   * Opens a response list (a correlation cell's responses, issue 41 item 4): the webview shows its banner and its
   * response at `list.start` focused; J/K then move through it and Escape returns (webview/editor/main.ts).
   */
  showResponses(list: ResponseList): void {
    if (list.entries.length === 0) return;
    this.route.moved(this.channel.notify('responseList', { list }));
  }

  /** Tells the webview whether VS Code sends it the labelling keys now. */
  keysLive(live: boolean): void {
    this.channel.notify('keys', { live });
  }

  /** The unsaved labels a merge with the file on disk could not settle changed. */
  conflictsChanged(conflicts: ConflictEntry[]): void {
    this.channel.notify('conflicts', { conflicts });
  }

  /** The labelling progress last computed (the status bar). */
  get progress(): LabelProgress | null {
    return this.state.progress;
  }

  dispose(): void {
    this.disposed = true;
    this.timers.clearTimeout(this.prepareTimer);
    this.route.dispose();
  }

  /** The document and settings now, for a decision. */
  private now(): EditorNow {
    const { annotator, blind } = this.host.settings();
    return {
      version: this.document.version,
      doc: this.document.parse(),
      file: this.document.name,
      annotator,
      blind,
      diskProblems: this.document.diskProblemCount,
      problems: () => this.document.problemLines(),
      requestSpecs: this.host.requestSpecs(),
      plan: (items, b, names) => this.host.plan(items, b, names),
      setup: this.host.setup(),
      labelProblems: () => this.document.labelProblems?.() ?? [],
    };
  }

  /**
   * The rubric labels follow, or null after telling the user why there is none (its file has problems: labelling
   * is refused rather than guessed).
   */
  private rubric(): Rubric | null {
    const setup = this.host.setup();
    if (setup.rubric) return setup.rubric;
    const p = setup.problems[0];
    this.channel.notify('notice', { text: p ? `Not labelled: ${p.file}:${p.line}: ${p.field}: ${p.message}${setup.problems.length > 1 ? ` (and ${setup.problems.length - 1} more)` : ''}` : 'Not labelled: the rubric cannot be read.' });
    return null;
  }

  /**
   * Whether the host decides a label key from the document (keyRoute.ts): a key the rubric declares (but one that
   * only opens a text box), or clear; the others act on the card's active question, which the webview keeps.
   */
  private decidable(action: LabelAction): boolean {
    const rubric = this.host.setup().rubric;
    if (!rubric) return true;
    const key = keyActionOf(action);
    if (key.kind === 'clear') return true;
    if (!isDeclaredKey(rubric, key)) return false;
    return key.kind === 'mark' || rubric.dimensions.some((d) => d.type !== 'text' && declaredKeys(d).some((k) => k.key === key.key));
  }

  /** Decides what to send for `event`, sends it, and takes the state after it. */
  private update(event: EditorEvent): void {
    const progress = this.state.progress;
    const d = decide(this.state, this.now(), event, this.channel.lastSeq + 1);
    this.state = d.state;
    if (d.diagnostics) this.host.setDiagnostics(d.diagnostics);
    for (const m of d.messages) {
      const seq = this.channel.notify(m.type, m.params as never);
      if (m.type === 'index') this.route.moved(seq);
    }
    if (this.state.progress !== progress) this.host.progress(this.state.progress);
  }

  /** Reads the file's bytes; sends the index again when they show problem lines the text cannot (or showed some). */
  private async readDisk(always: boolean): Promise<void> {
    const found = await this.document.readDiskProblems();
    if (!found || this.disposed) return;
    // The index built ahead does not have them.
    this.state = { ...this.state, prepared: undefined };
    if (always || this.state.sent.index) this.update({ kind: 'index' });
  }

  /** One label request of the webview: applied to the document; a failure is shown (and the request still answered). */
  private async applyLabel(itemId: string, candidateId: string, op: LabelOp): Promise<undefined> {
    try {
      this.host.trace('edit');
      const annotator = await this.annotatorOrAsk();
      // Still answered, so the webview drops the operation it shows.
      if (!annotator) return undefined;
      const rubric = this.rubric();
      if (!rubric) return undefined;
      // In blind mode the view shows opaque ids (annotatorView): label the candidate the id stands for.
      this.document.updateItems((item) => (item.id === itemId ? applyLabelOp(item, candidateIdOfView(item, candidateId, annotator) ?? candidateId, annotator, op, new Date(), rubric) : undefined));
    } catch (err) {
      this.host.showError((err as Error).message);
    }
    return undefined;
  }

  /**
   * A labelling key applied in the host (keyRoute.ts), at its turn after every operation queued before it: the
   * operation is decided from the document by the same rule as the webview's (`resolveKey`, with the rubric and the
   * card's active question), announced to the webview (`labelled`, shown until applied) and applied.
   */
  private async applyKey(action: LabelAction, at: KeyTarget, announce: (type: 'labelled', params: { itemId: string; candidateId: string; op: LabelOp }) => number): Promise<void> {
    const annotator = await this.annotatorOrAsk();
    if (!annotator) return;
    const rubric = this.rubric();
    if (!rubric) return;
    const items = documentItems(this.document.parse());
    const item = items[at.index]?.id === at.itemId ? items[at.index] : items.find((it) => it.id === at.itemId);
    const candidateId = item && candidateIdOfView(item, at.candidateId, annotator);
    const candidate = candidateId ? item.candidates.find((c) => c.id === candidateId) : undefined;
    if (!item || !candidateId || !candidate) return void this.channel.notify('notice', { text: 'The focused candidate is no longer in the file.' });
    const result = resolveKey(rubric, keyActionOf(action), candidate.annotations.find((a) => a.annotator === annotator), at.question);
    if (!result) return;
    if ('hint' in result) return void this.channel.notify('notice', { text: result.hint });
    // A text box to type into: the webview's (decidable() sends such keys there; a rubric changed meanwhile).
    if ('edit' in result) return void this.channel.notify('action', { action });
    announce('labelled', { itemId: at.itemId, candidateId: at.candidateId, op: result.op });
    try {
      this.host.trace('edit');
      this.document.updateItems((it) => (it.id === at.itemId ? applyLabelOp(it, candidateId, annotator, result.op, new Date(), rubric) : undefined));
    } catch (err) {
      this.host.showError((err as Error).message);
    }
    this.host.trace('ack');
  }

  /**
   * Who labels: the annotator setting, or — when none is set — the one the user gives when asked (`setAnnotator`),
   * so a labelling key pressed before the id was set is applied under it rather than lost (issue 41 item 6). Null
   * when they cancel.
   */
  private async annotatorOrAsk(): Promise<string | null> {
    const now = this.host.settings().annotator;
    if (now) return now;
    await this.host.runCommand('setAnnotator');
    return this.host.settings().annotator || null;
  }

  /** Where "next unlabelled" goes from a shown position, in list order (always answered: the webview holds keys until then). */
  private async nextUnlabelled(index: number, candidateId: string | null): Promise<NextUnlabelled> {
    try {
      const annotator = this.host.settings().annotator;
      if (!annotator) {
        void this.host.runCommand('setAnnotator');
        return { notice: 'Choose who you label as first (Annotator…).' };
      }
      const items = documentItems(this.document.parse());
      const scope = scopeNow(this.state, { setup: this.host.setup() });
      const target = nextUnlabelledTarget(items, this.state.listed ?? items.map((_, i) => i), { index, candidateId }, { annotator, blind: this.host.settings().blind, scope, filter: this.state.list.filter, scales: this.state.info?.scales, planned: this.state.planned });
      return 'message' in target ? { notice: target.message } : target;
    } catch (err) {
      return { notice: `Next unlabelled: ${(err as Error).message}` };
    }
  }

  /** F3 / Enter in the search field (Shift: back): the next candidate in list order that matches the filters and search. */
  private async nextMatch(index: number, candidateId: string | null, back: boolean): Promise<NextUnlabelled> {
    try {
      const items = documentItems(this.document.parse());
      const scope = scopeNow(this.state, { setup: this.host.setup() });
      const target = nextMatchTarget(items, this.state.listed ?? items.map((_, i) => i), { index, candidateId }, back ? -1 : 1, { annotator: this.host.settings().annotator ?? '', blind: this.host.settings().blind, scope, filter: this.state.list.filter, scales: this.state.info?.scales, planned: this.state.planned });
      return 'message' in target ? { notice: target.message } : target;
    } catch (err) {
      return { notice: `Next match: ${(err as Error).message}` };
    }
  }
}
