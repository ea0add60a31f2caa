/**
 * The labelling keys and the key → label rule: what each key does (`EditorAction`), its command and default
 * keybindings (`LABEL_KEYS`: one VS Code command per action, contributed with these keys in package.json
 * `contributes.keybindings` and kept equal to this table by a unit test, so users can rebind them in Keyboard
 * Shortcuts), and which label operation a key makes of a candidate's label (`labelOpOfKey`). One rule for both
 * places a key is applied: the extension host, from the document (src/extension/editor/controller.ts), and the
 * dialogue editor's webview, from what it shows (webview/editor/main.ts); both import it from here. Pure data and
 * functions: the `when` clause and context key of the keybindings are the extension's (src/extension/labelKeybindings.ts).
 */
import type { Annotation } from '../dialogue/types';
import type { LabelOp } from './annotate';
import { ERROR_CATEGORIES } from './scheme';

/** What a labelling key does in the editor. */
export type EditorAction =
  | { kind: 'coherent' }
  | { kind: 'incoherent' }
  | { kind: 'clear' }
  /** Number key n: error n when the focused candidate is incoherent, empathy n (1–5) when coherent. */
  | { kind: 'option'; n: number }
  /** Shift + number key n: mark error n as the most evident error. */
  | { kind: 'mostEvident'; n: number }
  | { kind: 'nextCandidate' }
  | { kind: 'previousCandidate' }
  | { kind: 'nextItem' }
  | { kind: 'previousItem' }
  /** The next candidate the annotator has not labelled (coherence answer), in list order, wrapping around. */
  | { kind: 'nextUnlabelled' };

/** One labelling command. */
export interface LabelKey {
  /** VS Code command id. */
  command: string;
  /** Command title (category "ReflectEval"). */
  title: string;
  /** Default keybindings, in package.json syntax. */
  keys: string[];
  action: EditorAction;
}

const digits = [1, 2, 3, 4, 5, 6];

/** Every labelling command with its default keys. */
export const LABEL_KEYS: readonly LabelKey[] = [
  { command: 'reflectEval.label.coherent', title: 'Label: Coherent and Consistent (Yes)', keys: ['y'], action: { kind: 'coherent' } },
  { command: 'reflectEval.label.incoherent', title: 'Label: Incoherent or Inconsistent (No)', keys: ['n'], action: { kind: 'incoherent' } },
  { command: 'reflectEval.label.clear', title: 'Label: Clear the Coherence Answer', keys: ['backspace', 'delete'], action: { kind: 'clear' } },
  ...digits.map((n) => ({
    command: `reflectEval.label.option${n}`,
    title: `Label: Option ${n} (Error ${n} When Incoherent${n <= 5 ? `, Empathy ${n} When Coherent` : ''})`,
    keys: [String(n)],
    action: { kind: 'option', n } as const,
  })),
  ...digits.map((n) => ({
    command: `reflectEval.label.mostEvident${n}`,
    title: `Label: Mark Error ${n} as the Most Evident Error`,
    keys: [`shift+${n}`],
    action: { kind: 'mostEvident', n } as const,
  })),
  { command: 'reflectEval.label.nextCandidate', title: 'Label: Next Candidate', keys: ['j', 'down'], action: { kind: 'nextCandidate' } },
  { command: 'reflectEval.label.previousCandidate', title: 'Label: Previous Candidate', keys: ['k', 'up'], action: { kind: 'previousCandidate' } },
  { command: 'reflectEval.label.nextItem', title: 'Label: Next Item', keys: ['shift+j', 'pagedown'], action: { kind: 'nextItem' } },
  { command: 'reflectEval.label.previousItem', title: 'Label: Previous Item', keys: ['shift+k', 'pageup'], action: { kind: 'previousItem' } },
  { command: 'reflectEval.label.nextUnlabelled', title: 'Label: Next Unlabelled Candidate', keys: ['u'], action: { kind: 'nextUnlabelled' } },
];

/** A key in package.json syntax as the legend shows it, e.g. `shift+1` → `Shift+1`, `down` → `↓`. */
export function keyLabel(key: string): string {
  const names: Record<string, string> = { down: '↓', up: '↑', pagedown: 'PgDn', pageup: 'PgUp', backspace: '⌫', delete: 'Del' };
  return key
    .split('+')
    .map((k) => names[k] ?? (k.length === 1 ? k.toUpperCase() : k[0].toUpperCase() + k.slice(1)))
    .join('+');
}

/** The default keys of a command as the legend shows them, e.g. `J / ↓`. */
export function keysOf(command: string): string {
  return (LABEL_KEYS.find((k) => k.command === command)?.keys ?? []).map(keyLabel).join(' / ');
}

/** The actions that change the focused candidate's label (the others move focus). */
export type LabelAction = Extract<EditorAction, { kind: 'coherent' | 'incoherent' | 'clear' | 'option' | 'mostEvident' }>;

/** Whether `action` changes a label rather than moving focus. */
export function isLabelAction(action: EditorAction): action is LabelAction {
  return action.kind === 'coherent' || action.kind === 'incoherent' || action.kind === 'clear' || action.kind === 'option' || action.kind === 'mostEvident';
}

/**
 * What a labelling key does to a candidate whose label by the annotator is `mine`: the label operation, a hint
 * for the user when the key does not apply (a number before the coherence answer; 6 on the 1–5 empathy scale), or
 * nothing (an error number past the categories). The one rule for both places a key is applied: the host, from the
 * document, and the webview, from what it shows.
 *
 * Number keys follow the form of the first study (§4.2.3): after Yes they answer the 5-point empathy statement,
 * after No they toggle the error categories in `ERROR_CATEGORIES` order; Shift + n marks (or, pressed again,
 * unmarks) the most evident error.
 */
export function labelOpOfKey(action: LabelAction, mine: Annotation | undefined): { op: LabelOp } | { hint: string } | null {
  switch (action.kind) {
    case 'coherent':
      return { op: { kind: 'coherence', coherent: true } };
    case 'incoherent':
      return { op: { kind: 'coherence', coherent: false } };
    case 'clear':
      return { op: { kind: 'coherence', coherent: null } };
    case 'option': {
      if (mine?.coherent === true) {
        if (action.n < 1 || action.n > 5) return { hint: 'The empathy scale is 1–5.' };
        return { op: { kind: 'empathy', value: action.n as 1 | 2 | 3 | 4 | 5 } };
      }
      if (mine?.coherent === false) {
        const error = ERROR_CATEGORIES[action.n - 1];
        return error ? { op: { kind: 'toggleError', error } } : null;
      }
      return { hint: `Answer first: ${keysOf('reflectEval.label.coherent')} coherent, ${keysOf('reflectEval.label.incoherent')} incoherent.` };
    }
    case 'mostEvident': {
      const error = ERROR_CATEGORIES[action.n - 1];
      if (!error) return null;
      return { op: { kind: 'mostEvidentError', error: mine?.coherent === false && mine.mostEvidentError === error ? null : error } };
    }
  }
}
