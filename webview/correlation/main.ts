/**
 * The correlation panel's webview: controls (method, human group, grouping, best rule, judge variant, human
 * ceiling, intervals),
 * pinned configurations, the table the host computes (sorted and filtered here), the comparison of two
 * evaluators, and export buttons. All numbers come from the host; this file only lays them out.
 */
import type { EvaluatorComparison } from '../../src/core/correlation/compareEvaluators';
import type { CorrelationCell, CorrelationRow, CorrelationTable } from '../../src/core/correlation/correlationTable';
import { formatInterval, formatNumber, formatP, formatStatistic, undefinedExplanation, undefinedPhrase } from '../../src/core/tables/numberFormat';
import { FOREST_PLOT_CSS, forestPlotSvg, stripPlotSvg, type StripPanel } from '../../src/core/correlation/forestPlot';
import { el } from '../shared/dom';
import { WebviewChannel } from '../shared/ipc';
import { DEFAULT_SETTINGS, type ComparisonView, type CorrelationProtocol, type PanelSettings, type StripView, type TableView } from './protocol';
import { SettingsSync } from './settingsSync';

const channel = new WebviewChannel<CorrelationProtocol>();

interface ViewState {
  filter: string;
  /** `kind` (evaluator kind, then name), `name`, or a column key (strongest first). */
  sort: string;
  compareA: string;
  compareB: string;
  /** The settings disclosure opened (true) or folded (false) by the researcher; undefined: by the panel's height. */
  settingsOpen?: boolean;
}
const view: ViewState = { filter: '', sort: 'kind', compareA: '', compareB: '', ...channel.getState<ViewState>() };
const sync = new SettingsSync({ ...DEFAULT_SETTINGS });
let settings: PanelSettings = sync.settings;
let lastTable: CorrelationTable | null = null;
/** The study's rubric as the last table message gave it (for the dimension picker). */
let rubricInfo: TableView['rubric'] = undefined;

function select(id: string, label: string, options: [string, string][], value: string, onChange: (v: string) => void): HTMLElement {
  const s = el('select', { id });
  for (const [v, text] of options) s.append(el('option', { value: v }, text));
  s.value = value;
  s.addEventListener('change', () => onChange(s.value));
  return el('label', {}, `${label} `, s);
}

function changeSettings(patch: Partial<PanelSettings>): void {
  settings = sync.change(patch, (s) => channel.notify('settings', { settings: s }));
}

function saveView(): void {
  channel.patchState(view);
}

/** Builds the static skeleton once. */
function skeleton(): void {
  const app = document.getElementById('app') as HTMLElement;
  // The settings fold behind a one-line summary on a short panel (1280×720 laptop, issue 41 item 5), so the forest
  // plot is on screen without scrolling; the researcher's choice to open or fold them is kept.
  const settingsBox = el('details', { id: 'settings' }, el('summary', { id: 'settings-summary' }, 'Settings'), el('div', { id: 'controls', class: 'controls' }));
  (settingsBox as HTMLDetailsElement).open = view.settingsOpen ?? window.innerHeight >= SHORT_PANEL;
  settingsBox.addEventListener('toggle', () => {
    view.settingsOpen = (settingsBox as HTMLDetailsElement).open;
    saveView();
  });
  app.append(
    settingsBox,
    el('div', { id: 'pins', class: 'pins' }),
    el('p', { id: 'status', class: 'muted' }),
    el(
      'section',
      { id: 'plot-section' },
      el(
        'div',
        { class: 'section-head' },
        el('h3', {}, 'Forest plot'),
        el('button', { id: 'export-svg', class: 'secondary', title: 'Save the plot as SVG (the same drawing as reflect-eval correlate --plot)' }, 'Export SVG'),
        el('button', { id: 'export-png', class: 'secondary', title: 'Save the plot as a PNG image (2× resolution, white background)' }, 'Export PNG'),
      ),
      el('div', { id: 'plot', class: 'plot', title: 'Click a row for its strip plot, a point for its responses in the editor', tabindex: '0', role: 'group', 'aria-label': 'Forest plot (click a row for its strip plot, a point for its responses in the dialogue editor)' }),
      el('div', { id: 'strip', class: 'plot', hidden: '', tabindex: '0', role: 'group', 'aria-label': 'Strip plot (click a point to open its cell’s responses in the dialogue editor, at that point)' }),
    ),
    el('div', { id: 'table' }),
    el('section', { id: 'compare' }, el('h3', {}, 'Compare two evaluators'), el('div', { id: 'compare-controls', class: 'controls' }), el('div', { id: 'comparison' })),
  );
  // The table's sentence and the CLI's notes stay with the table, under the plot (the plot has its own caption).
  const table = document.getElementById('table') as HTMLElement;
  for (const id of ['summary', 'notes']) {
    const node = document.getElementById(id);
    if (node) table.before(node);
  }
}

