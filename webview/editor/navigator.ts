/**
 * The item list's navigation bar (issue 18 item 3; the plan order: issue 16 item 3): search, filters, order,
 * "next unlabelled" and labelling progress. The host computes which items are listed (core's rules); this module
 * only shows the controls, sends the choice, and maps list positions to item indices for the item list and the
 * item keys. Blind mode: the origin and judge-vs-humans filters are not offered, and the bar says so.
 */
import type { ItemFilter } from '../../src/core/navigation/itemNavigation';
import { keysOf } from '../../src/core/labels/labelKeys';
import { el } from '../shared/dom';
import type { CandidateMarks, EditorCommand, ItemEntry, ListOrder, NavigatorState } from './protocol';

/** What the bar tells the host: the list's filter and order, and a command (Plan Labels…). */
interface NavigatorHost {
  navigate(filter: ItemFilter, order: ListOrder, dimension?: string): void;
  command(command: EditorCommand): void;
}

let state: NavigatorState | null = null;
/** List position of each listed item index (null: every item, in file order). */
let positions: Map<number, number> | null = null;
let host: NavigatorHost = { navigate: () => undefined, command: () => undefined };
let onListChange: () => void = () => undefined;
let requestNextUnlabelled: () => void = () => undefined;
let filter: ItemFilter = {};
let order: ListOrder = 'file';
/** The current dimension (a study's own rubric; absent: the rubric's primary). */
let dimension: string | undefined;

const byId = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;

function send(): void {
  host.navigate(filter, order, dimension);
}

/** Keys typed in the search field stay there (VS Code still gets Ctrl/Alt/Meta combinations and F-keys). */
function keepKeys(ev: KeyboardEvent): void {
  if (!ev.ctrlKey && !ev.metaKey && !ev.altKey && (ev.key.length === 1 || ['Backspace', 'Delete', 'ArrowLeft', 'ArrowRight', 'ArrowUp', 'ArrowDown', 'Home', 'End', 'Enter', 'Escape', 'Tab', 'PageUp', 'PageDown'].includes(ev.key))) ev.stopPropagation();
}

/**
 * Builds the bar above the item list and the item (once).
 *
 * @param options.onListChange - called when the listed items change (re-render the list)
 * @param options.nextUnlabelled - "next unlabelled" (the button; the key arrives as an action)
 */
