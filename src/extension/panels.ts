/**
 * How every ReflectEval webview is set up (the dialogue editor's and the four panels'): the page (a strict
 * Content-Security-Policy with a nonce, no remote resources, the bundled script `dist/webview/<script>.js` and
 * stylesheet `media/<style>.css`), what it may load (`dist/` and `media/` of the extension), and its message channel
 * (webviewChannel.ts) on the webview's protocol. A panel beside the editor opens with {@link openPanel}.
 */
import { randomBytes } from 'node:crypto';
import * as vscode from 'vscode';
import type { Protocol } from '../../webview/shared/messages';
import { HostChannel } from './webviewChannel';

/** A fresh nonce for the Content-Security-Policy of one webview page. */
export function nonce(): string {
  return randomBytes(16).toString('base64');
}

/** One webview page: its title, the names of its bundled script and stylesheet, and the body's HTML. */
export interface WebviewPage {
  title: string;
  script: string;
  style: string;
  body: string;
}

/**
 * A webview page: strict Content-Security-Policy with a nonce, no remote resources, the bundled script
 * `dist/webview/<script>.js` and stylesheet `media/<style>.css` of the extension.
 */
export function webviewPage(webview: vscode.Webview, extensionUri: vscode.Uri, opts: WebviewPage): string {
  const n = nonce();
  const script = webview.asWebviewUri(vscode.Uri.joinPath(extensionUri, 'dist', 'webview', `${opts.script}.js`));
  const style = webview.asWebviewUri(vscode.Uri.joinPath(extensionUri, 'media', `${opts.style}.css`));
  const csp = [
    "default-src 'none'",
    `img-src ${webview.cspSource} data:`,
    `style-src ${webview.cspSource} 'nonce-${n}'`,
    `font-src ${webview.cspSource}`,
    `script-src 'nonce-${n}'`,
  ].join('; ');
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="stylesheet" href="${style}" nonce="${n}">
<title>${opts.title}</title>
</head>
<body>
${opts.body}
<script type="module" nonce="${n}" src="${script}"></script>
</body>
</html>`;
}

/** What a ReflectEval webview may load: the extension's bundled scripts and its stylesheets. */
function localResourceRoots(extensionUri: vscode.Uri): vscode.Uri[] {
  return [vscode.Uri.joinPath(extensionUri, 'dist'), vscode.Uri.joinPath(extensionUri, 'media')];
}

/** Shows a ReflectEval error message the way every command and panel does. */
export function showError(err: Error): void {
  void vscode.window.showErrorMessage(`ReflectEval: ${err.message}`);
}

/**
 * Sets `webview` up to show `page` and connects its message channel: scripts on, only the extension's `dist/` and
 * `media/` loadable. A handler's error is shown as an error message.
 */
export function showPage<P extends Protocol>(webview: vscode.Webview, extensionUri: vscode.Uri, page: WebviewPage): { channel: HostChannel<P>; subscription: vscode.Disposable } {
  webview.options = { enableScripts: true, localResourceRoots: localResourceRoots(extensionUri) };
  webview.html = webviewPage(webview, extensionUri, page);
  const channel = new HostChannel<P>((msg) => void webview.postMessage(msg), showError);
  const listening = webview.onDidReceiveMessage((msg: unknown) => channel.receive(msg));
  return { channel, subscription: vscode.Disposable.from(listening, channel) };
}

/**
 * Opens a panel beside the active editor (focus stays where it is) showing `page`, with its message channel; the
 * channel stops when the panel closes.
 *
 * @param options.retainContextWhenHidden - keep the page alive while hidden (a panel whose state is costly to rebuild)
 */
export function openPanel<P extends Protocol>(extensionUri: vscode.Uri, viewType: string, page: WebviewPage, options: { retainContextWhenHidden?: boolean } = {}): { panel: vscode.WebviewPanel; channel: HostChannel<P> } {
  const panel = vscode.window.createWebviewPanel(viewType, page.title, { viewColumn: vscode.ViewColumn.Beside, preserveFocus: true }, {
    enableScripts: true,
    localResourceRoots: localResourceRoots(extensionUri),
    ...(options.retainContextWhenHidden ? { retainContextWhenHidden: true } : {}),
  });
  const { channel, subscription } = showPage<P>(panel.webview, extensionUri, page);
  panel.onDidDispose(() => subscription.dispose());
  return { panel, channel };
}
