/**
 * The dialogue editor's webview: item list (virtualised, usable at 10,000 items), the selected context as a
 * transcript, the reference, and the candidates with their origin, labels and scores. The document is the
 * truth: every label change is sent to the host as one operation, which edits the TextDocument and re-renders
 * us. So that fast typing is interpreted right (e.g. `N` then `2`), operations the host has not acknowledged yet
 * are re-applied on top of what it last sent, with the same pure functions the host uses.
 *
 * Keyboard: labelling keys are VS Code keybindings (src/core/labels/labelKeys.ts); VS Code forwards every key press in this webview
 * to its keybinding service and the matching command comes back here as an `action`. Key presses in text fields
 * are kept from VS Code (except those with Ctrl/Alt/Meta, so Ctrl+S and Ctrl+Z still work).
 */
import '@vscode-elements/elements/dist/vscode-button/index.js';
import { ERROR_CATEGORIES, ERROR_LABELS } from '../../src/core/labels/scheme';
import { labelStatus, type LabelOp, type LabelStatus } from '../../src/core/labels/annotate';
import type { CandidateView } from '../../src/core/labels/annotatorView';
import { annotatorGroup } from '../../src/core/labels/groups';
import type { Annotation, CandidateOrigin, ErrorCategory } from '../../src/core/dialogue/types';
import type { ErrorVerdict, ScoreGroup } from '../../src/core/navigation/scoreSummary';
import { initialQuestion, isLabelAction, keyActionOf, keysOf, labelOpOfKey, moveQuestion, resolveKey, type EditorAction } from '../../src/core/labels/labelKeys';
import { applyLabelOpToAnnotation } from '../../src/core/labels/annotate';
import { speakerName } from '../../src/core/rubric/rubric';
import { markActiveQuestion, rubricLegend, rubricQuestions, rubricStatusText, rubricSummary, type RubricCardHost } from './rubricCard';
import { el } from '../shared/dom';
import { WebviewChannel, vscodeApi } from '../shared/ipc';
import { announce, collapseTranscript, fitToolbar, initLayout } from './layout';
import { MOVES_FOCUS, type ConflictEntry, type EditorProtocol, type NextUnlabelled } from './protocol';
import { createNavigator, highlighted, listedEntries, listPosition, markBadges, markClasses, neighbour, searchWords, updateNavigator } from './navigator';
import { acknowledge, canAct, createStore, displayed as displayedIn, focusStateToPost, leaveResponses, moveInResponses, openResponses, responsesBanner, savedState, takeItem, type PendingOp, type SavedState } from './store';

const channel = new WebviewChannel<EditorProtocol>();
/**
 * Milestones of the first paint as `performance` marks (`reflect-eval:<name>`, the first of each only), read by
 * `npm run bench -- editor` to split the time from the page's start to the first item shown.
 */
const milestone = (name: 'script' | 'ready' | 'index' | 'list' | 'item') => {
  if (performance.getEntriesByName(`reflect-eval:${name}`).length === 0) performance.mark(`reflect-eval:${name}`);
};
milestone('script');

/** What each error category of the first study §4.1.3 means (chip tooltips). */
const ERROR_DESCRIPTIONS: Record<ErrorCategory, string> = {
  malformed: 'feels broken: unclear references, incomprehensibly ungrammatical, or sentences fine alone but confusing together',
  dialogueContradicting: 'contradicts the context, partially or fully',
  parroting: 'repeats a part of the context in an unnatural way',
  offTopic: 'has little to no relevance to the dialogue',
  onTopicButUnverifiable: 'on topic, but cannot be verified from the context',
  other: 'another error; describe it in the text field',
};
/** The MI empathy statement and its 5-point scale (first study §4.2.3). */
const EMPATHY_STATEMENT = 'The response candidate gives me the impression that the therapist understands the client’s perceptions, situation, meaning, and feelings.';
const LIKERT = ['disagree', 'somewhat disagree', 'neither agree nor disagree', 'somewhat agree', 'agree'];
const STATUS_TEXT: Record<LabelStatus, string> = {
  unlabelled: 'not labelled',
  needsEmpathy: 'choose 1–5',
  needsErrors: 'choose the errors (1–6)',
  needsMostEvidentError: 'mark the most evident error (Shift+1–6)',
  complete: 'labelled',
};

/** Keys that edit the text of a field: kept from VS Code's keybindings while a text field has focus. */
const TEXT_EDITING_KEYS = new Set(['Backspace', 'Delete', 'ArrowLeft', 'ArrowRight', 'ArrowUp', 'ArrowDown', 'Home', 'End', 'Enter', 'Escape', 'Tab', 'PageUp', 'PageDown']);
/** Two lines a row: where the item is, and the first words of its last client turn (media/editor.css). */
const ROW_HEIGHT = 40;
/** The page's state (store.ts); what it keeps across reloads is merged into VS Code's webview state. */
const s = createStore(channel.getState<SavedState>());
/** What the page last built, so a render rebuilds only what changed. */
const page = {
  /** The item, context and modes the item part was built for (JSON). */
  itemKey: '',
  /** The cards on the page by candidate id, with what each was built from ({@link cardKey}). */
  cards: new Map<string, { key: string; card: HTMLElement }>(),
  hintTimer: undefined as ReturnType<typeof setTimeout> | undefined,
};
/** "Next unlabelled" requests the host has not answered yet. */
const awaitingNext = () => channel.outstanding('nextUnlabelled');
const displayed = () => displayedIn(s);

const $ = <T extends HTMLElement>(sel: string) => document.querySelector(sel) as T;
const list = $('#item-list');
const spacer = $('#item-list-spacer');
const rows = $('#item-list-rows');

const kbd = (k: string) => el('kbd', {}, k);

function saveState(): void {
  // Merged over the rest of the state (the layout's width and toggles, layout.ts).
  channel.patchState(savedState(s));
}

// ---------------------------------------------------------------------------------------------- item list

function renderList(): void {
  // The rows the filter and order leave (navigator.ts), in list order.
  const shown = listedEntries(s.entries);
  spacer.style.height = `${shown.length * ROW_HEIGHT}px`;
  const first = Math.max(0, Math.floor(list.scrollTop / ROW_HEIGHT) - 5);
  const last = Math.min(shown.length, first + Math.ceil(list.clientHeight / ROW_HEIGHT) + 10);
  rows.style.transform = `translateY(${first * ROW_HEIGHT}px)`;
  if (s.entries.some((e) => e.index === s.selected)) list.setAttribute('aria-activedescendant', `item-row-${s.selected}`);
  else list.removeAttribute('aria-activedescendant');
  rows.replaceChildren(
    ...shown.slice(first, last).map((e) => {
      const done = s.annotator !== null && e.candidates > 0 && e.complete === e.candidates;
      const row = el(
        'div',
        {
          class: `item-row${e.index === s.selected ? ' selected' : ''}${done ? ' done' : ''}`,
          id: `item-row-${e.index}`,
          'data-item-index': String(e.index),
          title: `${e.description ?? e.id}: ${e.complete} of ${e.candidates} candidates fully labelled by you, ${e.labelled} answered`,
          role: 'option',
          'aria-selected': String(e.index === s.selected),
        },
        el('span', { class: 'item-label' }, e.label, ...(e.snippet ? [el('span', { class: 'item-snippet' }, `“${e.snippet}”`)] : [])),
        el('span', { class: 'item-count', 'aria-label': `${e.complete} of ${e.candidates} labelled${done ? ', done' : ''}` }, `${done ? '✓ ' : ''}${e.complete}/${e.candidates}`),
      );
      row.addEventListener('click', () => {
        s.focusOnArrival = 'firstIncomplete';
        select(e.index);
      });
      return row;
    }),
  );
}

