/** The prompt preview webview: shows the assembled prompt the host sends. */
import type { PreviewHostMessage, PreviewWebviewMessage } from './protocol';

declare function acquireVsCodeApi(): { postMessage(msg: unknown): void };
const vscode = acquireVsCodeApi();
const post = (m: PreviewWebviewMessage) => vscode.postMessage(m);

window.addEventListener('message', (e: MessageEvent<PreviewHostMessage>) => {
  const m = e.data;
  if (m.type !== 'preview') return;
  const header = document.getElementById('header') as HTMLElement;
  const lines = [`Template: ${m.template}`, `Variant: ${m.variant.body} × ${m.variant.request}`];
  if (m.candidate) lines.push(`Candidate: ${m.candidate}`);
  if (m.tokens) lines.push(`${m.tokens.count} tokens for ${m.tokens.judge} (${m.tokens.tokenizer} tokenizer${m.tokens.approximate ? ', approximate' : ''})`);
  header.replaceChildren(...lines.map((l) => Object.assign(document.createElement('div'), { textContent: l })));
  const warnings = document.getElementById('warnings') as HTMLElement;
  warnings.hidden = m.warnings.length === 0;
  warnings.replaceChildren(...m.warnings.map((w) => Object.assign(document.createElement('li'), { textContent: `⚠ ${w}` })));
  const error = document.getElementById('error') as HTMLElement;
  error.hidden = !m.error;
  error.textContent = m.error ?? '';
  (document.getElementById('prompt') as HTMLElement).textContent = m.prompt ?? '';
});
post({ type: 'ready' });