/** Below this panel height the settings start folded (a 1280×720 laptop leaves the panel about 630 px). */
const SHORT_PANEL = 720;

/** The settings in one line, for the folded settings' summary. */
function settingsLine(): string {
  const method = settings.method === 'spearman' ? "Spearman's ρ" : settings.method === 'pearson' ? "Pearson's r" : "Kendall's τ-b";
  const human = settings.human === 'auto' ? 'human score auto' : settings.human === 'all' ? 'all annotators' : settings.human;
  return [
    method,
    human,
    `by ${settings.groupBy}`,
    settings.best === 'absolute' ? 'best: largest |r|' : 'best: largest r',
    ...(settings.variant ? [settings.variant] : []),
    ...(settings.dimension ? [settings.dimension] : []),
    ...(settings.ceiling ? ['human ceiling'] : []),
    settings.intervals ? `intervals B = ${settings.resamples}, seed ${settings.seed}` : 'no intervals',
  ].join(' · ');
}

/** What the controls show; they are rebuilt only when it changes, so a field being typed in keeps focus and text. */
let controlsKey = '';

function renderControls(variants: string[]): void {
  const box = document.getElementById('controls') as HTMLElement;
  const summary = document.getElementById('settings-summary');
  if (summary) summary.textContent = `Settings: ${settingsLine()}`;
  const key = JSON.stringify([variants, settings, view.sort, (lastTable?.columns ?? []).map((c) => [c.key, c.label]), rubricInfo]);
  if (key === controlsKey && box.childElementCount > 0) return;
  controlsKey = key;
  const groupBy = el('input', { id: 'group-by', list: 'group-keys', value: settings.groupBy, size: '18', title: 'origin, model, strategy, source, kind, none, or a candidate field path such as origin.decoding.topP' });
  groupBy.addEventListener('change', () => changeSettings({ groupBy: groupBy.value.trim() || 'origin' }));
  const keys = el('datalist', { id: 'group-keys' }, ...['origin', 'model', 'strategy', 'source', 'kind', 'none', 'origin.decoding.topP', 'origin.decoding.numBeams', 'cluster.representative'].map((k) => el('option', { value: k })));
  const ceiling = el('input', { id: 'ceiling', type: 'checkbox' });
  ceiling.checked = settings.ceiling;
  ceiling.addEventListener('change', () => changeSettings({ ceiling: ceiling.checked }));
  const intervals = el('input', { id: 'intervals', type: 'checkbox' });
  intervals.checked = settings.intervals;
  intervals.addEventListener('change', () => changeSettings({ intervals: intervals.checked }));
  const resamples = el('input', { id: 'resamples', type: 'number', min: '10', step: '100', value: String(settings.resamples), size: '6', 'aria-label': 'bootstrap resamples (B)' });
  resamples.addEventListener('change', () => changeSettings({ resamples: Math.max(1, Math.round(Number(resamples.value) || DEFAULT_SETTINGS.resamples)) }));
  const seed = el('input', { id: 'seed', type: 'number', value: String(settings.seed), size: '6' });
  seed.addEventListener('change', () => changeSettings({ seed: Math.round(Number(seed.value) || 0) }));
  const filter = el('input', { id: 'filter', type: 'search', placeholder: 'filter evaluators', value: view.filter });
  filter.addEventListener('input', () => {
    view.filter = filter.value;
    saveView();
    renderTable();
  });
  const pinLabel = el('input', { id: 'pin-label', placeholder: 'label (optional)', size: '14' });
  const pin = el('button', { id: 'pin', title: 'Keep this configuration as columns beside the current one' }, 'Pin configuration');
  pin.addEventListener('click', () => {
    channel.notify('pin', { label: pinLabel.value });
    pinLabel.value = '';
  });
  const exports = (['md', 'latex', 'csv'] as const).map((f) => {
    const b = el('button', { id: `export-${f}`, class: 'secondary' }, `Export ${f === 'md' ? 'Markdown' : f === 'latex' ? 'LaTeX' : 'CSV'}`);
    b.addEventListener('click', () => channel.notify('export', { format: f }));
    return b;
  });
  box.replaceChildren(
    el(
      'div',
      { class: 'row' },
      select('method', 'Method', [['spearman', "Spearman's ρ"], ['pearson', "Pearson's r"], ['kendall', "Kendall's τ-b"]], settings.method, (v) => changeSettings({ method: v as PanelSettings['method'] })),
      select('human', 'Human score', [['auto', 'auto (experts if any)'], ['experts', 'experts'], ['laypeople', 'laypeople'], ['all', 'all annotators']], settings.human, (v) => changeSettings({ human: v as PanelSettings['human'] })),
      el('label', {}, 'Group by ', groupBy, keys),
      select('best', 'Best', [['absolute', 'largest |r|'], ['signed', 'largest r']], settings.best, (v) => changeSettings({ best: v as PanelSettings['best'] })),
      select('variant', 'Judge variant', [['', 'every variant'], ...variants.map((v): [string, string] => [v, v])], settings.variant, (v) => changeSettings({ variant: v })),
      ...dimensionControls(),
      el('label', { title: 'First rows: one annotator against the rest of the group (leave one annotator out, mean over annotators), and every evaluator against the same targets — is this judge as good as one more annotator? (reflect-eval correlate --ceiling)' }, ceiling, ' human ceiling'),
    ),
    el('div', { class: 'row' }, el('label', {}, intervals, ' bootstrap 95% intervals, B = '), resamples, el('label', {}, ' seed ', seed), filter, el('label', {}, ' sort ', sortSelect())),
    el('div', { class: 'row' }, pinLabel, pin, ...exports),
  );
}

