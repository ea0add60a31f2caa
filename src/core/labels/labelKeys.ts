/**
 * The labelling keys and the key → label rule, for any rubric (issue 39 item 3). Two layers:
 *
 * - **VS Code keybindings → editor actions.** A small set of generic commands (`LABEL_COMMANDS`): one for every
 *   rubric key (`reflectEval.label.key`, the key as its argument), one for a multi-select's most evident option
 *   (`reflectEval.label.mark`), clear, the question cursor, and moving between candidates and items. Their default
 *   keybindings (`DEFAULT_KEYBINDINGS`: every letter and digit a rubric may use, with Shift for the mark) are
 *   contributed in package.json `contributes.keybindings`, kept equal to this table by a unit test, so users rebind
 *   them in Keyboard Shortcuts (a keybinding to `reflectEval.label.key` with `{"key": "y"}` types the rubric's
 *   `y`). The commands of the MI preset before rubrics (`reflectEval.label.coherent`, `option1`…, `mostEvident1`…)
 *   are still registered, as the keys they were, so keybindings written for them keep working.
 * - **An editor action → a label operation** ({@link resolveKey}): the rubric decides. A key a dimension declares
 *   (`keys`, a point's or option's `key`) acts on that dimension when it is asked; a key no dimension declares acts on
 *   the focused card's *active question* (the cursor, moved with ←/→): digits rate a Likert scale, choose or toggle
 *   the n-th option, start a number; Y/N (or 1/0) answer a binary question; and the cursor moves on to the next
 *   question after a single answer. The MI preset declares every key, so its keys do what they always did (`Y`,
 *   `N`, `1`–`6` as errors after No and empathy after Yes, `Shift+1`–`6` the most evident error, `⌫` the coherence
 *   answer).
 *
 * One rule for both places a key is applied: the extension host, from the document (src/extension/editor/
 * controller.ts), and the dialogue editor's webview, from what it shows (webview/editor/main.ts). Pure data and
 * functions: the `when` clause and context key of the keybindings are the extension's (src/extension/labelKeybindings.ts).
 */
import type { Annotation } from '../dialogue/types';
import { MI_RUBRIC } from '../rubric/presets';
import { RUBRIC_KEY_CHARACTERS, dimensionTitle, type Dimension, type Rubric } from '../rubric/rubric';
import { conditionHolds, couldBeAsked, miLabelOpOf, needsLabel, type LabelOp } from './annotate';

/** What a labelling key does in the editor. */
export type EditorAction =
  /** A rubric key (one character, lower case): a declared key's dimension, else the active question's. */
  | { kind: 'key'; key: string }
  /** Shift + a rubric key: mark a multi-select's most evident option. */
  | { kind: 'mark'; key: string }
  /** Clear the active question's answer (the MI preset: the coherence answer). */
  | { kind: 'clear' }
  /** Move the active question to the next / previous question asked of the focused candidate. */
  | { kind: 'nextQuestion' }
  | { kind: 'previousQuestion' }
  /** Type into the active question's text or number box. */
  | { kind: 'edit' }
  | { kind: 'nextCandidate' }
  | { kind: 'previousCandidate' }
  | { kind: 'nextItem' }
  | { kind: 'previousItem' }
  /** The next candidate, in list order, that passes the filters and that the annotator has not labelled in the current dimension. */
  | { kind: 'nextUnlabelled' }
  // The MI preset's commands before rubrics, kept as the keys they were (`y`, `n`, the digit; Shift + the digit).
  | { kind: 'coherent' }
  | { kind: 'incoherent' }
  | { kind: 'option'; n: number }
  | { kind: 'mostEvident'; n: number };

/** A label action in its generic form: a key, a mark, or clear. */
export type KeyAction = Extract<EditorAction, { kind: 'key' | 'mark' | 'clear' }>;

/** The actions that change the focused candidate's label (the others move focus or the cursor). */
export type LabelAction = Extract<EditorAction, { kind: 'key' | 'mark' | 'clear' | 'coherent' | 'incoherent' | 'option' | 'mostEvident' }>;

/** Whether `action` changes a label rather than moving focus. */
export function isLabelAction(action: EditorAction): action is LabelAction {
  return ['key', 'mark', 'clear', 'coherent', 'incoherent', 'option', 'mostEvident'].includes(action.kind);
}

/** A label action in its generic form (the MI preset's old actions as the keys they were). */
export function keyActionOf(action: LabelAction): KeyAction {
  switch (action.kind) {
    case 'coherent':
      return { kind: 'key', key: 'y' };
    case 'incoherent':
      return { kind: 'key', key: 'n' };
    case 'option':
      return { kind: 'key', key: String(action.n) };
    case 'mostEvident':
      return { kind: 'mark', key: String(action.n) };
    default:
      return action;
  }
}