function select(index: number): void {
  if (index < 0 || index >= s.entries.length) return;
  s.selected = index;
  saveState();
  renderList();
  const top = Math.max(0, listPosition(index)) * ROW_HEIGHT;
  if (top < list.scrollTop || top > list.scrollTop + list.clientHeight - ROW_HEIGHT) list.scrollTop = top - list.clientHeight / 2;
  channel.notify('select', { index });
  postFocusState();
}

// ---------------------------------------------------------------------------------------------- labels

/**
 * The number of label operations shown but not yet applied to the document, as `data-pending-labels` on the body:
 * a save or an undo made meanwhile acts on the document without them (end-to-end tests wait for 0).
 */
function showPending(): void {
  document.body.dataset.pendingLabels = String(s.pending.length);
}

function focusedCandidate(): CandidateView | undefined {
  return displayed()?.candidates.find((c) => c.id === s.focused);
}

function sendOp(candidateId: string, op: LabelOp): void {
  if (!s.current) return;
  // Without an annotator id the host asks for one and then applies the operation under it: no key is lost.
  const itemId = s.current.view.id;
  const { seq } = channel.request('label', { itemId, candidateId, op });
  showOp({ side: 'webview', seq, itemId, candidateId, op });
}

/** Shows a label operation the host has not applied yet (the webview's, or one the host announced) and announces it. */
function showOp(p: PendingOp): void {
  const before = displayed()?.candidates.find((x) => x.id === p.candidateId)?.mine;
  // Choosing Other moves focus to its text field.
  if (p.op.kind === 'toggleError' && p.op.error === 'other' && !before?.errors?.includes('other')) s.focusOtherOf = p.candidateId;
  s.pending.push(p);
  showPending();
  if (s.current?.view.id !== p.itemId) return;
  renderCandidates();
  const c = displayed()?.candidates.find((x) => x.id === p.candidateId);
  if (c) announce(`Candidate ${c.position}: ${labelSummary(c.mine) === '—' ? 'not labelled' : labelSummary(c.mine)}, ${statusOf(c.mine).text}`);
}

/** Tells the host which candidate a key would label now (protocol.ts, `FocusState`), when that changed. */
function postFocusState(): void {
  const state = focusStateToPost(s, awaitingNext());
  if (state) channel.notify('focusState', state);
}

function hint(text: string): void {
  const h = $('#hint');
  if (!h) return;
  h.textContent = text;
  clearTimeout(page.hintTimer);
  page.hintTimer = setTimeout(() => (h.textContent = ''), 4000);
}

/** Whether an action can run now: the selected item is shown and no "next unlabelled" answer is on its way. */
function ready(): boolean {
  return canAct(s, awaitingNext());
}

/** Runs an action now, or after the ones held back (see `EditorStore.deferred`). */
function onAction(action: EditorAction): void {
  if (!s.entries.length) return;
  if (!ready() || s.deferred.length > 0) s.deferred.push(action);
  else runAction(action);
}

/** Runs the actions held back, in order, while they can run. */
function runDeferred(): void {
  while (s.deferred.length > 0 && ready()) runAction(s.deferred.shift()!);
}

/** Asks the host where "next unlabelled" goes; keys wait until the answer is shown. */
/** F3 / Enter in the search field (Shift: back): asks the host for the next candidate that matches the filters and search. */
function requestNextMatch(back: boolean): void {
  channel.request('nextMatch', { index: s.selected, candidateId: s.focused, back }, {
    onResult: (answer: NextUnlabelled, ack) => {
      s.answeredMove = ack.seq;
      if ('notice' in answer) hint(answer.notice);
      else reveal(answer.index, answer.candidateId);
    },
  });
}

function requestNextUnlabelled(): void {
  channel.request('nextUnlabelled', { index: s.selected, candidateId: s.focused }, {
    onResult: (answer: NextUnlabelled, ack) => {
      s.answeredMove = ack.seq;
      if ('notice' in answer) hint(answer.notice);
      else reveal(answer.index, answer.candidateId);
    },
  });
}

/** Shows an item with a candidate focused (a drill-down, or "next unlabelled"). */
function reveal(index: number, candidateId: string | null): void {
  s.revealCandidate = candidateId;
  if (!s.indexed) s.selected = index; // the index is on its way: select the item when it arrives
  else if (index === s.selected && s.current?.index === s.selected) {
    page.itemKey = '';
    renderItem();
  } else select(index);
}

function runAction(action: EditorAction): void {
  if (!s.entries.length) return;
  switch (action.kind) {
    case 'nextCandidate':
    case 'previousCandidate': {
      const delta = action.kind === 'nextCandidate' ? 1 : -1;
      // A response list is open: J/K walk it, across items (issue 41 item 4).
      const entry = moveInResponses(s, delta);
      if (entry === 'end') return hint(delta > 0 ? 'Last response of the list (Esc returns).' : 'First response of the list (Esc returns).');
      if (entry) return reveal(entry.index, entry.candidateId);
      moveFocus(delta);
      return;
    }
    case 'nextUnlabelled':
      return requestNextUnlabelled();
    case 'nextItem':
    case 'previousItem': {
      const next = neighbour(s.entries, s.selected, action.kind === 'nextItem' ? 1 : -1);
      if (next === undefined) return hint(action.kind === 'nextItem' ? 'This is the last item.' : 'This is the first item.');
      s.focusOnArrival = 'firstIncomplete';
      select(next);
      return;
    }
  }
  if (action.kind === 'nextQuestion' || action.kind === 'previousQuestion' || action.kind === 'edit') return questionAction(action.kind);
  if (!isLabelAction(action)) return;
  const c = focusedCandidate();
  if (!c) return hint('No candidate to label in this item.');
  if (!s.rubric) return hint('Not labelled: the rubric file has problems (see the banner).');
  if (ownRubric()) return rubricKey(c, action);
  const result = labelOpOfKey(action, c.mine);
  if (!result) return;
  if ('hint' in result) return hint(result.hint);
  sendOp(c.id, result.op);
}

/** A key on the study's own rubric (labelKeys.ts `resolveKey`): a label, a box to type into, or a hint; an answer moves the question on. */
function rubricKey(c: CandidateView, action: Parameters<typeof keyActionOf>[0]): void {
  const rubric = s.rubric!;
  const result = resolveKey(rubric, keyActionOf(action), c.mine, s.question);
  if (!result) return;
  if ('hint' in result) return hint(result.hint);
  if ('edit' in result) return openBox(c.id, result.edit, result.initial);
  if (result.advance && s.annotator && 'dimension' in result.op) {
    let after = c.mine;
    try {
      after = applyLabelOpToAnnotation(c.mine, s.annotator, result.op, new Date(), rubric);
    } catch {
      /* the host reports it */
    }
    s.question = moveQuestion(rubric, after, result.op.dimension, 1);
  }
  sendOp(c.id, result.op);
}