/**
 * The rubric dimension the human score is taken on and its rule, as `correlate --dimension/--human-score` (issue 39
 * item 4): the study's binary, ordinal and numeric dimensions; the rule's choices fit the dimension's type.
 */
function dimensionControls(): HTMLElement[] {
  const r = rubricInfo;
  if (!r || r.dimensions.length === 0) return [];
  const current = r.dimensions.find((d) => d.name === (settings.dimension || r.primary)) ?? r.dimensions[0];
  const rules: [string, string][] = current.type === 'binary' ? [['', 'default (count)'], ['count', 'count'], ['majority', 'majority']] : [['', 'default (mean)'], ['mean', 'mean'], ['median', 'median']];
  return [
    select('dimension', 'Dimension', r.dimensions.map((d): [string, string] => [d.name === r.primary ? '' : d.name, `${d.title}${d.name === r.primary ? ' (primary)' : ''} · ${d.type}`]), settings.dimension && settings.dimension !== r.primary ? settings.dimension : '', (v) => changeSettings({ dimension: v, humanScore: '' })),
    select('human-score', 'Score', rules, rules.some(([v]) => v === (settings.humanScore ?? '')) ? (settings.humanScore ?? '') : '', (v) => changeSettings({ humanScore: v as PanelSettings['humanScore'] })),
  ];
}

function sortSelect(): HTMLSelectElement {
  const s = el('select', { id: 'sort' });
  const options: [string, string][] = [['kind', 'by kind'], ['name', 'by name'], ...(lastTable?.columns ?? []).map((c): [string, string] => [c.key, `by ${c.label}`])];
  for (const [v, t] of options) s.append(el('option', { value: v }, t));
  s.value = options.some(([v]) => v === view.sort) ? view.sort : 'kind';
  s.addEventListener('change', () => {
    view.sort = s.value;
    saveView();
    renderTable();
  });
  return s;
}

function renderPins(pins: { label: string }[]): void {
  const box = document.getElementById('pins') as HTMLElement;
  box.replaceChildren(
    ...pins.map((p, i) => {
      const x = el('button', { class: 'unpin', title: 'Unpin', 'data-index': String(i) }, '×');
      x.addEventListener('click', () => channel.notify('unpin', { index: i }));
      return el('span', { class: 'pin' }, `📌 ${p.label} `, x);
    }),
  );
}

function cellTitle(c: CorrelationCell): string {
  const parts = [...(c.statistic === null ? [undefinedExplanation(c.undefinedReason)] : []), `n = ${c.n}`];
  if (c.pValue !== null) parts.push(`p = ${formatP(c.pValue)}${c.pMethod ? ` (${c.pMethod})` : ''}`);
  if (c.excluded) parts.push(`${c.excluded} left out: ${c.missingScore} without a usable score, ${c.missingLabel} without a label`);
  if (c.ci) parts.push(`${Math.round(c.ci.level * 100)}% CI over ${c.ci.resamples} resamples, ${c.ci.undefinedResamples} undefined`);
  return parts.join('; ');
}

/** Ceiling rows (`withCeilingRows`): the group's leave-one-out ceiling, or an evaluator on the same targets. */
function ceilingKind(r: CorrelationRow): 'ceiling' | 'loo' | null {
  return r.evaluatorId.startsWith('human:ceiling:') ? 'ceiling' : r.evaluatorId.startsWith('loo:') ? 'loo' : null;
}