export function createNavigator(options: { host: NavigatorHost; onListChange: () => void; nextUnlabelled: () => void; nextMatch: (back: boolean) => void }): void {
  host = options.host;
  onListChange = options.onListChange;
  requestNextUnlabelled = options.nextUnlabelled;
  if (byId('navigator')) return;
  const search = el('input', { id: 'nav-search', type: 'search', placeholder: 'Search context and candidates', 'aria-label': 'Search items: words in the context or a candidate' });
  let timer: ReturnType<typeof setTimeout> | undefined;
  search.addEventListener('keydown', (ev) => {
    keepKeys(ev);
    if (ev.key === 'Escape' && search.value) {
      search.value = '';
      filter = { ...filter, text: undefined };
      send();
    }
    // Enter (Shift+Enter back) reaches the next candidate that matches, across items, as F3 does anywhere in the editor.
    if (ev.key === 'Enter') {
      ev.preventDefault();
      const text = search.value.trim() || undefined;
      if (text !== filter.text) {
        clearTimeout(timer);
        filter = { ...filter, text };
        send();
      }
      options.nextMatch(ev.shiftKey);
    }
  });
  search.addEventListener('input', () => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      filter = { ...filter, text: search.value.trim() || undefined };
      send();
    }, 150);
  });
  const mine = el(
    'select',
    { id: 'nav-mine', 'aria-label': 'Labelled by you' },
    el('option', { value: '' }, 'labelled or not'),
    el('option', { value: 'unlabelled' }, 'unlabelled by me'),
    el('option', { value: 'labelled' }, 'labelled by me'),
  );
  mine.addEventListener('change', () => {
    filter = { ...filter, mine: (mine.value || undefined) as ItemFilter['mine'] };
    send();
  });
  const origin = el('select', { id: 'nav-origin', 'aria-label': 'Origin of a candidate' }, el('option', { value: '' }, 'any origin'));
  origin.addEventListener('change', () => {
    filter = { ...filter, origin: origin.value || undefined };
    send();
  });
  const check = (id: string, text: string, title: string, key: 'annotatorsDisagree' | 'judgeHumansDisagree') => {
    const box = el('input', { id, type: 'checkbox' });
    box.addEventListener('change', () => {
      filter = { ...filter, [key]: box.checked || undefined };
      send();
    });
    return el('label', { class: 'nav-check', title, id: `${id}-label` }, box, ` ${text}`);
  };
  const orderSelect = el('select', { id: 'nav-order', 'aria-label': 'Order of the item list' }, el('option', { value: 'file' }, 'file order'), el('option', { value: 'plan' }, 'plan: next to label first'));
  orderSelect.addEventListener('change', () => {
    order = orderSelect.value as ListOrder;
    send();
  });
  const next = el('button', { id: 'nav-next-unlabelled', type: 'button', class: 'nav-button', title: `Go to the next candidate you have not labelled in the current dimension that matches the filters and search, in list order (plan order: the plan's drawn candidates first), wrapping around (${keysOf('reflectEval.label.nextUnlabelled')})` }, `Next unlabelled (${keysOf('reflectEval.label.nextUnlabelled')})`);
  next.addEventListener('click', () => requestNextUnlabelled());
  // The dimension "labelled" is about (issue 39 item 3): offered for a study's own rubric only.
  const dimensionSelect = el('select', { id: 'nav-dimension', 'aria-label': 'The dimension “labelled”, the labelled filter, next unlabelled and progress count', hidden: '' });
  dimensionSelect.addEventListener('change', () => {
    dimension = dimensionSelect.value || undefined;
    send();
  });
  const planButton = el('button', { id: 'nav-plan-labels', type: 'button', class: 'nav-button', hidden: '' }, 'Plan Labels…');
  planButton.addEventListener('click', () => host.command('planLabels'));
  const bar = el(
    'div',
    { id: 'navigator', role: 'search', 'aria-label': 'Find items' },
    el(
      'div',
      { class: 'nav-row' },
      search,
      mine,
      origin,
      check('nav-annotators-disagree', 'annotators disagree', 'Items with a candidate to which annotators gave different coherence answers', 'annotatorsDisagree'),
      check('nav-judge-disagree', 'judge ≠ humans', 'Items with a candidate whose judge score lies on the other side of its scale’s midpoint ((min + max) / 2) from the human majority’s coherence answer (a score on the midpoint, or a tied majority, is no disagreement)', 'judgeHumansDisagree'),
      el('span', { id: 'nav-blind-note', class: 'muted', hidden: '' }, 'Blind: origin and judge filters are hidden'),
      el('span', { class: 'spacer' }),
      orderSelect,
    ),
    el('div', { class: 'nav-row' }, next, el('span', { id: 'nav-count', class: 'muted', role: 'status' }), dimensionSelect, el('span', { id: 'nav-progress' }), el('span', { id: 'nav-plan', class: 'muted' }), planButton),
  );
  const layout = byId('layout');
  layout.before(bar);
}