/** ←/→ and Enter on the study's own rubric: move the active question, or type into its box. */
function questionAction(kind: 'nextQuestion' | 'previousQuestion' | 'edit'): void {
  if (!ownRubric()) return;
  const c = focusedCandidate();
  if (!c) return;
  const rubric = s.rubric!;
  if (kind === 'edit') {
    const d = rubric.dimensions.find((x) => x.name === s.question);
    if (d && (d.type === 'text' || d.type === 'numeric')) return openBox(c.id, d.name);
    return hint(d ? `Enter types into a text or number question; ${d.title ?? d.name} is answered with its keys.` : 'No question here.');
  }
  s.question = moveQuestion(rubric, c.mine, s.question, kind === 'nextQuestion' ? 1 : -1);
  markQuestion();
  renderLegend();
  postFocusState();
}

/** Moves DOM focus into a text or number box of a card (`initial`: the digit that started a number). */
function openBox(candidateId: string, dimension: string, initial?: string): void {
  const input = document.querySelector<HTMLInputElement>(`.candidate[data-candidate-id="${CSS.escape(candidateId)}"] .dim-input[data-dimension="${CSS.escape(dimension)}"]`);
  if (!input) {
    // Not drawn yet (an answer that asks it is on its way): after the next render.
    s.editAfterRender = { candidateId, dimension, initial };
    return;
  }
  s.question = dimension;
  markQuestion();
  input.focus();
  if (initial !== undefined) input.value = initial;
}

/** Marks the focused card's active question. */
function markQuestion(): void {
  if (!ownRubric()) return;
  markActiveQuestion(document.querySelector<HTMLElement>(`#candidates .candidate[data-candidate-id="${CSS.escape(s.focused ?? '')}"]`), s.question);
}

/** What a card's rubric controls do. */
const rubricCardHost: RubricCardHost = {
  send: (candidateId, op) => sendOp(candidateId, op),
  activate: (candidateId, dimension) => {
    if (s.focused !== candidateId) setFocus(candidateId, false);
    s.question = dimension;
    markQuestion();
    renderLegend();
    postFocusState();
  },
  backToCard: (candidateId, advance) => {
    const card = document.querySelector<HTMLElement>(`.candidate[data-candidate-id="${CSS.escape(candidateId)}"]`);
    card?.focus();
    if (advance && s.rubric) s.question = moveQuestion(s.rubric, focusedCandidate()?.mine, s.question, 1);
    markQuestion();
    renderLegend();
    postFocusState();
  },
};

// ---------------------------------------------------------------------------------------------- response list

/** The response list's one-line banner above the item (issue 41 item 4), made on first use. */
function responsesBox(): HTMLElement {
  let box = document.getElementById('response-list');
  if (!box) {
    const back = el('button', { type: 'button', id: 'response-list-back', class: 'icon-button', title: 'Leave the list and return to the item you were on (Esc)' }, 'Return (Esc)');
    back.addEventListener('click', () => leaveList());
    box = el('div', { id: 'response-list', role: 'status', hidden: '' }, el('span', { id: 'response-list-text' }), back);
    $('#layout').before(box);
  }
  return box;
}

function renderResponses(): void {
  const text = responsesBanner(s);
  if (text === null && !document.getElementById('response-list')) return;
  const box = responsesBox();
  box.hidden = text === null;
  document.body.classList.toggle('response-list-open', text !== null);
  (box.querySelector('#response-list-text') as HTMLElement).textContent = text ?? '';
  box.title = text ?? '';
}

/** Escape (or the banner's button): closes the response list and shows the item and candidate the user was on. */
function leaveList(): boolean {
  const back = leaveResponses(s);
  if (!back) return false;
  saveState();
  renderResponses();
  reveal(back.index, back.candidateId);
  announce('Response list closed.');
  return true;
}

// ---------------------------------------------------------------------------------------------- focus

function candidateCards(): HTMLElement[] {
  return [...document.querySelectorAll<HTMLElement>('#candidates .candidate')];
}

function setFocus(candidateId: string | null, moveDomFocus = true): void {
  s.focused = candidateId;
  if (ownRubric() && candidateId !== s.questionOf) {
    s.questionOf = candidateId;
    s.question = initialQuestion(s.rubric!, focusedCandidate()?.mine);
  }
  for (const card of candidateCards()) {
    const on = card.dataset.candidateId === candidateId;
    card.classList.toggle('focused', on);
    card.tabIndex = on ? 0 : -1;
    if (on && moveDomFocus) {
      const active = document.activeElement as HTMLElement | null;
      // Focusing and scrolling force a layout of the page: only when focus is not already on this card.
      if (active === card) continue;
      if (!active?.closest('input, textarea') || !card.contains(active)) card.focus({ preventScroll: true });
      card.scrollIntoView({ block: 'nearest' });
    }
  }
  markQuestion();
  renderLegend();
  renderResponses();
  // Kept across a reload of the page (a preview tab covered the editor): focus returns here.
  if (savedState(s).focused !== channel.getState<SavedState>()?.focused) saveState();
  postFocusState();
}

function moveFocus(delta: number): void {
  const view = displayed();
  if (!view) return;
  const ids = view.candidates.map((c) => c.id);
  const at = s.focused ? ids.indexOf(s.focused) : -1;
  const next = at + delta;
  if (next >= 0 && next < ids.length) return setFocus(ids[next]);
  // Past the ends: on to the neighbouring item.
  const item = neighbour(s.entries, s.selected, delta > 0 ? 1 : -1);
  if (item === undefined) return hint(delta > 0 ? 'Last candidate of the last item.' : 'First candidate of the first item.');
  s.focusOnArrival = delta > 0 ? 'first' : 'last';
  select(item);
}

// ---------------------------------------------------------------------------------------------- rendering

function originText(o: CandidateOrigin): string {
  if (o.kind === 'human') return o.source ?? 'human';
  const d = o.decoding;
  const params = d ? [d.strategy, d.numBeams ? `beams=${d.numBeams}` : '', d.topP !== undefined ? `p=${d.topP}` : '', d.sampleIndex !== undefined ? `#${d.sampleIndex}` : ''].filter(Boolean).join(' ') : '';
  return `${o.kind}: ${o.model ?? o.source ?? '?'}${params ? ` · ${params}` : ''}`;
}


/** An error-category judge's verdict under its score line: the categories, the most evident one, the rationale. */
function verdictRow(id: string, v: ErrorVerdict): HTMLElement {
  const what = v.categories.length === 0 ? 'no error (coherent)' : `${v.categories.join(', ')}${v.mostEvidentError && v.categories.length > 1 ? ` — most evident: ${v.mostEvidentError}` : ''}`;
  return el(
    'tr',
    { class: 'score-verdict', 'data-evaluator': id },
    el('td', { colspan: '4' }, el('span', { class: 'verdict-categories' }, what), ...(v.rationale ? [' ', el('q', { class: 'verdict-rationale' }, v.rationale)] : [])),
  );
}