/** One labelling command. */
export interface LabelCommand {
  /** VS Code command id. */
  command: string;
  /** Command title (category "ReflectEval"). */
  title: string;
  /** The action it runs, from the keybinding's `args` (null: the arguments name no key). */
  action: (args: unknown) => EditorAction | null;
}

/** One default keybinding, in package.json syntax. */
export interface DefaultKeybinding {
  command: string;
  key: string;
  args?: { key: string };
}

/** The rubric key a keybinding's `args` name: `{"key": "y"}` or `"y"`, one letter or digit. */
export function keyArgument(args: unknown): string | null {
  const raw = typeof args === 'string' ? args : typeof args === 'object' && args !== null ? (args as { key?: unknown }).key : undefined;
  return typeof raw === 'string' && [...raw].length === 1 ? raw.toLowerCase() : null;
}

const fixed = (action: EditorAction) => () => action;

/** Every labelling command (contributed in package.json with these titles). */
export const LABEL_COMMANDS: readonly LabelCommand[] = [
  {
    command: 'reflectEval.label.key',
    title: 'Label: Rubric Key (the key as argument)',
    action: (args) => {
      const key = keyArgument(args);
      return key ? { kind: 'key', key } : null;
    },
  },
  {
    command: 'reflectEval.label.mark',
    title: 'Label: Mark the Most Evident Option (the key as argument)',
    action: (args) => {
      const key = keyArgument(args);
      return key ? { kind: 'mark', key } : null;
    },
  },
  { command: 'reflectEval.label.clear', title: 'Label: Clear the Active Question (the Coherence Answer in the MI Preset)', action: fixed({ kind: 'clear' }) },
  { command: 'reflectEval.label.nextQuestion', title: 'Label: Next Question of the Candidate', action: fixed({ kind: 'nextQuestion' }) },
  { command: 'reflectEval.label.previousQuestion', title: 'Label: Previous Question of the Candidate', action: fixed({ kind: 'previousQuestion' }) },
  { command: 'reflectEval.label.edit', title: 'Label: Type the Active Question’s Text or Number', action: fixed({ kind: 'edit' }) },
  { command: 'reflectEval.label.nextCandidate', title: 'Label: Next Candidate', action: fixed({ kind: 'nextCandidate' }) },
  { command: 'reflectEval.label.previousCandidate', title: 'Label: Previous Candidate', action: fixed({ kind: 'previousCandidate' }) },
  { command: 'reflectEval.label.nextItem', title: 'Label: Next Item', action: fixed({ kind: 'nextItem' }) },
  { command: 'reflectEval.label.previousItem', title: 'Label: Previous Item', action: fixed({ kind: 'previousItem' }) },
  { command: 'reflectEval.label.nextUnlabelled', title: 'Label: Next Unlabelled Candidate', action: fixed({ kind: 'nextUnlabelled' }) },
];

/**
 * The MI preset's commands before rubrics: registered (not contributed), each as the key it was, so keybindings a
 * user wrote for them keep working.
 */
export const LEGACY_LABEL_COMMANDS: readonly { command: string; action: EditorAction }[] = [
  { command: 'reflectEval.label.coherent', action: { kind: 'coherent' } },
  { command: 'reflectEval.label.incoherent', action: { kind: 'incoherent' } },
  ...[1, 2, 3, 4, 5, 6].map((n) => ({ command: `reflectEval.label.option${n}`, action: { kind: 'option', n } as const })),
  ...[1, 2, 3, 4, 5, 6].map((n) => ({ command: `reflectEval.label.mostEvident${n}`, action: { kind: 'mostEvident', n } as const })),
];

/**
 * The default keybindings: every rubric key character to `reflectEval.label.key` (and with Shift to
 * `reflectEval.label.mark`), then the editor's own keys — exactly the keys of the MI preset before rubrics, and the
 * question cursor on ←/→ and Enter.
 */
