/**
 * The dialogue editor's labelling keys: one VS Code command per action, contributed with these default
 * keybindings in package.json (`contributes.keybindings`, kept equal to this table by a unit test), so users can
 * rebind them in Keyboard Shortcuts. VS Code forwards key presses from the focused webview to its keybinding
 * service; a command runs on the dialogue editor that has focus, whose webview applies the action to the focused
 * candidate. Shared by the extension (command registration) and the webview (legend, tooltips).
 */

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

/**
 * The `when` clause of every labelling keybinding: the active editor is a ReflectEval dialogue editor and focus
 * is inside its webview (the context key is set by the extension from the webview's focus and blur; typing in
 * the webview's text fields is not forwarded).
 */
export const LABEL_KEYS_WHEN = 'activeCustomEditorId =~ /^reflectEval\\.dialogueEditor/ && reflectEval.dialogueEditorFocus';

/** The context key set while a dialogue editor's webview has focus. */
export const FOCUS_CONTEXT_KEY = 'reflectEval.dialogueEditorFocus';

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