/**
 * A candidate's scores: one collapsible group per kind (metrics, judges), each line the evaluator's readable name,
 * the rounded value and its scale; the full id and raw value on hover.
 */
function scoreGroups(groups: ScoreGroup[]): HTMLElement {
  return el(
    'div',
    { class: 'scores' },
    ...groups.map((g) => {
      const details = el(
        'details',
        { class: `score-group ${g.group}`, 'data-group': g.group, ...(s.collapsedGroups.has(g.group) ? {} : { open: '' }) },
        el('summary', {}, `${g.title} (${g.lines.length})`),
        el(
          'table',
          { class: 'score-lines' },
          ...g.lines.flatMap((l) => [
            el(
              'tr',
              { title: l.title, 'data-evaluator': l.id, class: l.ok ? 'ok' : 'not-ok' },
              el('th', { scope: 'row', class: 'score-name' }, l.name),
              el('td', { class: 'score-value' }, l.value),
              el('td', { class: 'score-scale' }, l.scale ? `(${l.scale})` : ''),
              el('td', { class: 'score-repeats' }, l.repeatsDiffer ? el('span', { class: 'repeats-differ', title: l.repeatsDiffer, 'aria-label': l.repeatsDiffer }, '≠ repeats') : ''),
            ),
            ...(l.verdict ? [verdictRow(l.id, l.verdict)] : []),
          ]),
        ),
      );
      details.addEventListener('toggle', () => {
        const open = (details as HTMLDetailsElement).open;
        if (open === !s.collapsedGroups.has(g.group)) return;
        if (open) s.collapsedGroups.delete(g.group);
        else s.collapsedGroups.add(g.group);
        saveState();
        // Every candidate's group of this kind follows.
        for (const other of document.querySelectorAll<HTMLDetailsElement>(`details.score-group[data-group="${g.group}"]`)) other.open = open;
      });
      return details;
    }),
  );
}

/** Whether the card shows the study's own rubric (not the MI preset's questions). */
const ownRubric = () => !s.preset && s.rubric !== null;

/** A card's status and how it reads, under the rubric in use. */
function statusOf(a: Annotation | undefined): { status: string; text: string } {
  if (ownRubric()) return rubricStatusText(s.rubric!, a);
  const status = labelStatus(a);
  return { status, text: STATUS_TEXT[status] };
}

function labelSummary(a: Annotation | undefined): string {
  if (ownRubric()) return rubricSummary(s.rubric!, a);
  if (!a || typeof a.coherent !== 'boolean') return '—';
  if (a.coherent) return `coherent${a.empathy ? ` · empathy ${a.empathy} (${LIKERT[a.empathy - 1]})` : ''}`;
  const errors = (a.errors ?? []).map((e) => `${ERROR_LABELS[e]}${a.mostEvidentError === e ? ' ★' : ''}`);
  return `incoherent${errors.length ? `: ${errors.join(', ')}` : ''}${a.otherText ? ` (“${a.otherText}”)` : ''}`;
}

/** A chip button; `pressed` null: the state is in `attrs` (a radio's aria-checked), where aria-pressed is not allowed. */
function chip(attrs: Record<string, string>, ...rest: [boolean, string, ...(Node | string)[]] | [null, boolean, string, ...(Node | string)[]]): HTMLButtonElement {
  const radio = rest[0] === null;
  const [pressed, title, ...children] = (radio ? rest.slice(1) : rest) as [boolean, string, ...(Node | string)[]];
  return el('button', { class: `chip${pressed ? ' on' : ''}`, type: 'button', ...(radio ? {} : { 'aria-pressed': String(pressed) }), title, ...attrs }, ...children);
}

function empathyQuestion(c: CandidateView, mine: Annotation): HTMLElement {
  return el(
    'div',
    { class: 'question empathy' },
    el('div', { class: 'statement' }, EMPATHY_STATEMENT),
    el(
      'div',
      { class: 'chips', role: 'radiogroup', 'aria-label': 'Agreement with the statement' },
      ...LIKERT.map((text, i) => {
        const v = (i + 1) as 1 | 2 | 3 | 4 | 5;
        const b = chip({ 'data-empathy': String(v), role: 'radio', 'aria-checked': String(mine.empathy === v) }, null, mine.empathy === v, `${text} (${keysOf(`reflectEval.label.option${v}`)})`, kbd(String(v)), ` ${text}`);
        b.addEventListener('click', () => sendOp(c.id, { kind: 'empathy', value: mine.empathy === v ? null : v }));
        return b;
      }),
    ),
  );
}

function errorQuestion(c: CandidateView, mine: Annotation): HTMLElement {
  const chosen = new Set(mine.errors ?? []);
  const several = chosen.size > 1;
  const chips = ERROR_CATEGORIES.map((e, i) => {
    const n = i + 1;
    const isMee = mine.mostEvidentError === e || (chosen.size === 1 && chosen.has(e));
    const b = chip(
      { 'data-error': e, ...(isMee ? { 'data-mee': 'true' } : {}) },
      chosen.has(e),
      `${ERROR_LABELS[e]}: ${ERROR_DESCRIPTIONS[e]} (${keysOf(`reflectEval.label.option${n}`)}; most evident: ${keysOf(`reflectEval.label.mostEvident${n}`)})`,
      kbd(String(n)),
      ` ${ERROR_LABELS[e]}`,
      ...(chosen.has(e) && isMee ? [el('span', { class: 'mee-badge', title: several ? 'most evident error' : 'the only error is the most evident one' }, ' ★ most evident')] : []),
    );
    b.addEventListener('click', (ev) => {
      if (ev.shiftKey) sendOp(c.id, { kind: 'mostEvidentError', error: mine.mostEvidentError === e ? null : e });
      else sendOp(c.id, { kind: 'toggleError', error: e });
    });
    return b;
  });
  const parts: HTMLElement[] = [el('div', { class: 'chips', role: 'group', 'aria-label': 'Errors' }, ...chips)];
  if (several) {
    parts.push(
      el(
        'div',
        { class: 'mee-row' },
        el('span', { class: 'muted' }, 'Most evident: '),
        ...[...chosen].map((e) => {
          const n = ERROR_CATEGORIES.indexOf(e) + 1;
          const b = chip({ 'data-mee-choice': e }, mine.mostEvidentError === e, `Mark ${ERROR_LABELS[e]} as the most evident error (${keysOf(`reflectEval.label.mostEvident${n}`)})`, kbd(`⇧${n}`), ` ${ERROR_LABELS[e]}`);
          b.addEventListener('click', () => sendOp(c.id, { kind: 'mostEvidentError', error: mine.mostEvidentError === e ? null : e }));
          return b;
        }),
      ),
    );
  }
  if (chosen.has('other')) {
    const input = el('input', { class: 'other-text', type: 'text', placeholder: 'Describe the other error (Enter saves, Esc returns)', 'aria-label': 'Other error' });
    input.value = mine.otherText ?? '';
    const commit = () => {
      if (input.value !== (mine.otherText ?? '')) sendOp(c.id, { kind: 'otherText', text: input.value });
    };
    input.addEventListener('keydown', (ev) => {
      // Typing and editing stay in the field; VS Code still gets Ctrl/Alt/Meta combinations (save, undo) and
      // keys that type nothing (F1, F-keys).
      if (!ev.ctrlKey && !ev.metaKey && !ev.altKey && (ev.key.length === 1 || TEXT_EDITING_KEYS.has(ev.key))) ev.stopPropagation();
      if (ev.key === 'Enter' || ev.key === 'Escape') {
        if (ev.key === 'Escape') input.value = mine.otherText ?? '';
        // Back to the candidate; leaving the field commits a changed text (the change event).
        document.querySelector<HTMLElement>(`.candidate[data-candidate-id="${CSS.escape(c.id)}"]`)?.focus();
        ev.preventDefault();
      }
    });
    input.addEventListener('change', commit);
    parts.push(input);
  }
  return el('div', { class: 'question errors' }, ...parts);
}

