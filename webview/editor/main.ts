/**
 * The dialogue editor's webview: item list (virtualised, usable at 10,000 items), the selected context as a
 * transcript, the reference, and the candidates with their origin, labels and scores. It holds no document
 * state of its own: every change is sent to the host, which edits the TextDocument and re-renders us.
 */
import '@vscode-elements/elements/dist/vscode-button/index.js';
import '@vscode-elements/elements/dist/vscode-badge/index.js';
import type { Candidate, DialogueItem } from '../../src/core/model/types';
import type { EditorHostMessage, EditorWebviewMessage, ItemEntry, ProblemEntry } from './protocol';

declare function acquireVsCodeApi(): { postMessage(msg: unknown): void; getState(): unknown; setState(s: unknown): void };
const vscode = acquireVsCodeApi();
const post = (msg: EditorWebviewMessage) => vscode.postMessage(msg);

const ROW_HEIGHT = 28;
let entries: ItemEntry[] = [];
let problems: ProblemEntry[] = [];
let annotator: string | null = null;
let selected = (vscode.getState() as { selected?: number } | undefined)?.selected ?? 0;
let current: { index: number; item: DialogueItem } | null = null;
/** The candidate whose judge prompt the preview panel shows. */
let focused: string | null = null;

const $ = <T extends HTMLElement>(sel: string) => document.querySelector(sel) as T;
const list = $('#item-list');
const spacer = $('#item-list-spacer');
const rows = $('#item-list-rows');

function el<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Record<string, string> = {}, ...children: (Node | string)[]): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  for (const c of children) e.append(c);
  return e;
}

function renderList(): void {
  spacer.style.height = `${entries.length * ROW_HEIGHT}px`;
  const first = Math.max(0, Math.floor(list.scrollTop / ROW_HEIGHT) - 5);
  const last = Math.min(entries.length, first + Math.ceil(list.clientHeight / ROW_HEIGHT) + 10);
  rows.style.transform = `translateY(${first * ROW_HEIGHT}px)`;
  rows.replaceChildren(
    ...entries.slice(first, last).map((e) => {
      const row = el(
        'div',
        { class: `item-row${e.index === selected ? ' selected' : ''}`, 'data-item-index': String(e.index), title: e.id, role: 'option', 'aria-selected': String(e.index === selected) },
        el('span', { class: 'item-label' }, e.label),
        el('span', { class: 'item-count' }, `${e.labelled}/${e.candidates}`),
      );
      row.addEventListener('click', () => select(e.index));
      return row;
    }),
  );
}

function select(index: number): void {
  if (index < 0 || index >= entries.length) return;
  if (index !== selected) focused = null;
  selected = index;
  vscode.setState({ selected });
  renderList();
  const top = index * ROW_HEIGHT;
  if (top < list.scrollTop || top > list.scrollTop + list.clientHeight - ROW_HEIGHT) list.scrollTop = top - list.clientHeight / 2;
  post({ type: 'select', index });
}

function originText(c: Candidate): string {
  const o = c.origin;
  if (o.kind === 'human') return o.source ?? 'human';
  const d = o.decoding;
  const params = d ? [d.strategy, d.numBeams ? `beams=${d.numBeams}` : '', d.topP !== undefined ? `p=${d.topP}` : '', d.sampleIndex !== undefined ? `#${d.sampleIndex}` : ''].filter(Boolean).join(' ') : '';
  return `${o.kind}: ${o.model ?? o.source ?? '?'}${params ? ` · ${params}` : ''}`;
}

function scoreText(id: string, s: { value: number | null; status: string; expected?: number }): string {
  const v = s.status === 'ok' ? String(s.value) : s.status;
  return `${id.replace(/@[0-9a-f]{12}$/, '')}: ${v}${s.expected !== undefined ? ` (E=${s.expected.toFixed(2)})` : ''}`;
}