export const DEFAULT_KEYBINDINGS: readonly DefaultKeybinding[] = [
  ...RUBRIC_KEY_CHARACTERS.map((c) => ({ command: 'reflectEval.label.key', key: c, args: { key: c } })),
  ...RUBRIC_KEY_CHARACTERS.map((c) => ({ command: 'reflectEval.label.mark', key: `shift+${c}`, args: { key: c } })),
  { command: 'reflectEval.label.clear', key: 'backspace' },
  { command: 'reflectEval.label.clear', key: 'delete' },
  { command: 'reflectEval.label.nextQuestion', key: 'right' },
  { command: 'reflectEval.label.previousQuestion', key: 'left' },
  { command: 'reflectEval.label.edit', key: 'enter' },
  { command: 'reflectEval.label.nextCandidate', key: 'j' },
  { command: 'reflectEval.label.nextCandidate', key: 'down' },
  { command: 'reflectEval.label.previousCandidate', key: 'k' },
  { command: 'reflectEval.label.previousCandidate', key: 'up' },
  { command: 'reflectEval.label.nextItem', key: 'shift+j' },
  { command: 'reflectEval.label.nextItem', key: 'pagedown' },
  { command: 'reflectEval.label.previousItem', key: 'shift+k' },
  { command: 'reflectEval.label.previousItem', key: 'pageup' },
  { command: 'reflectEval.label.nextUnlabelled', key: 'u' },
];

/** A key in package.json syntax as the legend shows it, e.g. `shift+1` → `Shift+1`, `down` → `↓`. */
export function keyLabel(key: string): string {
  const names: Record<string, string> = { down: '↓', up: '↑', left: '←', right: '→', pagedown: 'PgDn', pageup: 'PgUp', backspace: '⌫', delete: 'Del', enter: 'Enter' };
  return key
    .split('+')
    .map((k) => names[k] ?? (k.length === 1 ? k.toUpperCase() : k[0].toUpperCase() + k.slice(1)))
    .join('+');
}

/**
 * The default keys of a command as the legend shows them, e.g. `J / ↓`; for a rubric key, `{key}` names it (`Y`). A
 * command of the MI preset before rubrics reads as the key it is (`reflectEval.label.coherent` → `Y`,
 * `mostEvident2` → `Shift+2`), as the legend and tooltips showed it then.
 */
export function keysOf(command: string, args?: { key: string }): string {
  const legacy = args ? undefined : LEGACY_LABEL_COMMANDS.find((k) => k.command === command);
  if (legacy && isLabelAction(legacy.action)) {
    const key = keyActionOf(legacy.action);
    if (key.kind !== 'clear') return keysOf(key.kind === 'mark' ? 'reflectEval.label.mark' : 'reflectEval.label.key', { key: key.key });
  }
  return DEFAULT_KEYBINDINGS.filter((k) => k.command === command && (!args || k.args?.key === args.key))
    .map((k) => keyLabel(k.key))
    .join(' / ');
}

/** A rubric key as the legend shows it (`y` → `Y`). */
export function rubricKeyLabel(key: string): string {
  return key.toUpperCase();
}

/** The keys a dimension declares, each with what it does. */
export function declaredKeys(d: Dimension): { key: string; value: boolean | number | string | null }[] {
  const low = (k: string | undefined) => k?.toLowerCase();
  switch (d.type) {
    case 'binary':
      return d.keys ? [{ key: low(d.keys.yes)!, value: true }, { key: low(d.keys.no)!, value: false }] : [];
    case 'ordinal':
      return d.points.filter((p) => p.key !== undefined).map((p) => ({ key: low(p.key)!, value: p.value }));
    case 'categorical':
    case 'multiSelect':
      return d.options.filter((o) => o.key !== undefined).map((o) => ({ key: low(o.key)!, value: o.value }));
    case 'text':
      return d.key !== undefined ? [{ key: low(d.key)!, value: null }] : [];
    default:
      return [];
  }
}

/** Whether some dimension of `rubric` declares `key` (such a key is decided from the document, wherever the cursor is). */
export function isDeclaredKey(rubric: Rubric, action: KeyAction): boolean {
  if (action.kind === 'clear') return true;
  return rubric.dimensions.some((d) => (action.kind === 'mark' ? d.type === 'multiSelect' && !!d.mostEvident : true) && declaredKeys(d).some((k) => k.key === action.key));
}

/**
 * The digit keys of a cursor question: the points of a Likert scale whose values are all 0–9 are chosen by their
 * value; otherwise (and for options) the n-th is chosen by n, 0 being the tenth.
 */
function nthByDigit<T>(list: readonly T[], key: string, valueOf?: (x: T) => unknown): T | undefined {
  if (!/^[0-9]$/.test(key)) return undefined;
  if (valueOf && list.every((x) => Number.isInteger(valueOf(x)) && (valueOf(x) as number) >= 0 && (valueOf(x) as number) <= 9)) return list.find((x) => valueOf(x) === Number(key));
  return list[(key === '0' ? 10 : Number(key)) - 1];
}