/** What a row means, on hover of its name. */
function rowTitle(r: CorrelationRow, t: CorrelationTable): string {
  const method = t.method === 'spearman' ? "Spearman's ρ" : t.method === 'pearson' ? "Pearson's r" : "Kendall's τ-b";
  const group = /^(?:human:ceiling|loo):([^:]+)/.exec(r.evaluatorId)?.[1] ?? 'experts';
  const kind = ceilingKind(r);
  if (kind === 'ceiling')
    return `Human ceiling: for each annotator of the ${group}, ${method} between their label and the share of the other ${group} who said coherent (leave one annotator out), averaged over annotators; n = pairs over all annotators, no p (a mean of correlations). An evaluator as good as one more annotator reaches this row. ${r.evaluatorId}`;
  if (kind === 'loo')
    return `${method} between this evaluator's score and the same leave-one-out targets (the share of the other ${group} who said coherent), averaged over the same annotators: compare with the ceiling row above, not with the rows below. ${r.evaluatorId.replace(/^loo:[^:]+:/, '')}`;
  return r.evaluatorId;
}

/** Cells of evaluator rows (current configuration, not pinned ones or the reference) open their responses. */
function td(c: CorrelationCell, group: string, drillable = false): HTMLTableCellElement {
  const cls = ['cell'];
  if (c.significant) cls.push('significant');
  if (c.best) cls.push('best');
  if (c.statistic === null) cls.push('undefined');
  const cell = el('td', { class: cls.join(' '), 'data-column': c.column, 'data-group': group, title: cellTitle(c) }, el('span', { class: 'stat' }, formatStatistic(c)));
  if (drillable && c.n > 0 && c.undefinedReason !== 'not-in-configuration') {
    cell.classList.add('drill');
    cell.tabIndex = 0;
    cell.setAttribute('role', 'button');
    cell.title = `${cell.title}\nClick or Enter: open these responses in the dialogue editor`;
  }
  const drill = cell.classList.contains('drill');
  const ci = formatInterval(c);
  if (ci) cell.append(el('span', { class: 'ci' }, ci));
  if (c.undefinedReason !== 'not-in-configuration') cell.append(el('span', { class: 'n' }, `n = ${c.n}`));
  if (c.pValue !== null) cell.append(el('span', { class: 'p' }, `p = ${formatP(c.pValue)}`));
  if (drill) cell.append(el('span', { class: 'sr-only' }, ': open these responses in the dialogue editor'));
  return cell;
}

function sortRows(rows: CorrelationRow[], t: CorrelationTable): CorrelationRow[] {
  if (view.sort === 'kind') return rows;
  if (view.sort === 'name') return [...rows].sort((a, b) => a.displayName.localeCompare(b.displayName, 'en', { numeric: true }));
  const col = t.columns.findIndex((c) => c.key === view.sort);
  if (col < 0) return rows;
  const key = (r: CorrelationRow) => {
    const s = r.cells[col]?.statistic;
    return s === null || s === undefined ? -Infinity : t.best === 'absolute' ? Math.abs(s) : s;
  };
  return [...rows].sort((a, b) => key(b) - key(a));
}

function renderTable(): void {
  const host = document.getElementById('table') as HTMLElement;
  const t = lastTable;
  if (!t) {
    host.replaceChildren();
    shownTable = null;
    renderPlot();
    return;
  }
  const groupOf = (key: string) => key.slice(key.indexOf(':') + 1);
  const head = el('tr', {}, el('th', {}, 'Evaluator'));
  for (const c of t.columns) {
    const th = el('th', { 'data-column': c.key, class: `sortable${view.sort === c.key ? ' sorted' : ''}`, title: `${c.candidates} responses in ${c.items} items; click to sort` }, c.label);
    th.addEventListener('click', () => {
      view.sort = view.sort === c.key ? 'kind' : c.key;
      saveView();
      renderTable();
      (document.getElementById('sort') as HTMLSelectElement | null)?.replaceWith(sortSelect());
    });
    head.append(th);
  }
  const f = view.filter.trim().toLowerCase();
  const rows = sortRows(
    t.rows.filter((r) => !f || r.displayName.toLowerCase().includes(f) || r.evaluatorId.toLowerCase().includes(f)),
    t,
  );
  // The last configuration's columns are the current one's (pins come first, with their label in the key).
  const configOf = (key: string) => Number(key.slice(0, key.indexOf(':')));
  const last = Math.max(...t.columns.map((c) => configOf(c.key)));
  const current = (key: string) => configOf(key) === last;
  // Cells of the reference and of ceiling rows have no responses of one evaluator to open.
  const tr = (r: CorrelationRow, cls = '') => el('tr', { 'data-evaluator': r.evaluatorId, ...(cls ? { class: cls } : {}) }, el('th', { class: 'evaluator', scope: 'row', title: rowTitle(r, t) }, r.displayName), ...r.cells.map((c) => td(c, groupOf(c.column), cls === '' && current(c.column))));
  const table = el('table', { id: 'correlations', 'data-method': t.method, 'data-human': t.human, 'data-columns': String(t.columns.length) }, el('thead', {}, head), el('tbody', {}, tr(t.reference, 'reference'), ...rows.map((r) => tr(r, ceilingKind(r) ?? ''))));
  const hidden = t.rows.length - rows.length;
  host.replaceChildren(table, ...(hidden ? [el('p', { class: 'muted' }, `${hidden} evaluator(s) hidden by the filter.`)] : []));
  shownTable = { ...t, rows };
  renderPlot();
}

