// One activation in a process of its own, for `npm run bench -- activation` (activation.bench.ts): loads a bundle
// the way VS Code's extension host does (require, then activate(context)) with a stand-in for the `vscode` module,
// and prints one JSON line {"loadMs":…,"activateMs":…,"firstUseMs":…}. Arguments: <bundle> [<command to run after>].
// The stand-in answers every property, call and `new` with itself (an inert API): what is measured is our code's
// load and registration work, not VS Code's. firstUseMs: the time a registered command then takes to run (the
// entry's proxy loading the rest), when a command id is given.
'use strict';
const Module = require('node:module');
const { performance } = require('node:perf_hooks');
const commands = new Map();
const inert = new Proxy(function () {}, {
  get(_t, key) {
    if (key === 'then') return undefined;
    if (key === Symbol.toPrimitive) return () => '';
    if (key === Symbol.iterator) return function* () {};
    return inert;
  },
  apply: () => inert,
  construct: () => inert,
  set: () => true,
  defineProperty: () => true,
});
// esbuild's ESM interop copies the module's own property names: every name our code reads must be one.
const NAMES = ['window', 'workspace', 'languages', 'env', 'extensions', 'l10n', 'tasks', 'debug', 'authentication', 'Uri', 'EventEmitter', 'TreeItem', 'ThemeIcon', 'ThemeColor', 'TreeItemCollapsibleState', 'ConfigurationTarget', 'RelativePattern', 'ProgressLocation', 'StatusBarAlignment', 'ViewColumn', 'TabInputText', 'TabInputCustom', 'TabInputWebview', 'Range', 'Position', 'Selection', 'MarkdownString', 'CancellationTokenSource', 'CancellationError', 'FileType', 'FileSystemError', 'ExtensionMode', 'DiagnosticSeverity', 'Diagnostic', 'QuickPickItemKind', 'UIKind', 'ColorThemeKind', 'TextEditorRevealType', 'EndOfLine', 'WorkspaceEdit', 'DataTransferItem', 'TreeItemCheckboxState'];
const vscode = Object.fromEntries(NAMES.map((n) => [n, inert]));
vscode.commands = new Proxy(
  {
    registerCommand: (id, fn) => {
      commands.set(id, fn);
      return { dispose: () => commands.get(id) === fn && commands.delete(id) };
    },
    executeCommand: async (id, ...args) => (commands.has(id) ? commands.get(id)(...args) : undefined),
  },
  { get: (t, k) => (k in t ? t[k] : inert) },
);
vscode.Disposable = class {
  constructor(fn) { this.dispose = fn; }
  static from(...ds) { return { dispose: () => ds.forEach((d) => d.dispose()) }; }
};
const load = Module._load;
Module._load = function (request, ...rest) {
  return request === 'vscode' ? vscode : load.call(this, request, ...rest);
};
async function main() {
  const [bundle, command] = process.argv.slice(2);
  const root = require('node:path').resolve(bundle, '../..');
  const context = { subscriptions: [], extensionUri: inert, extensionPath: root, globalState: inert, workspaceState: inert, secrets: inert, extension: { packageJSON: require(require('node:path').join(root, 'package.json')) }, storageUri: undefined, globalStorageUri: inert, logUri: inert, extensionMode: 1 };
  const t0 = performance.now();
  const mod = require(require('node:path').resolve(bundle));
  const t1 = performance.now();
  let activateError;
  try {
    await mod.activate(context);
  } catch (err) {
    activateError = err.message;
  }
  const t2 = performance.now();
  let firstUseMs = null;
  let firstUseError;
  if (command) {
    if (!commands.has(command)) firstUseError = `${command} is not registered`;
    else {
      try {
        await commands.get(command)();
      } catch (err) {
        firstUseError = err.message;
      }
      firstUseMs = performance.now() - t2;
    }
  }
  console.log(JSON.stringify({ loadMs: t1 - t0, activateMs: t2 - t1, firstUseMs, commands: commands.size, ...(activateError ? { activateError } : {}), ...(firstUseError ? { firstUseError } : {}) }));
  process.exit(0);
}
void main();