/** What a key makes of the focused candidate's label. */
export type KeyResult =
  /** A label operation; `advance`: it answered the active question, which moves on to the next. */
  | { op: LabelOp; advance?: boolean }
  /** Type into a text or number box (`initial`: the digit that started a number). */
  | { edit: string; initial?: string }
  /** Why the key does nothing here (for the hint line). */
  | { hint: string };

/** The dimensions asked of `mine`, in rubric order (the questions the card shows). */
export function askedDimensions(rubric: Rubric, mine: Annotation | undefined): Dimension[] {
  return rubric.dimensions.filter((d) => conditionHolds(mine, d, rubric));
}

/** Dimensions the cursor serves: those with no key of their own, other than text (which a click or Enter types). */
function cursorDimensions(rubric: Rubric): Dimension[] {
  return rubric.dimensions.filter((d) => d.type !== 'text' && declaredKeys(d).length === 0);
}

/**
 * The active question of a card when focus arrives on it: the first question without keys of its own that still
 * needs an answer (then the first such question asked), or — when every question has keys (the MI preset) — the
 * first dimension, so that clear clears the first answer.
 */
export function initialQuestion(rubric: Rubric, mine: Annotation | undefined): string | null {
  const served = cursorDimensions(rubric).filter((d) => conditionHolds(mine, d, rubric));
  if (served.length === 0) return rubric.dimensions[0]?.name ?? null;
  return (served.find((d) => needsLabel(mine, d, rubric)) ?? served[0]).name;
}

/** The active question after `question` was answered or moved by `delta` (the next asked question, not past the ends). */
export function moveQuestion(rubric: Rubric, mine: Annotation | undefined, question: string | null, delta: 1 | -1): string | null {
  const asked = askedDimensions(rubric, mine);
  if (asked.length === 0) return question;
  const order = rubric.dimensions.map((d) => d.name);
  const at = question === null ? -1 : order.indexOf(question);
  const after = asked.filter((d) => (delta > 0 ? order.indexOf(d.name) > at : order.indexOf(d.name) < at));
  return (delta > 0 ? after[0] : after[after.length - 1])?.name ?? (asked.some((d) => d.name === question) ? question : asked[0].name);
}

/** The active question a key acts on: `question` when it is asked, else the first question asked. */
function activeQuestion(rubric: Rubric, mine: Annotation | undefined, question: string | null): Dimension | undefined {
  const asked = askedDimensions(rubric, mine);
  return asked.find((d) => d.name === question) ?? asked.find((d) => d.name === initialQuestion(rubric, mine)) ?? asked[0];
}

/** How to answer a dimension, for a hint: `Y coherent, N incoherent` (its keys), or its title. */
function answerText(d: Dimension): string {
  if (d.type === 'binary' && d.keys) return `${rubricKeyLabel(d.keys.yes)} ${(d.labels?.yes ?? 'yes').toLowerCase()}, ${rubricKeyLabel(d.keys.no)} ${(d.labels?.no ?? 'no').toLowerCase()}`;
  return `“${dimensionTitle(d)}”`;
}

/** The operation that gives dimension `d` the value a key stands for. */
function opFor(d: Dimension, value: boolean | number | string | null): KeyResult {
  switch (d.type) {
    case 'multiSelect':
      return { op: { kind: 'toggle', dimension: d.name, option: value as string } };
    case 'text':
    case 'numeric':
      return { edit: d.name };
    default:
      return { op: { kind: 'set', dimension: d.name, value: value as boolean | number | string } };
  }
}

/** Why a declared key of dimensions none of which is asked does nothing. */
function notAskedHint(rubric: Rubric, dims: readonly Dimension[], key: string, mine: Annotation | undefined): string {
  const d = dims[0];
  // The first unanswered question the dimension waits for.
  let at: Dimension | undefined = d;
  while (at?.when) {
    const on: Dimension | undefined = rubric.dimensions.find((x) => x.name === at!.when!.dimension);
    if (!on) break;
    if (mine?.[on.name] === undefined && couldBeAsked(mine, on, rubric)) {
      const first = on.when ? rubric.dimensions.find((x) => x.name === on.when!.dimension && mine?.[x.name] === undefined) : undefined;
      return `Answer first: ${answerText(first ?? on)}.`;
    }
    at = on;
  }
  // Ruled out by an answer: a digit meant for a scale that is asked.
  if (/^[0-9]$/.test(key)) {
    const scale = askedDimensions(rubric, mine).find((x) => x.type === 'ordinal' && declaredKeys(x).some((k) => /^[0-9]$/.test(k.key)));
    if (scale && scale.type === 'ordinal') return `The ${dimensionTitle(scale).toLowerCase()} scale is ${scale.points[0].value}–${scale.points[scale.points.length - 1].value}.`;
  }
  return `${rubricKeyLabel(key)} is for ${dimensionTitle(d)}, which is not asked here.`;
}