/** Applies the host's state: controls, counts, progress, plan line; re-renders the list when the listed items changed. */
export function updateNavigator(next: NavigatorState, total: number, annotator: string | null, preset = true): void {
  const before = JSON.stringify(state?.shown ?? null);
  state = next;
  filter = { ...next.filter };
  order = next.order;
  positions = next.shown ? new Map(next.shown.map((index, pos) => [index, pos])) : null;
  const search = byId<HTMLInputElement>('nav-search');
  if (document.activeElement !== search) search.value = next.filter.text ?? '';
  byId<HTMLSelectElement>('nav-mine').value = next.filter.mine ?? '';
  const origin = byId<HTMLSelectElement>('nav-origin');
  origin.replaceChildren(el('option', { value: '' }, 'any origin'), ...next.origins.map((o) => el('option', { value: o }, o)));
  origin.value = next.filter.origin ?? '';
  origin.hidden = next.blind;
  byId<HTMLInputElement>('nav-annotators-disagree').checked = !!next.filter.annotatorsDisagree;
  byId<HTMLInputElement>('nav-judge-disagree').checked = !!next.filter.judgeHumansDisagree;
  byId('nav-judge-disagree-label').hidden = next.blind;
  const note = byId('nav-blind-note');
  note.hidden = !next.blind;
  note.title = 'Blind mode hides origins and scores, so the item list offers no filter by origin or by judge scores, and the plan’s estimate is hidden.';
  byId<HTMLSelectElement>('nav-order').value = next.order;
  // The button counts what it reaches: the candidates to go by the rule for U.
  byId('nav-next-unlabelled').textContent = `Next unlabelled (${keysOf('reflectEval.label.nextUnlabelled')})${next.toGo === null ? '' : ` · ${next.toGo} to go`}`;
  byId('nav-next-unlabelled').dataset.toGo = next.toGo === null ? '' : String(next.toGo);
  const shown = next.shown ? next.shown.length : total;
  byId('nav-count').textContent = shown === total ? `${total} item${total === 1 ? '' : 's'}` : `${shown} of ${total} items`;
  const p = next.progress;
  const progress = byId('nav-progress');
  const me = p.mine === null ? null : annotator;
  const others = p.annotators.filter((a) => a.annotator !== me);
  const dimensionSelect = byId<HTMLSelectElement>('nav-dimension');
  dimensionSelect.hidden = preset || next.dimensions.length < 2;
  if (!preset) {
    dimension = next.dimension;
    dimensionSelect.replaceChildren(...next.dimensions.map((d) => el('option', { value: d.name }, d.title)));
    dimensionSelect.value = next.dimension;
  }
  const current = next.dimensions.find((d) => d.name === next.dimension)?.title ?? next.dimension;
  // With the dimension picker shown, it names the dimension the counts are of.
  progress.textContent = `${preset ? 'Labelled: ' : dimensionSelect.hidden ? `${current}: ` : ''}${p.mine === null ? 'no annotator set' : `you ${p.mine}/${p.candidates}`}${others.length ? ` · ${others.map((a) => `${a.annotator} ${a.labelled}/${p.candidates}`).join(' · ')}` : ''}`;
  // Outside the MI preset, the viewing annotator's progress on every dimension (labelled / asked).
  if (!preset && p.dimensions?.length) progress.append(el('span', { id: 'nav-dimensions', class: 'muted' }, ` · per dimension: ${p.dimensions.map((d) => `${d.title} ${d.labelled}/${d.asked}`).join(' · ')}`));
  progress.title = [
    preset ? 'Labelled (coherence answered) / candidates in the file, per annotator:' : `Labelled in ${current} / candidates in the file, per annotator:`,
    ...p.annotators.map((a) => `${a.annotator}${a.annotator === me ? ' (you)' : ''}: ${a.labelled}/${p.candidates}`),
    ...(!preset && p.dimensions?.length ? ['', 'You, per dimension (labelled / asked):', ...p.dimensions.map((d) => `${d.title}: ${d.labelled}/${d.asked}`)] : []),
  ].join('\n');
  const plan = byId('nav-plan');
  const planButton = byId('nav-plan-labels');
  if (!next.plan) {
    plan.textContent = '';
    plan.title = '';
    planButton.hidden = true;
  } else if ('error' in next.plan) {
    plan.textContent = `Plan: ${next.plan.error}`;
    plan.title = next.plan.error;
    planButton.hidden = false;
  } else {
    plan.textContent = `Plan: ${next.plan.text}`;
    plan.title = `${next.plan.title}${next.drawn ? `\n${next.drawn} candidate${next.drawn === 1 ? '' : 's'} drawn and waiting for your label (marked “drawn by the plan”; next unlabelled goes to them first)` : ''}`;
    planButton.hidden = true;
  }
  if (next.dropped.length) plan.textContent += ' (blind mode dropped the origin / judge filters)';
  if (JSON.stringify(next.shown) !== before) onListChange();
}