function comparisonTable(c: CandidateView): HTMLElement {
  const rowsOf = [...(c.mine ? [c.mine] : s.annotator ? [{ annotator: s.annotator } as Annotation] : []), ...(c.others ?? [])];
  return el(
    'table',
    { class: 'comparison' },
    el('tr', {}, el('th', {}, 'annotator'), el('th', {}, 'group'), el('th', {}, 'label')),
    ...rowsOf.map((a) =>
      el(
        'tr',
        { class: a.annotator === s.annotator ? 'mine' : 'other', 'data-annotator': a.annotator },
        el('td', {}, a.annotator === s.annotator ? `${a.annotator} (you)` : a.annotator),
        el('td', {}, annotatorGroup(a)),
        el('td', {}, labelSummary(a)),
      ),
    ),
  );
}

/** A card under the study's own rubric: the candidate, its questions (rubricCard.ts), comparison, scores, marks. */
function renderRubricCandidate(c: CandidateView, count: number): HTMLElement {
  const { status, text } = statusOf(c.mine);
  const scores = s.current?.scores[c.id] ?? [];
  const card = el(
    'div',
    {
      class: `candidate${c.id === s.focused ? ' focused' : ''}${markClasses(s.current?.marks?.[c.id])}`,
      tabindex: c.id === s.focused ? '0' : '-1',
      role: 'group',
      'aria-label': `Candidate ${c.position} of ${count}, ${text}`,
      'data-candidate-id': c.id,
      'data-status': status,
    },
    // Done reads as a ✓ in the foreground colour (the pass colour alone is below 4.5:1 on a light card).
    el('div', { class: 'candidate-head' }, el('span', { class: 'position' }, `#${c.position}`), el('span', { class: `status rubric-${status}` }, status === 'complete' ? `✓ ${text}` : text)),
    el('div', { class: 'candidate-text' }, ...(c.text ? highlighted(c.text) : ['(empty)'])),
    ...(c.origin ? [el('div', { class: 'candidate-origin' }, originText(c.origin) + (c.duplicateOrigins?.length ? ` (+${c.duplicateOrigins.length} identical)` : ''))] : []),
    rubricQuestions(s.rubric!, c, rubricCardHost),
    ...(s.comparison ? [comparisonTable(c)] : []),
    ...(scores.length ? [scoreGroups(scores)] : []),
    ...markBadges(s.current?.marks?.[c.id]),
  );
  card.addEventListener('click', (e) => {
    if ((e.target as HTMLElement).closest('vscode-button, button, input')) return;
    setFocus(c.id);
  });
  card.addEventListener('focusin', () => {
    if (s.focused !== c.id) setFocus(c.id, false);
  });
  return card;
}

function renderCandidate(c: CandidateView, count: number): HTMLElement {
  if (ownRubric()) return renderRubricCandidate(c, count);
  const mine = c.mine;
  const status = labelStatus(mine);
  const state = mine?.coherent === true ? 'yes' : mine?.coherent === false ? 'no' : 'none';
  const yes = el('vscode-button', { 'data-action': 'coherent-yes', ...(state === 'yes' ? {} : { secondary: '' }), title: `Coherent and consistent with the dialogue (${keysOf('reflectEval.label.coherent')})` }, 'Coherent ', kbd('Y'));
  const no = el('vscode-button', { 'data-action': 'coherent-no', ...(state === 'no' ? {} : { secondary: '' }), title: `Incoherent or inconsistent with the dialogue (${keysOf('reflectEval.label.incoherent')})` }, 'Incoherent ', kbd('N'));
  const answer = (coherent: boolean) => () => {
    setFocus(c.id, false);
    const same = (coherent && state === 'yes') || (!coherent && state === 'no');
    sendOp(c.id, { kind: 'coherence', coherent: same ? null : coherent });
  };
  yes.addEventListener('click', answer(true));
  no.addEventListener('click', answer(false));
  const scores = s.current?.scores[c.id] ?? [];
  const card = el(
    'div',
    {
      class: `candidate${c.id === s.focused ? ' focused' : ''}${markClasses(s.current?.marks?.[c.id])}`,
      tabindex: c.id === s.focused ? '0' : '-1',
      role: 'group',
      'aria-label': `Candidate ${c.position} of ${count}, ${STATUS_TEXT[status]}`,
      'data-candidate-id': c.id,
      'data-coherent': state,
      'data-status': status,
    },
    el('div', { class: 'candidate-head' }, el('span', { class: 'position' }, `#${c.position}`), el('span', { class: `status ${status}` }, STATUS_TEXT[status])),
    el('div', { class: 'candidate-text' }, ...(c.text ? highlighted(c.text) : ['(empty)'])),
    ...(c.origin ? [el('div', { class: 'candidate-origin' }, originText(c.origin) + (c.duplicateOrigins?.length ? ` (+${c.duplicateOrigins.length} identical)` : ''))] : []),
    el('div', { class: 'candidate-actions' }, yes, no),
    ...(mine?.coherent === true ? [empathyQuestion(c, mine)] : mine?.coherent === false ? [errorQuestion(c, mine)] : []),
    ...(s.comparison ? [comparisonTable(c)] : []),
    ...(scores.length ? [scoreGroups(scores)] : []),
    ...markBadges(s.current?.marks?.[c.id]),
  );
  card.addEventListener('click', (e) => {
    if ((e.target as HTMLElement).closest('vscode-button, button, input')) return;
    setFocus(c.id);
  });
  card.addEventListener('focusin', () => {
    if (s.focused !== c.id) setFocus(c.id, false);
  });
  return card;
}


/**
 * Everything a candidate's card is built from but focus (which `setFocus` sets on the card it finds): the item, the
 * candidate as shown (label times aside: they are not shown), its score lines and marks, the view's modes.
 */
function cardKey(c: CandidateView, count: number): string {
  return JSON.stringify([s.current?.index, s.current?.view.id, c, count, s.current?.scores[c.id] ?? null, s.current?.marks?.[c.id] ?? null, s.comparison, s.blind, s.preset ? null : s.rubric, searchWords()], (k, v) => (k === 'updatedAt' ? undefined : v));
}