/** The table as shown (filtered and sorted): what the plot draws and exports. */
let shownTable: CorrelationTable | null = null;

/**
 * The plot's stylesheet, added once with the page's nonce: the Content-Security-Policy refuses the `<style>` an
 * SVG would carry inline.
 */
function addPlotStyle(): void {
  if (document.getElementById('forest-plot-style')) return;
  const nonce = (document.querySelector('script[nonce]') as HTMLScriptElement | null)?.nonce ?? '';
  const style = el('style', { id: 'forest-plot-style', ...(nonce ? { nonce } : {}) });
  style.textContent = FOREST_PLOT_CSS;
  document.head.append(style);
}

function renderPlot(): void {
  const box = document.getElementById('plot') as HTMLElement;
  const t = shownTable;
  const section = document.getElementById('plot-section') as HTMLElement;
  section.hidden = !t || t.rows.length === 0;
  if (!t || t.rows.length === 0) {
    box.replaceChildren();
    return;
  }
  addPlotStyle();
  // forestPlotSvg escapes every text and attribute it writes.
  box.innerHTML = forestPlotSvg(t, { embedStyle: false, ...plotLayout(t, box.clientWidth || window.innerWidth - 24) });
  for (const row of box.querySelectorAll('.row')) row.classList.toggle('selected', (row as SVGElement).dataset.evaluator === stripOf);
}

/** Panels as wide as the panel allows (every group visible beside the names down to 120 px a group; then it scrolls). */
function plotLayout(t: CorrelationTable, width: number): { panelWidth: number; labelWidth: number } {
  const labelWidth = Math.max(120, Math.min(300, Math.round(width * 0.3)));
  const cols = Math.max(1, t.columns.length);
  const panelWidth = Math.max(120, Math.min(260, Math.floor((width - labelWidth - 8) / cols) - 16));
  return { panelWidth, labelWidth };
}
let resizeTimer: ReturnType<typeof setTimeout> | undefined;
window.addEventListener('resize', () => {
  clearTimeout(resizeTimer);
  resizeTimer = setTimeout(() => {
    renderPlot();
    renderStrip();
  }, 100);
});

/** The SVG of the plot on screen as a file: its own stylesheet, a white background. */
function plotFile(): string | null {
  return shownTable ? forestPlotSvg(shownTable, { background: '#ffffff' }) : null;
}

function utf8Base64(s: string): string {
  const bytes = new TextEncoder().encode(s);
  let bin = '';
  for (let i = 0; i < bytes.length; i += 0x8000) bin += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(bin);
}

/** Draws the SVG on a canvas at twice its size and returns the PNG's bytes in base64. */
function plotPng(svg: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const img = new Image();
    img.onload = () => {
      const scale = 2;
      const canvas = document.createElement('canvas');
      canvas.width = Math.ceil(img.naturalWidth * scale);
      canvas.height = Math.ceil(img.naturalHeight * scale);
      const ctx = canvas.getContext('2d');
      if (!ctx) return reject(new Error('no 2D canvas'));
      ctx.fillStyle = '#ffffff';
      ctx.fillRect(0, 0, canvas.width, canvas.height);
      ctx.drawImage(img, 0, 0, canvas.width, canvas.height);
      resolve(canvas.toDataURL('image/png').replace(/^data:image\/png;base64,/, ''));
    };
    img.onerror = () => reject(new Error('the plot could not be drawn as an image'));
    img.src = `data:image/svg+xml;base64,${utf8Base64(svg)}`;
  });
}

function renderCompareControls(evaluators: { id: string; name: string }[]): void {
  const box = document.getElementById('compare-controls') as HTMLElement;
  const ids = evaluators.map((e) => e.id);
  if (!ids.includes(view.compareA)) view.compareA = ids.find((id) => id.startsWith('judge:')) ?? ids[0] ?? '';
  if (!ids.includes(view.compareB)) view.compareB = ids.find((id) => id !== view.compareA) ?? '';
  const pick = (id: string, value: string, set: (v: string) => void) => {
    const s = el('select', { id });
    for (const e of evaluators) s.append(el('option', { value: e.id, title: e.id }, e.name));
    s.value = value;
    s.addEventListener('change', () => {
      set(s.value);
      saveView();
    });
    return s;
  };
  const run = el('button', { id: 'compare-run' }, 'Compare');
  run.addEventListener('click', () => {
    if (view.compareA && view.compareB) askComparison(view.compareA, view.compareB);
  });
  box.replaceChildren(el('label', {}, 'A ', pick('compare-a', view.compareA, (v) => (view.compareA = v))), el('label', {}, ' B ', pick('compare-b', view.compareB, (v) => (view.compareB = v))), run);
}

