import { randomBytes } from 'node:crypto';
import * as vscode from 'vscode';

/** A fresh nonce for the Content-Security-Policy of one webview page. */
export function nonce(): string {
  return randomBytes(16).toString('base64');
}

/**
 * A webview page: strict Content-Security-Policy with a nonce, no remote resources, the bundled script
 * `dist/webview/<script>.js` and stylesheet `media/<style>.css` of the extension.
 */
export function webviewPage(webview: vscode.Webview, extensionUri: vscode.Uri, opts: { title: string; script: string; style: string; body: string }): string {
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