/** Re-renders the candidates only, keeping scroll position and focus. */
function renderCandidates(): void {
  const box = document.getElementById('candidates');
  const view = displayed();
  if (!box || !view) return;
  const hadFocus = document.hasFocus() && !!(document.activeElement as HTMLElement | null)?.closest('#candidates');
  const typing = document.activeElement instanceof HTMLInputElement && (document.activeElement.classList.contains('other-text') || document.activeElement.classList.contains('dim-input')) ? document.activeElement : null;
  const typingIn = typing?.closest<HTMLElement>('.candidate')?.dataset.candidateId;
  const boxSelector = typing?.dataset.dimension ? `.dim-input[data-dimension="${CSS.escape(typing.dataset.dimension)}"]` : '.other-text';
  const draft = typing ? { value: typing.value, start: typing.selectionStart, end: typing.selectionEnd } : null;
  // Only the cards whose content changed are built again: a label key changes one card, and rebuilding all of a
  // study item's 26 (each with its score lines and buttons) made every key cost the renderer ~100 ms.
  const count = view.candidates.length;
  const cards = view.candidates.map((c) => {
    const key = cardKey(c, count);
    const kept = page.cards.get(c.id);
    if (kept && kept.key === key) return kept.card;
    const card = renderCandidate(c, count);
    page.cards.set(c.id, { key, card });
    return card;
  });
  for (const id of [...page.cards.keys()]) if (!view.candidates.some((c) => c.id === id)) page.cards.delete(id);
  const children = Array.from(box.children);
  if (children.length === cards.length) cards.forEach((card, i) => children[i] !== card && box.replaceChild(card, children[i]));
  else box.replaceChildren(...cards);
  if (typingIn && draft) {
    const input = box.querySelector<HTMLInputElement>(`.candidate[data-candidate-id="${CSS.escape(typingIn)}"] ${boxSelector}`);
    if (input) {
      input.value = draft.value;
      input.focus();
      input.setSelectionRange(draft.start, draft.end);
      return renderLegend();
    }
  }
  if (s.focusOtherOf) {
    const input = box.querySelector<HTMLInputElement>(`.candidate[data-candidate-id="${CSS.escape(s.focusOtherOf)}"] .other-text`);
    if (input) {
      s.focusOtherOf = null;
      input.focus();
      return renderLegend();
    }
  }
  setFocus(s.focused, hadFocus || document.hasFocus());
  if (s.editAfterRender) {
    const { candidateId, dimension, initial } = s.editAfterRender;
    s.editAfterRender = null;
    openBox(candidateId, dimension, initial);
  }
}

function renderItem(): void {
  const main = $('#item');
  const view = displayed();
  if (!s.current || !view) {
    page.itemKey = '';
    main.replaceChildren(el('p', { class: 'muted' }, s.entries.length ? 'Select an item.' : 'This file has no items yet.'));
    renderLegend();
    return;
  }
  const key = JSON.stringify([view.id, view.context, view.reference, view.blind, view.comparison, searchWords()]);
  const fresh = key !== page.itemKey;
  if (!fresh) return renderCandidates();
  const sameItem = page.itemKey !== '' && JSON.parse(page.itemKey)[0] === view.id;
  page.itemKey = key;
  const ids = view.candidates.map((c) => c.id);
  if (s.revealCandidate && ids.includes(s.revealCandidate)) {
    s.focused = s.revealCandidate;
    s.focusOnArrival = 'firstIncomplete';
  } else {
    // The item it was meant for has no such candidate (any more): not to be taken for one of another item's.
    if (s.revealCandidate && s.current.index === s.selected) s.revealCandidate = null;
    if (!sameItem || !s.focused || !ids.includes(s.focused)) {
      const firstIncomplete = view.candidates.find((c) => statusOf(c.mine).status !== 'complete')?.id;
      s.focused = s.focusOnArrival === 'last' ? ids[ids.length - 1] : s.focusOnArrival === 'first' ? ids[0] : (firstIncomplete ?? ids[0]) ?? null;
      s.focusOnArrival = 'firstIncomplete';
    }
  }
  const p = view.provenance;
  main.replaceChildren(
    el('h2', {}, view.id),
    el('div', { class: 'muted' }, p ? [p.dataset, p.topic, p.miQuality ? `MI quality: ${p.miQuality}` : ''].filter(Boolean).join(' · ') : ''),
    el('h3', {}, `Context (${view.context.length} turns)`),
    el(
      'div',
      { id: 'transcript', tabindex: '0', role: 'region', 'aria-label': `Context, ${view.context.length} turns` },
      ...view.context.map((t) => el('div', { class: `turn ${t.speaker}` }, el('span', { class: 'speaker' }, ownRubric() ? speakerName(s.rubric!, t.speaker) : t.speaker === 'therapist' ? 'Therapist' : 'Client'), el('span', { class: 'text' }, ...highlighted(t.text)))),
    ),
    ...(view.reference ? [el('h3', {}, `Reference${view.reference.behaviour ? ` (${view.reference.behaviour})` : ''}`), el('div', { id: 'reference', class: 'turn therapist' }, view.reference.text)] : []),
    el('h3', {}, `Candidates (${view.candidates.length})${view.blind ? ' · blind: shuffled for you, origins hidden' : ''}`),
    el('div', { id: 'candidates' }),
  );
  const transcript = $('#transcript');
  collapseTranscript(transcript);
  transcript.scrollTop = transcript.scrollHeight;
  renderCandidates();
  if (s.revealCandidate && s.focused === s.revealCandidate) {
    s.revealCandidate = null;
    setFocus(s.focused);
  }
}

function renderLegend(): void {
  const box = $('#legend');
  const c = focusedCandidate();
  const k = (command: string) => kbd(keysOf(command));
  const part = (...xs: (Node | string)[]) => el('span', { class: 'legend-part' }, ...xs);
  const parts: HTMLElement[] = [];
  if (ownRubric()) parts.push(...rubricLegend(s.rubric!, s.question).map((xs) => part(...xs)));
  else {
    parts.push(part(k('reflectEval.label.coherent'), ' coherent'), part(k('reflectEval.label.incoherent'), ' incoherent'));
    if (c?.mine?.coherent === true) parts.push(part(kbd('1–5'), ' empathy: 1 disagree … 5 agree'));
    else if (c?.mine?.coherent === false) parts.push(part(kbd('1–6'), ' errors'), part(kbd('Shift+1–6'), ' most evident'));
    else parts.push(part(kbd('1–6'), ' errors or empathy, once answered'));
  }
  parts.push(
    part(k('reflectEval.label.clear'), ' clear'),
    part(k('reflectEval.label.nextCandidate'), ' ', k('reflectEval.label.previousCandidate'), ' candidate'),
    part(k('reflectEval.label.nextItem'), ' ', k('reflectEval.label.previousItem'), ' item'),
    part(k('reflectEval.label.nextUnlabelled'), ' next unlabelled'),
  );
  const rebind = el('a', { href: '#', class: 'rebind', title: 'Open Keyboard Shortcuts filtered to the labelling commands' }, 'Keys…');
  rebind.addEventListener('click', (e) => {
    e.preventDefault();
    channel.notify('command', { command: 'showLabellingKeys' });
  });
  box.replaceChildren(...parts, el('span', { id: 'hint', role: 'status' }, ($('#hint')?.textContent ?? '') as string), rebind);
}