function fmt(v: number | null | undefined): string {
  return v === null || v === undefined ? 'undefined' : formatNumber(v);
}

function renderComparison(cs: EvaluatorComparison[] | null, error: string | undefined, ms: number): void {
  const host = document.getElementById('comparison') as HTMLElement;
  if (!cs) {
    host.replaceChildren(el('p', { class: 'error' }, error ?? 'no comparison'));
    return;
  }
  const head = ['Group', 'n', 'r(A)', 'r(B)', 'r(A,B)', 'Difference', 'CI (bootstrap)', 'p (bootstrap)', "Williams' t (df)", 'p', "Steiger's z", 'p'];
  const rows = cs.map((c) =>
    el(
      'tr',
      { 'data-column': c.column },
      ...[
        c.column,
        String(c.n),
        fmt(c.rA),
        fmt(c.rB),
        fmt(c.rAB),
        fmt(c.difference),
        c.bootstrap ? (c.bootstrap.lower === null ? '[undefined]' : `[${fmt(c.bootstrap.lower)}, ${fmt(c.bootstrap.upper)}]`) : 'intervals off',
        c.bootstrap ? formatP(c.bootstrap.pValue) : '',
        c.williams ? (c.williams.statistic === null ? undefinedPhrase(c.williams.undefinedReason) : `${fmt(c.williams.statistic)} (${c.williams.df})`) : 'n/a (Kendall)',
        c.williams ? formatP(c.williams.pValue) : '',
        c.steiger ? (c.steiger.statistic === null ? undefinedPhrase(c.steiger.undefinedReason) : fmt(c.steiger.statistic)) : 'n/a (Kendall)',
        c.steiger ? formatP(c.steiger.pValue) : '',
      ].map((v, i) => el('td', { class: i === 0 ? '' : 'num' }, v)),
    ),
  );
  const c0 = cs[0];
  host.replaceChildren(
    el('p', { class: 'muted' }, `A = ${c0?.displayA ?? ''}, B = ${c0?.displayB ?? ''}: difference = r(A, human) − r(B, human) on the responses both scored (${Math.round(ms)} ms).`),
    el('table', { id: 'comparison-table' }, el('thead', {}, el('tr', {}, ...head.map((h) => el('th', {}, h)))), el('tbody', {}, ...rows)),
  );
}

/** The evaluator whose strip plot is shown. */
let stripOf: string | null = null;
let stripData: { name: string; panels: StripPanel[] } | null = null;

function renderStrip(): void {
  const box = document.getElementById('strip') as HTMLElement;
  box.hidden = !stripData;
  if (!stripData) {
    box.replaceChildren();
    return;
  }
  const width = box.clientWidth || window.innerWidth - 24;
  const panelWidth = Math.max(120, Math.min(260, Math.floor((width - 52) / Math.max(1, stripData.panels.length)) - 20));
  box.innerHTML = stripPlotSvg(stripData.name, stripData.panels, { embedStyle: false, panelWidth });
  for (const row of document.querySelectorAll('#plot .row')) row.classList.toggle('selected', (row as SVGElement).dataset.evaluator === stripOf);
}

/** A table cell (its row's evaluator, its column): open its responses in the dialogue editor, show its strip plot. */
function openCell(cell: HTMLElement): void {
  const evaluator = (cell.closest('tr') as HTMLElement | null)?.dataset.evaluator;
  const column = cell.dataset.column;
  if (!evaluator || !column) return;
  channel.notify('openCell', { evaluator, column });
  askStrip(evaluator);
}

/** Ceiling rows correlate leave-one-out targets: they have no responses of their own to list or plot. */
const ownResponses = (id: string) => !/^(?:human:ceiling|loo):/.test(id);

/**
 * A strip-plot point: its cell's responses as a list in the dialogue editor, at this response (issue 41 item 4).
 * The strip plot is of the current configuration (`strip:` stands for it before the group).
 */
function openPoint(pt: SVGElement): void {
  const { item, candidate, column } = pt.dataset;
  if (!item || !candidate || !column || !stripOf) return;
  closeChooser();
  channel.notify('openCell', { evaluator: stripOf, column: `strip:${column}`, at: { itemId: item, candidateId: candidate } });
}