/**
 * What a key does to a candidate whose label by the annotator is `mine`, under `rubric`, with `question` the card's
 * active question (null: none reported; then the one focus would start on): a label operation, a box to type into,
 * a hint when the key does not apply, or null (a key that means nothing here). See the module comment for the rule.
 * Operations on the MI preset are named as before rubrics (`coherence`, `toggleError`, …).
 */
export function resolveKey(rubric: Rubric, action: KeyAction, mine: Annotation | undefined, question: string | null): KeyResult | null {
  const result = resolve(rubric, action, mine, question);
  return result && 'op' in result && rubric === MI_RUBRIC ? { ...result, op: miLabelOpOf(result.op) } : result;
}

function resolve(rubric: Rubric, action: KeyAction, mine: Annotation | undefined, question: string | null): KeyResult | null {
  if (action.kind === 'clear') {
    const q = activeQuestion(rubric, mine, question ?? initialQuestion(rubric, mine));
    return q ? { op: { kind: 'set', dimension: q.name, value: null } } : null;
  }
  const { key } = action;
  if (action.kind === 'mark') {
    const marks = rubric.dimensions.filter((d) => d.type === 'multiSelect' && d.mostEvident);
    const declared = marks.find((d) => declaredKeys(d).some((k) => k.key === key));
    const q = declared ? undefined : activeQuestion(rubric, mine, question);
    const d = declared ?? (q?.type === 'multiSelect' && q.mostEvident ? q : undefined);
    if (!d || d.type !== 'multiSelect' || !d.mostEvident) return null;
    const option = declared ? (declaredKeys(d).find((k) => k.key === key)!.value as string) : nthByDigit(d.options, key)?.value;
    if (option === undefined) return null;
    const marked = conditionHolds(mine, d, rubric) && mine?.[d.mostEvident.name] === option;
    return { op: { kind: 'mostEvident', dimension: d.name, option: marked ? null : option } };
  }
  const declared = rubric.dimensions.filter((d) => declaredKeys(d).some((k) => k.key === key));
  if (declared.length > 0) {
    const asked = declared.find((d) => conditionHolds(mine, d, rubric));
    if (!asked) return { hint: notAskedHint(rubric, declared, key, mine) };
    return opFor(asked, declaredKeys(asked).find((k) => k.key === key)!.value);
  }
  // A key no dimension declares: the active question's.
  const q = activeQuestion(rubric, mine, question);
  if (!q) return null;
  switch (q.type) {
    case 'binary':
      if (key === 'y' || key === '1') return { op: { kind: 'set', dimension: q.name, value: true }, advance: true };
      if (key === 'n' || key === '0') return { op: { kind: 'set', dimension: q.name, value: false }, advance: true };
      return null;
    case 'ordinal': {
      const p = nthByDigit(q.points, key, (x) => x.value);
      if (p) return { op: { kind: 'set', dimension: q.name, value: p.value }, advance: true };
      return /^[0-9]$/.test(key) ? { hint: `The ${dimensionTitle(q).toLowerCase()} scale is ${q.points[0].value}–${q.points[q.points.length - 1].value}.` } : null;
    }
    case 'categorical': {
      const o = nthByDigit(q.options, key);
      if (o) return { op: { kind: 'set', dimension: q.name, value: o.value }, advance: true };
      return /^[0-9]$/.test(key) ? { hint: `${dimensionTitle(q)} has ${q.options.length} options.` } : null;
    }
    case 'multiSelect': {
      const o = nthByDigit(q.options, key);
      return o ? { op: { kind: 'toggle', dimension: q.name, option: o.value } } : null;
    }
    case 'numeric':
      return /^[0-9]$/.test(key) ? { edit: q.name, initial: key } : null;
    case 'text':
      return { hint: `Enter: type “${dimensionTitle(q)}”.` };
  }
}

/**
 * The MI preset's rule for its old actions (`coherent`, `incoherent`, `clear`, `option n`, `mostEvident n`) before
 * rubrics: {@link resolveKey} on the preset. A number key after Yes answers the empathy statement, after No toggles
 * the error categories in `ERROR_CATEGORIES` order; Shift + n marks (or, pressed again, unmarks) the most evident
 * error (first study §4.2.3).
 */
export function labelOpOfKey(action: LabelAction, mine: Annotation | undefined): { op: LabelOp } | { hint: string } | null {
  const r = resolveKey(MI_RUBRIC, keyActionOf(action), mine, null);
  if (!r || 'edit' in r) return null;
  return 'op' in r ? { op: r.op } : r;
}