function renderHeader(): void {
  // The name alone (the toolbar is narrow beside a panel); what it is on hover and for screen readers.
  const who = $('#annotator');
  who.textContent = s.annotator ? `as ${s.annotator}${s.packet ? ' (packet)' : ''}` : 'No annotator set';
  who.title = s.packet
    ? `A team packet of ${s.packet.study} for ${s.packet.annotator} (${s.packet.assigned} candidates; ${s.packet.manifest}): labelled as ${s.packet.annotator}, blind`
    : s.annotator
      ? `Annotator: ${s.annotator}`
      : 'No annotator set: choose one with Annotator…';
  who.setAttribute('aria-label', who.title);
  $('#mode').textContent = [s.blind ? 'Blind' : '', s.comparison ? 'Comparing annotators' : ''].filter(Boolean).join(' · ');
  $('#mode').title = ownRubric() ? `Rubric: ${s.rubric!.name}` : '';
  // A packet's annotator and blind mode are the packet's: the buttons that would change them are off.
  for (const id of ['#cmd-annotator', '#cmd-blind']) {
    if (s.packet) $(id).setAttribute('disabled', '');
    else $(id).removeAttribute('disabled');
  }
  const toggle = (id: string, on: boolean) => {
    const b = $(id);
    if (on) b.removeAttribute('secondary');
    else b.setAttribute('secondary', '');
    b.setAttribute('aria-pressed', String(on));
  };
  toggle('#cmd-blind', s.blind);
  toggle('#cmd-compare', s.comparison);
  renderProblems();
  fitToolbar();
}

/** Problem lines shown in the banner at most (all of them are in the Problems panel). */
const BANNER_LINES = 20;

/** The banner: problem lines counted per line, each a link that shows the line in a text editor. */
function renderProblems(): void {
  const box = $('#problems');
  box.hidden = s.problems.length === 0;
  const invalid = s.problems.filter((p) => p.severity === 'error').length;
  const other = s.problems.length - invalid;
  const head = [
    invalid ? `${invalid} line${invalid === 1 ? ' is' : 's are'} not an item: ReflectEval never edits ${invalid === 1 ? 'it' : 'them'} and leaves ${invalid === 1 ? 'it' : 'them'} out of every job` : '',
    other ? `${other} item line${other === 1 ? '' : 's'} that VS Code would change on save` : '',
  ].filter(Boolean).join('; ');
  const entriesShown = s.problems.slice(0, BANNER_LINES).map((p) => {
    const link = el('a', { href: '#', class: 'problem-line', 'data-line': String(p.line), title: 'Show this line in a text editor' }, `line ${p.line}`);
    link.addEventListener('click', (ev) => {
      ev.preventDefault();
      channel.notify('revealLine', { line: p.line });
    });
    return el('li', {}, link, `: ${p.reasons.join('; ')}`);
  });
  box.replaceChildren(
    el('strong', {}, `${head}:`),
    el('ul', {}, ...entriesShown),
    ...(s.problems.length > BANNER_LINES ? [el('div', { class: 'muted' }, `…and ${s.problems.length - BANNER_LINES} more line(s): all of them are in the Problems panel.`)] : []),
  );
}

/** Why the rubric file (or a packet's manifest) cannot be used: labelling waits until it is fixed. */
function renderRubricProblems(problems: { file: string; line: number; field: string; message: string }[]): void {
  let box = document.getElementById('rubric-problems');
  if (!box) {
    box = el('div', { id: 'rubric-problems', role: 'alert' });
    $('#layout').before(box);
  }
  box.hidden = problems.length === 0;
  box.replaceChildren(
    el('strong', {}, 'The rubric cannot be used, so nothing can be labelled until it is fixed:'),
    el('ul', {}, ...problems.slice(0, BANNER_LINES).map((p) => el('li', {}, `${p.file}:${p.line}: ${p.field}: ${p.message}`))),
  );
}

/** Lines of the study's label sidecars that are left out (issue 44 item 1): each with its file and line. */
function renderLabelProblems(problems: { file: string; line: number; field?: string; message: string }[]): void {
  let box = document.getElementById('label-problems');
  if (!box) {
    box = el('div', { id: 'label-problems', role: 'status' });
    $('#layout').before(box);
  }
  box.hidden = problems.length === 0;
  const more = problems.length - BANNER_LINES;
  box.replaceChildren(
    el('strong', {}, `${problems.length} label line${problems.length === 1 ? '' : 's'} in sidecar files ${problems.length === 1 ? 'is' : 'are'} not read into this study:`),
    el('ul', {}, ...problems.slice(0, BANNER_LINES).map((p) => el('li', {}, `${p.file}:${p.line}: ${p.field ? `${p.field}: ` : ''}${p.message}`)), ...(more > 0 ? [el('li', {}, `… and ${more} more (reflect-eval labels check)`)] : [])),
  );
}

// ---------------------------------------------------------------------------------------------- merge conflicts

/**
 * Unsaved labels that a merge with the file on disk could not settle (issue 14 item 3): each with both values and
 * a choice. Shown above the item list and on the item.
 */
function renderConflicts(conflicts: ConflictEntry[]): void {
  let box = document.getElementById('conflicts');
  if (!box) {
    box = el('div', { id: 'conflicts', role: 'alert' });
    $('#layout').before(box);
  }
  box.hidden = conflicts.length === 0;
  const button = (c: ConflictEntry, choice: 'mine' | 'disk', text: string) => {
    const b = el('button', { type: 'button', class: 'chip', 'data-choice': choice }, text);
    b.addEventListener('click', () => channel.notify('resolveConflict', { id: c.id, choice }));
    return b;
  };
  box.replaceChildren(
    el('strong', {}, `The file changed on disk; ${conflicts.length} unsaved label(s) need your choice:`),
    el(
      'ul',
      {},
      ...conflicts.map((c) => {
        const item = el('a', { href: '#', class: 'conflict-item' }, c.itemId);
        item.addEventListener('click', (e) => {
          e.preventDefault();
          if (c.itemIndex !== null) select(c.itemIndex);
        });
        const where = [item, `, candidate “${c.candidate}”, ${c.annotator}: `];
        if (c.kind === 'conflict') {
          return el('li', { 'data-conflict-id': String(c.id), 'data-kind': c.kind }, ...where, 'yours: ', el('b', { class: 'mine' }, c.mine), ' · the file’s: ', el('b', { class: 'disk' }, c.disk), ' ', button(c, 'mine', 'Keep mine'), button(c, 'disk', 'Use the file’s'));
        }
        return el('li', { 'data-conflict-id': String(c.id), 'data-kind': c.kind }, ...where, `${c.disk} on disk, so your label was not merged: `, el('b', { class: 'mine' }, c.mine), ' ', button(c, 'mine', 'Copy it and dismiss'), button(c, 'disk', 'Dismiss'));
      }),
    ),
  );
}

