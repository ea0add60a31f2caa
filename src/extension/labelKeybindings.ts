/**
 * How VS Code reaches the labelling keys (src/core/labels/labelKeys.ts): the context key the dialogue editor sets
 * while its webview has focus, and the `when` clause of every labelling keybinding in package.json (kept equal to
 * `LABEL_KEYS` by a unit test, test/core/labels/labelKeys.test.ts).
 */

/** The context key set while a dialogue editor's webview has focus. */
export const FOCUS_CONTEXT_KEY = 'reflectEval.dialogueEditorFocus';

/**
 * The `when` clause of every labelling keybinding: the active editor is a ReflectEval dialogue editor and focus
 * is inside its webview (the context key is set by the extension from the webview's focus and blur; typing in
 * the webview's text fields is not forwarded).
 */
export const LABEL_KEYS_WHEN = `activeCustomEditorId =~ /^reflectEval\\.dialogueEditor/ && ${FOCUS_CONTEXT_KEY}`;
