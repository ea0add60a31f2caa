/**
 * The questions of a study's own rubric on a candidate card (issue 39 item 3): one row per dimension asked, with the
 * control its type calls for — Yes/No for binary, a chip per point of a Likert scale, a chip per option of a
 * categorical question, toggles (and the most evident mark) for a multi-select, a box for a number or free text.
 * Every chip shows the key that chooses it: a key the dimension declares, else the digit that acts on it while it is
 * the card's active question (src/core/labels/labelKeys.ts `resolveKey`, the one rule for keys and clicks alike).
 * The MI preset is not drawn here: its card is the one it always had (main.ts).
 */
import type { LabelOp } from '../../src/core/labels/annotate';
import { rubricStatus } from '../../src/core/labels/annotate';
import { askedDimensions, declaredKeys, keysOf, rubricKeyLabel } from '../../src/core/labels/labelKeys';
import { dimensionTitle, type Dimension, type Rubric } from '../../src/core/rubric/rubric';
import type { Annotation } from '../../src/core/dialogue/types';
import type { CandidateView } from '../../src/core/labels/annotatorView';
import { el } from '../shared/dom';

/** What a card's controls do (main.ts). */
export interface RubricCardHost {
  /** Sends one label operation for the candidate. */
  send(candidateId: string, op: LabelOp): void;
  /** Makes `dimension` the candidate's active question (and focuses the card without moving DOM focus). */
  activate(candidateId: string, dimension: string): void;
  /** Focus goes back to the card (a text or number box was left). */
  backToCard(candidateId: string, advance: boolean): void;
}

/** Keys typed in a box stay there (VS Code still gets Ctrl/Alt/Meta combinations and keys that type nothing). */
const TEXT_EDITING_KEYS = new Set(['Backspace', 'Delete', 'ArrowLeft', 'ArrowRight', 'ArrowUp', 'ArrowDown', 'Home', 'End', 'Enter', 'Escape', 'Tab', 'PageUp', 'PageDown']);

const kbd = (k: string) => el('kbd', {}, k);

/** The key shown on the n-th (0-based) choice of a dimension: its declared key, else the digit the cursor reads. */
function choiceKey(d: Dimension, i: number): string {
  const declared = declaredKeys(d);
  if (d.type === 'binary') return declared.length ? rubricKeyLabel(declared[i].key) : i === 0 ? 'Y' : 'N';
  const list = d.type === 'ordinal' ? d.points : d.type === 'categorical' || d.type === 'multiSelect' ? d.options : [];
  const own = list[i]?.key;
  if (own !== undefined) return rubricKeyLabel(own);
  if (d.type === 'ordinal' && d.points.every((p) => Number.isInteger(p.value) && p.value >= 0 && p.value <= 9)) return String(d.points[i].value);
  return i < 9 ? String(i + 1) : i === 9 ? '0' : '';
}

/** A value as a summary shows it: the option's or point's label, Yes/No, the text quoted. */
export function valueText(d: Dimension, v: unknown): string {
  if (v === undefined || v === null) return '—';
  switch (d.type) {
    case 'binary':
      return v === true ? (d.labels?.yes ?? 'Yes') : (d.labels?.no ?? 'No');
    case 'ordinal': {
      const p = d.points.find((x) => x.value === v);
      return p?.label ? `${String(v)} (${p.label})` : String(v);
    }
    case 'categorical':
      return d.options.find((o) => o.value === v)?.label ?? String(v);
    case 'multiSelect':
      return Array.isArray(v) ? v.map((x) => d.options.find((o) => o.value === x)?.label ?? String(x)).join(', ') : String(v);
    case 'text':
      return `“${String(v)}”`;
    default:
      return String(v);
  }
}

/** One line for an annotation: every dimension asked that has a value (`Fluency 4 · Relevance 2 · Error type generic`), or `—`. */
export function rubricSummary(rubric: Rubric, a: Annotation | undefined): string {
  if (!a) return '—';
  const parts = askedDimensions(rubric, a)
    .filter((d) => a[d.name] !== undefined)
    .map((d) => {
      const mark = d.type === 'multiSelect' && d.mostEvident && a[d.mostEvident.name] !== undefined ? ` (most evident: ${String(a[d.mostEvident.name])})` : '';
      return `${dimensionTitle(d)} ${valueText(d, a[d.name])}${mark}`;
    });
  return parts.length ? parts.join(' · ') : '—';
}

