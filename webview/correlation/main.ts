/** The correlation panel's webview: renders the table the host computes. */
import type { CorrelationHostMessage, CorrelationRowView, CorrelationWebviewMessage } from './protocol';

declare function acquireVsCodeApi(): { postMessage(msg: unknown): void };
const vscode = acquireVsCodeApi();
const post = (m: CorrelationWebviewMessage) => vscode.postMessage(m);

function td(text: string, cls = ''): HTMLTableCellElement {
  const c = document.createElement('td');
  c.textContent = text;
  if (cls) c.className = cls;
  return c;
}

function formatP(p: number | null): string {
  if (p === null) return '';
  return p < 1e-4 ? p.toExponential(2) : p.toFixed(4);
}

function row(r: CorrelationRowView): HTMLTableRowElement {
  const tr = document.createElement('tr');
  tr.dataset.evaluator = r.evaluatorId;
  const rho = r.rho === null ? `undefined (${r.undefinedReason ?? 'n/a'})` : r.rho.toFixed(3);
  tr.append(td(r.evaluatorId, 'evaluator'), td(String(r.n), 'num'), td(String(r.excluded), 'num'), td(rho, `num${r.pValue !== null && r.pValue < 0.05 ? ' significant' : ''}`), td(formatP(r.pValue), 'num'));
  return tr;
}

window.addEventListener('message', (e: MessageEvent<CorrelationHostMessage>) => {
  const m = e.data;
  if (m.type !== 'table') return;
  (document.getElementById('title') as HTMLElement).textContent = m.file ? `Correlations: ${m.file}` : 'Correlations';
  (document.getElementById('summary') as HTMLElement).textContent = m.file
    ? `Spearman's rho between each evaluator and the human coherence score (number of annotators who said coherent). ${m.labelledCandidates} of ${m.totalCandidates} candidates have a coherence label. p from Student's t with n−2 df; p < 0.05 in italics.`
    : 'Open a dialogue file in the ReflectEval editor.';
  const host = document.getElementById('table') as HTMLElement;
  if (m.rows.length === 0) {
    host.textContent = m.file ? 'No evaluator scores in this file yet: run Generate and Judge.' : '';
    return;
  }
  const table = document.createElement('table');
  const head = document.createElement('tr');
  for (const h of ['evaluator', 'n', 'left out', "Spearman's ρ", 'p']) {
    const th = document.createElement('th');
    th.textContent = h;
    head.append(th);
  }
  table.append(head, ...m.rows.map(row));
  host.replaceChildren(table);
});
post({ type: 'ready' });
