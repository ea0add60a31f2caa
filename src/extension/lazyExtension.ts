/**
 * The rest of ReflectEval, loaded on first use. `dist/extension.js` (src/extension/extension.ts: the dialogue
 * editor, the panels, every job) is a large bundle; the entry (entry.ts) registers stand-ins for what VS Code may ask
 * of it before it is loaded — every command the package contributes, and the custom editors — and loads it when one
 * of them is first used: a stand-in command then hands over to the real one, and the stand-in editor provider
 * delegates to the real provider for as long as the window lives.
 */
import * as vscode from 'vscode';

/** What `dist/extension.js` exports (src/extension/extension.ts). */
interface FullExtension {
  activate(context: vscode.ExtensionContext, fromEntry: { editorsRegistered: true }): { provider(viewType: string): vscode.CustomEditorProvider<vscode.CustomDocument> };
  deactivate?(): void;
}

/** Options every custom editor of the package is registered with (as extension.ts registers them when it is `main`). */
const EDITOR_OPTIONS = { supportsMultipleEditorsPerDocument: false } as const;

/** Contributed commands and custom editors, from the package manifest. */
function contributed(context: vscode.ExtensionContext): { commands: string[]; editors: string[] } {
  const c = (context.extension.packageJSON as { contributes?: { commands?: { command: string }[]; customEditors?: { viewType: string }[] } }).contributes ?? {};
  return { commands: (c.commands ?? []).map((x) => x.command), editors: (c.customEditors ?? []).map((x) => x.viewType) };
}

/** Loads `dist/extension.js` once, on first use, and hands the commands and editors over to it. */
export class LazyExtension {
  private loading: Promise<ReturnType<FullExtension['activate']>> | undefined;
  private full: FullExtension | undefined;
  private readonly standIns: vscode.Disposable[] = [];
  /** When the full extension was loaded, for the output channel and the bench (ms since activation). */
  loadedAfterMs: number | undefined;

  /**
   * @param load - imports the full extension (`import('./extension')`, a file of its own in the build)
   * @param owned - commands the entry itself registers: they get no stand-in
   */
  constructor(
    private readonly context: vscode.ExtensionContext,
    private readonly load: () => Promise<FullExtension>,
    private readonly owned: ReadonlySet<string>,
  ) {}

  /** Registers a stand-in for every contributed command the entry does not own, and every custom editor. */
  register(): vscode.Disposable[] {
    const { commands, editors } = contributed(this.context);
    for (const id of commands) {
      if (this.owned.has(id)) continue;
      this.standIns.push(vscode.commands.registerCommand(id, async (...args: unknown[]) => {
        await this.ensure();
        return vscode.commands.executeCommand(id, ...args);
      }));
    }
    const providers = editors.map((viewType) => vscode.window.registerCustomEditorProvider(viewType, this.editorProvider(viewType), EDITOR_OPTIONS));
    return [...providers, { dispose: () => this.standIns.splice(0).forEach((d) => d.dispose()) }];
  }

  /** Whether the full extension is loaded. */
  get loaded(): boolean {
    return this.full !== undefined;
  }

  /**
   * Loads the full extension (once): its module, then its `activate`, after the stand-in commands are gone so its
   * own registrations take their ids.
   */
  ensure(): Promise<ReturnType<FullExtension['activate']>> {
    this.loading ??= (async () => {
      const start = Date.now();
      const full = await this.load();
      this.standIns.splice(0).forEach((d) => d.dispose());
      const editors = full.activate(this.context, { editorsRegistered: true });
      this.full = full;
      this.loadedAfterMs = Date.now() - start;
      return editors;
    })();
    this.loading.catch(() => (this.loading = undefined));
    return this.loading;
  }

  deactivate(): void {
    this.full?.deactivate?.();
  }

  /**
   * A provider for `viewType` that loads the full extension when VS Code first opens such an editor and delegates
   * every call to the full extension's provider. Its change events are the real provider's, forwarded.
   */
  private editorProvider(viewType: string): vscode.CustomEditorProvider<vscode.CustomDocument> {
    const changed = new vscode.EventEmitter<vscode.CustomDocumentEditEvent<vscode.CustomDocument>>();
    let real: vscode.CustomEditorProvider<vscode.CustomDocument> | undefined;
    const provider = async () => {
      if (real) return real;
      const editors = await this.ensure();
      if (!real) {
        real = editors.provider(viewType);
        this.context.subscriptions.push(real.onDidChangeCustomDocument((e) => changed.fire(e as vscode.CustomDocumentEditEvent<vscode.CustomDocument>)));
      }
      return real;
    };
    // Documents exist only once the real provider made them, so calls about a document find it loaded.
    const loaded = () => {
      if (!real) throw new Error(`ReflectEval: the ${viewType} editor is not loaded`);
      return real;
    };
    this.context.subscriptions.push(changed);
    return {
      onDidChangeCustomDocument: changed.event,
      openCustomDocument: async (uri, openContext, token) => (await provider()).openCustomDocument(uri, openContext, token),
      resolveCustomEditor: async (document, panel, token) => (await provider()).resolveCustomEditor(document, panel, token),
      saveCustomDocument: (document, token) => loaded().saveCustomDocument(document, token),
      saveCustomDocumentAs: (document, destination, token) => loaded().saveCustomDocumentAs(document, destination, token),
      revertCustomDocument: (document, token) => loaded().revertCustomDocument(document, token),
      backupCustomDocument: (document, backupContext, token) => loaded().backupCustomDocument(document, backupContext, token),
    };
  }
}