/** A card's status: `unlabelled`, `partial` or `complete`, and how it reads (the questions still open). */
export function rubricStatusText(rubric: Rubric, a: Annotation | undefined): { status: string; text: string } {
  const { status, missing } = rubricStatus(a, rubric);
  if (status === 'unlabelled') return { status, text: 'not labelled' };
  if (status === 'complete') return { status, text: 'labelled' };
  const titles = missing.map((n) => dimensionTitle(rubric.dimensions.find((d) => d.name === n) ?? { name: n }));
  return { status, text: `still open: ${titles.join(', ')}` };
}

function chip(attrs: Record<string, string>, on: boolean, title: string, ...children: (Node | string)[]): HTMLButtonElement {
  return el('button', { class: `chip${on ? ' on' : ''}`, type: 'button', title, ...attrs }, ...children);
}

/** A box for a number or text: typing stays in it; Enter keeps the value and goes back to the card (and on), Esc restores it. */
function box(c: CandidateView, d: Dimension, value: unknown, host: RubricCardHost): HTMLInputElement {
  const numeric = d.type === 'numeric';
  const input = el('input', {
    class: 'dim-input',
    type: numeric ? 'number' : 'text',
    'data-dimension': d.name,
    'aria-label': dimensionTitle(d),
    placeholder: numeric ? `${d.min}–${d.max}` : `${d.question ?? dimensionTitle(d)} (Enter keeps, Esc returns)`,
    ...(numeric ? { min: String(d.min), max: String(d.max), ...(d.step !== undefined ? { step: String(d.step) } : { step: 'any' }) } : {}),
  });
  const stored = value === undefined || value === null ? '' : String(value);
  input.value = stored;
  const commit = () => {
    if (input.value === stored) return;
    const raw = input.value.trim();
    const v = raw === '' ? null : numeric ? Number(raw) : input.value;
    host.send(c.id, { kind: 'set', dimension: d.name, value: v });
  };
  input.addEventListener('focus', () => host.activate(c.id, d.name));
  input.addEventListener('keydown', (ev) => {
    if (!ev.ctrlKey && !ev.metaKey && !ev.altKey && (ev.key.length === 1 || TEXT_EDITING_KEYS.has(ev.key))) ev.stopPropagation();
    if (ev.key === 'Enter' || ev.key === 'Escape') {
      if (ev.key === 'Escape') input.value = stored;
      else commit();
      ev.preventDefault();
      host.backToCard(c.id, ev.key === 'Enter');
    }
  });
  input.addEventListener('change', commit);
  return input;
}

/** The controls of one dimension for the candidate's own annotation. */
function controls(c: CandidateView, d: Dimension, mine: Annotation | undefined, host: RubricCardHost): HTMLElement[] {
  const v = mine?.[d.name];
  const set = (value: unknown) => () => {
    host.activate(c.id, d.name);
    host.send(c.id, { kind: 'set', dimension: d.name, value: JSON.stringify(v) === JSON.stringify(value) ? null : (value as never) });
  };
  const radio = (on: boolean) => ({ role: 'radio', 'aria-checked': String(on) });
  switch (d.type) {
    case 'binary': {
      const answers: [boolean, string][] = [
        [true, d.labels?.yes ?? 'Yes'],
        [false, d.labels?.no ?? 'No'],
      ];
      return [
        el(
          'div',
          { class: 'chips', role: 'radiogroup', 'aria-label': dimensionTitle(d) },
          ...answers.map(([value, text], i) => {
            const b = chip({ 'data-value': String(value), ...radio(v === value) }, v === value, `${text} (${choiceKey(d, i)})`, kbd(choiceKey(d, i)), ` ${text}`);
            b.addEventListener('click', set(value));
            return b;
          }),
        ),
      ];
    }
    case 'ordinal':
      return [
        el(
          'div',
          { class: 'chips likert', role: 'radiogroup', 'aria-label': dimensionTitle(d) },
          ...d.points.map((p, i) => {
            const b = chip({ 'data-value': String(p.value), ...radio(v === p.value) }, v === p.value, `${p.value}${p.label ? `: ${p.label}` : ''} (${choiceKey(d, i)})`, kbd(choiceKey(d, i)), ...(p.label ? [` ${p.label}`] : String(p.value) === choiceKey(d, i) ? [] : [` ${p.value}`]));
            b.addEventListener('click', set(p.value));
            return b;
          }),
        ),
      ];
    case 'categorical':
      return [
        el(
          'div',
          { class: 'chips', role: 'radiogroup', 'aria-label': dimensionTitle(d) },
          ...d.options.map((o, i) => {
            const b = chip({ 'data-value': o.value, ...radio(v === o.value) }, v === o.value, `${o.label ?? o.value} (${choiceKey(d, i)})`, kbd(choiceKey(d, i)), ` ${o.label ?? o.value}`);
            b.addEventListener('click', set(o.value));
            return b;
          }),
        ),
      ];
    case 'multiSelect': {
      const chosen = Array.isArray(v) ? (v as string[]) : [];
      const marked = d.mostEvident ? (mine?.[d.mostEvident.name] as string | undefined) : undefined;
      const out: HTMLElement[] = [
        el(
          'div',
          { class: 'chips', role: 'group', 'aria-label': dimensionTitle(d) },
          ...d.options.map((o, i) => {
            const on = chosen.includes(o.value);
            const b = chip({ 'data-value': o.value, 'aria-pressed': String(on) }, on, `${o.label ?? o.value} (${choiceKey(d, i)}${d.mostEvident ? `; most evident: Shift+${choiceKey(d, i)}` : ''})`, kbd(choiceKey(d, i)), ` ${o.label ?? o.value}`, ...(on && marked === o.value ? [el('span', { class: 'mee-badge' }, ' ★ most evident')] : []));
            b.addEventListener('click', (ev) => {
              host.activate(c.id, d.name);
              if (ev.shiftKey && d.mostEvident) host.send(c.id, { kind: 'mostEvident', dimension: d.name, option: marked === o.value ? null : o.value });
              else host.send(c.id, { kind: 'toggle', dimension: d.name, option: o.value });
            });
            return b;
          }),
        ),
      ];
      return out;
    }
    case 'numeric':
    case 'text':
      return [box(c, d, v, host)];
  }
}

