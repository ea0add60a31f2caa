/**
 * The prompt search leaderboard webview: the report's split and totals, then one row per judge × variant with its
 * development and held-out Spearman rho (intervals), the optimism gap and the calls it cost. Clicking a variant asks
 * the host to open its assembled prompt in the prompt preview. All numbers come from the host.
 */
import type { BootstrapInterval } from '../../src/core/stats/bootstrap';
import type { LeaderboardFit, LeaderboardRow } from '../../src/core/judges/searchReport';
import { el } from '../shared/dom';
import { WebviewChannel } from '../shared/ipc';
import type { LeaderboardView, SearchProtocol } from './protocol';

const channel = new WebviewChannel<SearchProtocol>();

const f3 = (v: number | null | undefined) => (v === null || v === undefined ? '–' : v.toFixed(3));
const ci = (c?: BootstrapInterval) => (c && c.lower !== null && c.upper !== null ? ` [${f3(c.lower)}, ${f3(c.upper)}]` : '');
const fitText = (f: LeaderboardFit | null) => (f ? `${f3(f.rho)}${ci(f.ci)}` : '–');
const fitTitle = (f: LeaderboardFit | null, part: string) => (f ? `${part}: Spearman rho ${f3(f.rho)}${ci(f.ci)}, n = ${f.n}` : `not judged on ${part} items`);

function row(r: LeaderboardRow): HTMLTableRowElement {
  const name = el('button', { class: 'variant link', title: `Open the assembled prompt of ${r.body} × ${r.request} in the prompt preview (template ${r.templateHash})`, 'data-index': String(r.index) }, `${r.body} × ${r.request}`);
  name.addEventListener('click', () => channel.notify('open', { index: r.index }));
  const role = r.chosen ? (r.chosenInFolds ? `chosen (fold${r.chosenInFolds.length > 1 ? 's' : ''} ${r.chosenInFolds.join(', ')})` : 'chosen') : r.baseline ? 'paper baseline' : r.skipped ? 'skipped' : '';
  return el(
    'tr',
    { class: [r.chosen ? 'chosen' : '', r.baseline ? 'baseline' : '', r.skipped ? 'skipped' : ''].filter(Boolean).join(' '), ...(r.skipped ? { title: r.skipped } : {}) },
    el('td', {}, name),
    el('td', { class: 'judge' }, r.judge),
    el('td', {}, role),
    el('td', { class: 'num', title: fitTitle(r.dev, 'development') }, fitText(r.dev), el('span', { class: 'n' }, r.dev ? ` n=${r.dev.n}` : '')),
    el('td', { class: 'num', title: fitTitle(r.heldOut, 'held-out') }, fitText(r.heldOut), el('span', { class: 'n' }, r.heldOut ? ` n=${r.heldOut.n}` : '')),
    el('td', { class: 'num' }, f3(r.gap)),
    el('td', { class: 'num', title: 'calls that reached a backend · answers from the cache' }, r.calls === null ? '–' : `${r.calls} · ${r.cacheHits ?? 0}`),
  );
}

function render(m: LeaderboardView): void {
  const app = document.getElementById('app') as HTMLElement;
  const head = el('h2', {}, 'Prompt search');
  if (m.error || !m.summary) {
    app.replaceChildren(head, el('p', { id: 'search-status', class: 'muted' }, m.error ?? 'No report.'));
    return;
  }
  const s = m.summary;
  const refresh = el('button', { id: 'refresh', class: 'secondary' }, 'Reload');
  refresh.addEventListener('click', () => channel.notify('refresh', {}));
  const facts = [
    `report ${m.report}`,
    s.split,
    s.target ? `target: ${s.target}` : `target: share of ${s.human} saying coherent`,
    `${s.calls} calls, ${s.cacheHits} from the cache`,
    ...(s.estimate ? [`${s.estimate.judgements} judgements planned${s.estimate.cost !== null ? `, cost ≤ ${s.estimate.cost.toFixed(4)}` : ''}`] : []),
  ];
  const chosen = m.rows.find((r) => r.chosen && !r.chosenInFolds);
  const headline = s.crossFit
    ? `Cross-fitted held-out rho over ${s.crossFit.k} folds: ${f3(s.crossFit.rho)}${ci(s.crossFit.ci)} (n = ${s.crossFit.n}); development ${f3(s.crossFit.devRho)}; optimism gap ${f3(s.crossFit.optimismGap)}`
    : chosen
      ? `Chosen on development items: ${chosen.body} × ${chosen.request} — held-out rho ${fitText(chosen.heldOut)}, development ${f3(chosen.dev?.rho)}, optimism gap ${f3(s.optimismGap)}`
      : 'No variant was chosen.';
  const table = el(
    'table',
    { id: 'leaderboard' },
    el('thead', {}, el('tr', {}, ...['variant', 'judge', '', 'development ρ [95% CI]', 'held-out ρ [95% CI]', 'gap', 'calls · cached'].map((h) => el('th', {}, h)))),
    el('tbody', {}, ...m.rows.map(row)),
  );
  app.replaceChildren(
    el('div', { class: 'section-head' }, head, refresh),
    el('p', { id: 'facts', class: 'muted' }, facts.join(' · ')),
    el('p', { id: 'headline' }, headline),
    table,
    el('p', { class: 'muted' }, 'Held-out numbers exist only for the chosen variant and the paper baselines: no other variant sees a held-out item. Click a variant for its assembled prompt.'),
  );
}

channel.on('leaderboard', render);
channel.notify('ready', {});