function renderCandidate(c: Candidate, index: number, itemId: string): HTMLElement {
  const mine = annotator ? c.annotations.find((a) => a.annotator === annotator) : undefined;
  const state = mine?.coherent === true ? 'yes' : mine?.coherent === false ? 'no' : 'none';
  const others = c.annotations.filter((a) => a.annotator !== annotator && typeof a.coherent === 'boolean').length;
  const yes = el('vscode-button', { 'data-action': 'coherent-yes', ...(state === 'yes' ? {} : { secondary: '' }), title: 'Coherent and consistent with the dialogue' }, 'Coherent');
  const no = el('vscode-button', { 'data-action': 'coherent-no', ...(state === 'no' ? {} : { secondary: '' }), title: 'Incoherent or inconsistent' }, 'Incoherent');
  const send = (coherent: boolean) => () => {
    if (!annotator) {
      post({ type: 'command', command: 'setAnnotator' });
      return;
    }
    const next = (coherent && state === 'yes') || (!coherent && state === 'no') ? null : coherent;
    post({ type: 'setCoherence', index, itemId, candidateId: c.id, coherent: next });
  };
  yes.addEventListener('click', send(true));
  no.addEventListener('click', send(false));
  const scores = Object.entries(c.scores ?? {});
  const card = el(
    'div',
    { class: `candidate${c.id === focused ? ' focused' : ''}`, 'data-candidate-id': c.id, 'data-coherent': state, title: 'Click to preview judge prompts for this candidate' },
    el('div', { class: 'candidate-text' }, c.text || '(empty)'),
    el('div', { class: 'candidate-origin' }, originText(c)),
    el('div', { class: 'candidate-actions' }, yes, no, el('span', { class: 'muted' }, others ? `${others} other annotator(s) labelled this` : '')),
    ...(scores.length ? [el('ul', { class: 'scores' }, ...scores.map(([id, s]) => el('li', { title: s.raw ? `raw reply: ${s.raw}` : '' }, scoreText(id, s))))] : []),
  );
  card.addEventListener('click', (e) => {
    if ((e.target as HTMLElement).closest('vscode-button')) return;
    focused = c.id;
    document.querySelectorAll('.candidate.focused').forEach((x) => x.classList.remove('focused'));
    card.classList.add('focused');
    post({ type: 'focusCandidate', index, candidateId: c.id });
  });
  return card;
}

function renderItem(): void {
  const main = $('#item');
  if (!current) {
    main.replaceChildren(el('p', { class: 'muted' }, entries.length ? 'Select an item.' : 'This file has no items yet.'));
    return;
  }
  const { item, index } = current;
  const p = item.provenance;
  main.replaceChildren(
    el('h2', {}, item.id),
    el('div', { class: 'muted' }, p ? [p.dataset, p.topic, p.miQuality ? `MI quality: ${p.miQuality}` : ''].filter(Boolean).join(' · ') : ''),
    el('h3', {}, `Context (${item.context.length} turns)`),
    el(
      'div',
      { id: 'transcript' },
      ...item.context.map((t) => el('div', { class: `turn ${t.speaker}` }, el('span', { class: 'speaker' }, t.speaker === 'therapist' ? 'Therapist' : 'Client'), el('span', { class: 'text' }, t.text))),
    ),
    ...(item.reference ? [el('h3', {}, `Reference${item.reference.behaviour ? ` (${item.reference.behaviour})` : ''}`), el('div', { id: 'reference', class: 'turn therapist' }, item.reference.text)] : []),
    el('h3', {}, `Candidates (${item.candidates.length})`),
    el('div', { id: 'candidates' }, ...item.candidates.map((c) => renderCandidate(c, index, item.id))),
  );
  const transcript = $('#transcript');
  transcript.scrollTop = transcript.scrollHeight;
}

function renderHeader(): void {
  $('#annotator').textContent = annotator ? `Annotator: ${annotator}` : 'No annotator set';
  const box = $('#problems');
  box.hidden = problems.length === 0;
  box.replaceChildren(
    el('strong', {}, `${problems.length} line(s) could not be read and are kept as they are:`),
    el('ul', {}, ...problems.slice(0, 20).map((p) => el('li', {}, `line ${p.line}${p.field ? `, ${p.field}` : ''}: ${p.message}`))),
  );
}

window.addEventListener('message', (event: MessageEvent<EditorHostMessage>) => {
  const msg = event.data;
  switch (msg.type) {
    case 'index':
      entries = msg.entries;
      problems = msg.problems;
      annotator = msg.annotator;
      $('#file').textContent = msg.file;
      renderHeader();
      if (selected >= entries.length) selected = Math.max(0, entries.length - 1);
      renderList();
      if (entries.length) post({ type: 'select', index: selected });
      else {
        current = null;
        renderItem();
      }
      break;
    case 'item':
      if (msg.index === selected) {
        current = { index: msg.index, item: msg.item };
        renderItem();
      }
      break;
    case 'busy':
      $('#busy').textContent = msg.message ?? '';
      break;
  }
});

list.addEventListener('scroll', () => renderList());
window.addEventListener('resize', () => renderList());
window.addEventListener('keydown', (e) => {
  if ((e.target as HTMLElement).closest('input, textarea')) return;
  if (e.key === 'j' || e.key === 'ArrowDown') select(selected + 1);
  else if (e.key === 'k' || e.key === 'ArrowUp') select(selected - 1);
  else return;
  e.preventDefault();
});
for (const [id, command] of [
  ['#cmd-generate', 'generate'],
  ['#cmd-judge', 'judge'],
  ['#cmd-correlation', 'showCorrelation'],
  ['#cmd-annotator', 'setAnnotator'],
] as const) {
  $(id).addEventListener('click', () => post({ type: 'command', command }));
}
post({ type: 'ready' });
