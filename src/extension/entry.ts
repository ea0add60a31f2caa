/**
 * ReflectEval's entry point (package.json `main`: `dist/entry.js`), small so that activating ReflectEval in any
 * workspace costs little: it registers the side bar (Studies and Start views), the Get Started walkthrough's
 * commands, the large-file watcher, and stand-ins for every other command and for the dialogue editor that load
 * the rest of ReflectEval (`dist/extension.js`, src/extension/extension.ts) when first used (lazyExtension.ts).
 * Nothing here loads a model, a metric or a job.
 */
import * as vscode from 'vscode';
import { FIRST_HOUR_COMMANDS, FirstHour, StartView } from './firstHour';
import { LazyExtension } from './lazyExtension';
import { watchLargeDialogueFiles } from './largeFiles';
import { StudiesView } from './studiesView';

let full: LazyExtension | undefined;

export function activate(context: vscode.ExtensionContext): void {
  // `./extension` is a bundle of its own (scripts/build.mjs): this import runs when a stand-in is first used.
  full = new LazyExtension(context, () => import('./extension'), new Set(FIRST_HOUR_COMMANDS));
  context.subscriptions.push(...full.register());
  // A study's label sidecars are read with the annotation schema every job uses, from the full extension's bundle.
  const studies = new StudiesView(context, () => import('./extension').then((m) => m.annotationSchemaProblem));
  context.subscriptions.push(
    ...new FirstHour(context, studies).register(),
    vscode.window.registerTreeDataProvider('reflectEval.start', new StartView()),
    // Files over 50 MB opened as text: say why VS Code does not show them, and the way forward.
    watchLargeDialogueFiles(),
  );
}

export function deactivate(): void {
  full?.deactivate();
}