/** The strip-plot points under a click (drawn on top of one another), topmost first. */
function pointsAt(x: number, y: number, panel: Element): SVGElement[] {
  return [...panel.querySelectorAll<SVGElement>('.pt')]
    .filter((pt) => {
      const r = pt.getBoundingClientRect();
      // Under the click: within the drawn circle (its stroke included).
      return Math.hypot(r.left + r.width / 2 - x, r.top + r.height / 2 - y) <= r.width / 2 + 0.5;
    })
    .reverse();
}

/** Closes the chooser of overlapping points; focus goes back to the strip plot when it was in the chooser. */
function closeChooser(): void {
  const box = document.getElementById('point-chooser');
  if (!box) return;
  const had = box.contains(document.activeElement);
  box.remove();
  if (had) (document.getElementById('strip') as HTMLElement | null)?.focus();
}

/**
 * A click landed on several points drawn on top of one another (issue 41 item 4): a small chooser lists them —
 * each the response's item, candidate, score and human score — instead of opening whichever is drawn on top.
 * Keyboard: it takes focus; ↑/↓ (or Tab) move, Enter opens, Escape closes.
 */
function showChooser(points: SVGElement[], x: number, y: number): void {
  closeChooser();
  const buttons = points.map((pt) => {
    const b = el('button', { type: 'button', class: 'choice', role: 'menuitem', 'data-item': pt.dataset.item ?? '', 'data-candidate': pt.dataset.candidate ?? '' }, pt.querySelector('title')?.textContent ?? `${pt.dataset.item} · ${pt.dataset.candidate}`);
    b.addEventListener('click', (e) => {
      e.stopPropagation();
      openPoint(pt);
    });
    return b;
  });
  const box = el('div', { id: 'point-chooser', role: 'menu', 'aria-label': `${points.length} responses at this point` }, el('div', { class: 'muted chooser-head' }, `${points.length} responses here — choose one (Esc closes)`), ...buttons);
  box.addEventListener('keydown', (e) => {
    const at = buttons.indexOf(document.activeElement as HTMLButtonElement);
    if (e.key === 'Escape') closeChooser();
    else if (e.key === 'ArrowDown' || e.key === 'ArrowUp') buttons[(at + (e.key === 'ArrowDown' ? 1 : buttons.length - 1)) % buttons.length]?.focus();
    else return;
    e.preventDefault();
    e.stopPropagation();
  });
  document.body.append(box);
  const w = box.offsetWidth;
  box.style.left = `${Math.max(4, Math.min(window.scrollX + x + 6, window.scrollX + window.innerWidth - w - 8))}px`;
  // Below the click, or above it when the panel ends first.
  const h = box.offsetHeight;
  box.style.top = `${window.scrollY + (y + 6 + h > window.innerHeight && y - 6 - h >= 0 ? y - 6 - h : y + 6)}px`;
  buttons[0]?.focus();
}

// A click on a forest-plot row shows its strip plot; a click on a forest-plot point or a table cell opens its
// responses as a list in the editor (and shows the row's strip plot); a strip point opens its cell's list at it.
(document.getElementById('app') as HTMLElement).addEventListener('keydown', (e) => {
  const cell = (e.target as Element).closest?.('td.cell.drill') as HTMLElement | null;
  if (cell && (e.key === 'Enter' || e.key === ' ')) {
    e.preventDefault();
    openCell(cell);
  }
});
document.addEventListener('click', (e) => {
  const chooser = document.getElementById('point-chooser');
  if (chooser && !chooser.contains(e.target as Node)) closeChooser();
});
(document.getElementById('app') as HTMLElement).addEventListener('click', (e) => {
  const target = e.target as Element;
  const cell = target.closest('td.cell.drill') as HTMLElement | null;
  if (cell) {
    openCell(cell);
    return;
  }
  const pt = target.closest('#strip .pt') as SVGElement | null;
  if (pt) {
    e.stopPropagation();
    const under = pointsAt(e.clientX, e.clientY, pt.closest('.panel') ?? pt);
    if (under.length > 1) showChooser(under, e.clientX, e.clientY);
    else openPoint(pt);
    return;
  }
  const point = target.closest('#plot g.cell') as SVGElement | null;
  if (point?.dataset.evaluator && point.dataset.column && ownResponses(point.dataset.evaluator) && lastTable?.rows.some((r) => r.evaluatorId === point.dataset.evaluator)) {
    channel.notify('openCell', { evaluator: point.dataset.evaluator, column: point.dataset.column });
    askStrip(point.dataset.evaluator);
    return;
  }
  const row = target.closest('#plot [data-evaluator]') as SVGElement | null;
  const id = row?.dataset.evaluator;
  if (id && ownResponses(id) && lastTable?.rows.some((r) => r.evaluatorId === id)) {
    askStrip(id);
  }
});