// ---------------------------------------------------------------------------------------------- messages

channel
  .on('index', (msg) => {
    milestone('index');
    s.entries = msg.entries;
    s.problems = msg.problems;
    s.annotator = msg.annotator;
    s.blind = msg.blind;
    s.comparison = msg.comparison;
    const rubricChanged = JSON.stringify(s.rubric) !== JSON.stringify(msg.rubric) || s.preset !== msg.preset;
    s.rubric = msg.rubric;
    s.preset = msg.preset;
    s.packet = msg.packet;
    if (rubricChanged) {
      // Every card is drawn again under the new rubric, and the active question chosen again.
      s.questionOf = null;
      page.itemKey = '';
    }
    renderRubricProblems(msg.rubricProblems);
    renderLabelProblems(msg.labelProblems ?? []);
    $('#file').textContent = msg.file;
    renderHeader();
    const clamped = Math.min(s.selected, Math.max(0, s.entries.length - 1));
    renderList();
    milestone('list');
    if (!s.entries.length) {
      s.current = null;
      renderItem();
    } else if (!s.indexed || clamped !== s.selected) {
      s.selected = clamped;
      select(s.selected);
    }
    s.indexed = true;
  })
  .on('entries', (msg) => {
    for (const e of msg.entries) if (s.entries[e.index]?.index === e.index) s.entries[e.index] = e;
    renderList();
  })
  .on('item', (msg, env) => {
    // What the host has applied is in this item: only later operations are shown on top.
    acknowledge(s, env.done);
    showPending();
    // A partial item builds on a full one this page may not hold (a reload, another item meanwhile): ask again.
    const taken = takeItem(s, msg, env.seq);
    if (taken === 'askAgain') channel.notify('select', { index: msg.index });
    if (taken !== 'shown') return;
    renderItem();
    milestone('item');
  })
  .on('labelled', (msg, env) => {
    // Counted for the end-to-end tests, which check that keys take this path.
    document.body.dataset.hostLabels = String(Number(document.body.dataset.hostLabels ?? 0) + 1);
    showOp({ side: 'host', seq: env.seq, itemId: msg.itemId, candidateId: msg.candidateId, op: msg.op });
  })
  .on('action', (msg) => onAction(msg.action))
  .on('reveal', (msg) => reveal(msg.index, msg.candidateId))
  .on('responseList', (msg) => {
    const first = openResponses(s, msg.list);
    saveState();
    renderResponses();
    reveal(first.index, first.candidateId);
  })
  .on('conflicts', (msg) => renderConflicts(msg.conflicts))
  .on('navigator', (msg) => updateNavigator(msg.state, s.entries.length, s.annotator, !ownRubric()))
  .on('notice', (msg) => hint(msg.text))
  .on('keys', (msg) => {
    document.body.classList.toggle('keys-live', msg.live);
    $('#legend').title = msg.live ? '' : 'The keys work while this editor has focus: click in it first.';
  })
  .after((env) => {
    // An operation's end (the host's `ack`): the operations it applied are no longer shown on top.
    if (env.type === 'ack' && acknowledge(s, env.done)) {
      showPending();
      renderCandidates();
    }
    // Actions held back run once the item they wait for is shown (each may hold back the rest again).
    runDeferred();
    // The host learns which of its messages that move focus this state follows (protocol.ts, FocusState).
    if ((MOVES_FOCUS as readonly string[]).includes(env.type)) s.lastMove = Math.max(s.lastMove, env.seq);
    s.lastMove = Math.max(s.lastMove, s.answeredMove);
    s.answeredMove = 0;
    postFocusState();
  });

list.addEventListener('scroll', () => renderList());
window.addEventListener('resize', () => renderList());
// Keys that would scroll the page are VS Code keybindings here (next/previous candidate and item).
window.addEventListener('keydown', (e) => {
  // F3 / Shift+F3: the next / previous candidate that matches the filters and search, across items.
  if (e.key === 'F3' && !e.ctrlKey && !e.metaKey && !e.altKey) {
    e.preventDefault();
    requestNextMatch(e.shiftKey);
    return;
  }
  if ((e.target as HTMLElement).closest('input, textarea')) return;
  // Escape leaves a response list (issue 41 item 4).
  if (e.key === 'Escape' && !e.ctrlKey && !e.metaKey && !e.altKey && s.responses && leaveList()) {
    e.preventDefault();
    return;
  }
  // Space still presses a focused button or chip.
  if (e.key === ' ' && (e.target as HTMLElement).closest('button, vscode-button, summary, a')) return;
  if (['ArrowDown', 'ArrowUp', 'PageDown', 'PageUp', ' '].includes(e.key)) e.preventDefault();
});
window.addEventListener('focus', () => channel.notify('focus', { focused: true }));
window.addEventListener('blur', () => channel.notify('focus', { focused: false }));
for (const [id, command] of [
  ['#cmd-generate', 'generate'],
  ['#cmd-judge', 'judge'],
  ['#cmd-correlation', 'showCorrelation'],
  ['#cmd-agreement', 'showAgreement'],
  ['#cmd-annotator', 'setAnnotator'],
  ['#cmd-blind', 'toggleBlindMode'],
  ['#cmd-compare', 'toggleComparison'],
] as const) {
  $(id).addEventListener('click', () => channel.notify('command', { command }));
}
// The item list as a listbox: arrow keys, Home/End, PageUp/PageDown move the selection while it has focus (kept from
// VS Code's keybindings, where the same keys move between candidates and items).
list.addEventListener('keydown', (e) => {
  if (e.target !== list || e.ctrlKey || e.metaKey || e.altKey) return;
  // Within the items the filter and order list (navigator.ts).
  const shown = listedEntries(s.entries);
  if (shown.length === 0) return;
  const at = Math.max(0, shown.findIndex((x) => x.index === s.selected));
  const page = Math.max(1, Math.floor(list.clientHeight / ROW_HEIGHT) - 1);
  const to: Record<string, number> = { ArrowDown: at + 1, ArrowUp: at - 1, Home: 0, End: shown.length - 1, PageDown: at + page, PageUp: at - page };
  if (!(e.key in to)) return;
  e.preventDefault();
  e.stopPropagation();
  s.focusOnArrival = 'firstIncomplete';
  select(shown[Math.min(shown.length - 1, Math.max(0, to[e.key]))].index);
});
initLayout(vscodeApi(), () => renderList());
// A response list open when the page was dropped (a tab covered the editor) is open again.
renderResponses();
createNavigator({ host: { navigate: (filter, order, dimension) => channel.notify('navigate', { filter, order, ...(dimension ? { dimension } : {}) }), command: (command) => channel.notify('command', { command }) }, onListChange: () => renderList(), nextUnlabelled: () => onAction({ kind: 'nextUnlabelled' }), nextMatch: (back) => requestNextMatch(back) });
renderLegend();
showPending();
milestone('ready');
channel.notify('ready', {});
if (document.hasFocus()) channel.notify('focus', { focused: true });