/**
 * The rubric's questions on a card: a row per dimension asked of the candidate's own annotation (rubric order), the
 * active one marked by {@link markActiveQuestion}.
 */
export function rubricQuestions(rubric: Rubric, c: CandidateView, host: RubricCardHost): HTMLElement {
  const mine = c.mine;
  return el(
    'div',
    { class: 'rubric-questions' },
    ...askedDimensions(rubric, mine).map((d) => {
      const row = el(
        'div',
        { class: `question dimension ${d.type}`, 'data-dimension': d.name, 'data-type': d.type },
        el('div', { class: 'dimension-head' }, el('span', { class: 'dimension-title' }, dimensionTitle(d)), ...(d.question ? [el('span', { class: 'muted dimension-question' }, ` ${d.question}`)] : [])),
        ...controls(c, d, mine, host),
      );
      row.addEventListener('click', (e) => {
        if ((e.target as HTMLElement).closest('button, input')) return;
        host.activate(c.id, d.name);
      });
      return row;
    }),
  );
}

/** Marks the active question's row on the focused card (and no other): a class and `aria-current`. */
export function markActiveQuestion(focusedCard: HTMLElement | null, question: string | null): void {
  for (const row of document.querySelectorAll<HTMLElement>('#candidates .dimension')) {
    const on = !!focusedCard && focusedCard.contains(row) && row.dataset.dimension === question;
    row.classList.toggle('active', on);
    if (on) row.setAttribute('aria-current', 'true');
    else row.removeAttribute('aria-current');
  }
}

/** The legend's parts for the active question of a rubric other than the MI preset. */
export function rubricLegend(rubric: Rubric, question: string | null): (Node | string)[][] {
  const d = rubric.dimensions.find((x) => x.name === question);
  const parts: (Node | string)[][] = [];
  if (d) {
    const title = dimensionTitle(d);
    const n = d.type === 'ordinal' ? d.points.length : d.type === 'categorical' || d.type === 'multiSelect' ? d.options.length : 0;
    if (d.type === 'binary') parts.push([kbd(choiceKey(d, 0)), ' ', kbd(choiceKey(d, 1)), ` ${title}`]);
    else if (n > 0) parts.push([kbd(`${choiceKey(d, 0)}–${choiceKey(d, n - 1)}`), ` ${title}${d.type === 'multiSelect' ? ' (toggle)' : ''}`]);
    else parts.push([kbd(keysOf('reflectEval.label.edit')), ` type ${title}`]);
  }
  // Keys declared by other dimensions act wherever the cursor is.
  for (const x of rubric.dimensions) {
    if (x === d || x.type === 'text') continue;
    const keys = declaredKeys(x);
    if (keys.length) parts.push([kbd(keys.map((k) => rubricKeyLabel(k.key)).join(' ')), ` ${dimensionTitle(x)}`]);
  }
  parts.push([kbd(keysOf('reflectEval.label.previousQuestion')), ' ', kbd(keysOf('reflectEval.label.nextQuestion')), ' question']);
  return parts;
}