/** The strip plot request on its way (a newer one withdraws it). */
let stripRequest: AbortController | undefined;

/** Asks for one evaluator's strip plot; the answer is drawn if that evaluator is still the one chosen. */
function askStrip(evaluator: string): void {
  stripOf = evaluator;
  stripRequest?.abort();
  stripRequest = new AbortController();
  channel.request('strip', { evaluator }, { signal: stripRequest.signal, onResult: (m: StripView | null) => {
    if (!m || m.evaluator !== stripOf) return;
    stripData = { name: m.name, panels: m.panels };
    renderStrip();
  } });
}

/** The comparison on its way (a newer one withdraws it). */
let comparisonRequest: AbortController | undefined;

function askComparison(a: string, b: string): void {
  comparisonRequest?.abort();
  comparisonRequest = new AbortController();
  channel.request('compare', { a, b }, { signal: comparisonRequest.signal, onResult: (m: ComparisonView | null) => m && renderComparison(m.comparisons, m.error, m.ms) });
}

channel.on('table', (m: TableView, env) => {
  sync.receive(m.settings, env.done.webview);
  settings = sync.settings;
  lastTable = m.table;
  const app = document.getElementById('app') as HTMLElement;
  app.dataset.state = m.intervals;
  (document.getElementById('title') as HTMLElement).textContent = m.file ? `Correlations: ${m.file}` : 'Correlations';
  const summary = document.getElementById('summary') as HTMLElement;
  if (!m.file || !m.table) {
    summary.textContent = 'Open a dialogue file in the ReflectEval editor.';
    (document.getElementById('group-change') as HTMLElement).hidden = true;
    (document.getElementById('notes') as HTMLElement).replaceChildren();
    (document.getElementById('table') as HTMLElement).replaceChildren();
    shownTable = null;
    renderPlot();
    (document.getElementById('status') as HTMLElement).textContent = '';
    return;
  }
  const t = m.table;
  const human = t.human === 'experts' ? 'the experts' : t.human === 'laypeople' ? 'the laypeople' : 'all annotators';
  const sum = m.summary;
  // The CLI's sentence and notes for this table (core/correlation/tableSummary.ts), then how it is shown here.
  summary.textContent = `${sum ? `${sum.description} Human group: ${human}, ${sum.labelled} labelled of ${sum.total} responses.` : ''} Italics: p < ${t.alpha}; bold: best in column${t.rows.some((r) => ceilingKind(r) === 'ceiling') ? '; after the reference, the human ceiling (one annotator against the rest) and each evaluator against the same leave-one-out targets' : ''}.`;
  const change = document.getElementById('group-change') as HTMLElement;
  change.hidden = !sum?.groupChange;
  change.textContent = sum?.groupChange ?? '';
  (document.getElementById('notes') as HTMLElement).replaceChildren(...(sum?.notes ?? []).map((n) => {
    const li = document.createElement('li');
    li.textContent = n;
    return li;
  }));
  const status = document.getElementById('status') as HTMLElement;
  const intervals = m.intervals === 'computing' ? 'computing intervals…' : m.intervals === 'done' ? `intervals ${Math.round(m.timing.intervalsMs ?? 0)} ms (B = ${m.settings.resamples}, seed ${m.settings.seed})` : m.intervals === 'failed' ? `intervals failed: ${m.message}` : 'intervals off';
  status.textContent = `table ${m.timing.tableMs.toFixed(1)} ms for ${m.timing.candidates} responses · ${intervals}`;
  status.dataset.tableMs = String(m.timing.tableMs);
  if (m.timing.intervalsMs !== undefined) status.dataset.intervalsMs = String(m.timing.intervalsMs);
  rubricInfo = m.rubric;
  renderControls(m.variants);
  renderPins(m.pins);
  renderTable();
  if (stripOf && m.table.rows.some((r) => r.evaluatorId === stripOf)) askStrip(stripOf);
  else {
    stripOf = null;
    stripData = null;
    renderStrip();
  }
  renderCompareControls(m.evaluators);
});

skeleton();
(document.getElementById('export-svg') as HTMLElement).addEventListener('click', () => {
  const svg = plotFile();
  if (svg) channel.notify('exportPlot', { format: 'svg', data: svg });
});
(document.getElementById('export-png') as HTMLElement).addEventListener('click', () => {
  const svg = plotFile();
  if (svg) void plotPng(svg).then((data) => channel.notify('exportPlot', { format: 'png', data }), (err: Error) => ((document.getElementById('status') as HTMLElement).textContent = err.message));
});
channel.notify('ready', {});
