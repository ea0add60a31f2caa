/** The prompt preview webview: shows the assembled prompt the host sends. */
import { WebviewChannel } from '../shared/ipc';
import type { PreviewProtocol } from './protocol';

const channel = new WebviewChannel<PreviewProtocol>();

channel.on('preview', (m) => {
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
channel.notify('ready', {});