/** The entries the item list shows, in list order. */
export function listedEntries(entries: readonly ItemEntry[]): readonly ItemEntry[] {
  if (!state?.shown) return entries;
  return state.shown.map((i) => entries[i]).filter((e): e is ItemEntry => e !== undefined);
}

/** The list position of an item index (-1 when the filter hides it). */
export function listPosition(index: number): number {
  if (!positions) return index;
  return positions.get(index) ?? -1;
}

/**
 * The item index `delta` rows away from `index` in the list (next/previous item, past a candidate end); undefined
 * past either end. From an item the filter hides: the first (or last) listed item.
 */
export function neighbour(entries: readonly ItemEntry[], index: number, delta: 1 | -1): number | undefined {
  const list = listedEntries(entries);
  const at = listPosition(index);
  if (at < 0) return (delta > 0 ? list[0] : list[list.length - 1])?.index;
  return list[at + delta]?.index;
}

/** The lower-cased words of the active search (empty: none), which the item highlights. */
export function searchWords(): string[] {
  return (filter.text ?? '').toLowerCase().split(/\s+/).filter(Boolean);
}

/** `text` with every occurrence of the search words (ignoring case) in a `<mark class="search-hit">`. */
export function highlighted(text: string, words: readonly string[] = searchWords()): (Node | string)[] {
  if (!words.length || !text) return [text];
  const lower = text.toLowerCase();
  const hits: [number, number][] = [];
  for (const w of words) for (let i = lower.indexOf(w); i >= 0; i = lower.indexOf(w, i + 1)) hits.push([i, i + w.length]);
  if (!hits.length) return [text];
  hits.sort((a, b) => a[0] - b[0] || b[1] - a[1]);
  const out: (Node | string)[] = [];
  let at = 0;
  for (const [from, to] of hits) {
    if (to <= at) continue;
    const start = Math.max(from, at);
    if (start > at) out.push(text.slice(at, start));
    out.push(el('mark', { class: 'search-hit' }, text.slice(start, to)));
    at = to;
  }
  if (at < text.length) out.push(text.slice(at));
  return out;
}

/** A card's classes from its marks: `unmatched` (dimmed: not matching the filters or search), `drawn` (the plan drew it). */
export function markClasses(marks: CandidateMarks | undefined): string {
  return `${marks?.unmatched ? ' unmatched' : ''}${marks?.drawn ? ' drawn' : ''}`;
}

/** Badges for a candidate's marks (hover: who and which judge; why it is dimmed; the plan's draw). */
export function markBadges(marks: CandidateMarks | undefined): HTMLElement[] {
  if (!marks) return [];
  const out: HTMLElement[] = [];
  if (marks.drawn) out.push(el('span', { class: 'mark drawn-mark', title: marks.drawn, 'aria-label': marks.drawn }, 'drawn by the plan'));
  if (marks.unmatched) out.push(el('span', { class: 'mark unmatched-mark', title: marks.unmatched, 'aria-label': marks.unmatched }, 'filtered out'));
  if (marks.annotatorsDisagree) out.push(el('span', { class: 'mark annotators-disagree', title: marks.annotatorsDisagree, 'aria-label': marks.annotatorsDisagree }, 'annotators disagree'));
  if (marks.judgeHumansDisagree) out.push(el('span', { class: 'mark judge-disagree', title: marks.judgeHumansDisagree, 'aria-label': marks.judgeHumansDisagree }, 'judge ≠ humans'));
  return out.length ? [el('div', { class: 'marks' }, ...out)] : [];
}
