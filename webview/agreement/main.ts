/**
 * The agreement & error analyses panel's webview: renders the analysis the host computes (Table 4, coherence
 * scores by group, Figures 3 and 4) as tables and Chart.js charts. Numbers are formatted as `reflect-eval
 * agreement` prints them (kappa and means to 3 decimals, rates as percentages to 1 decimal).
 */
import { BarController, BarElement, CategoryScale, Chart, Legend, LinearScale, Tooltip, type ChartConfiguration } from 'chart.js';
import type { AgreementRow, AgreementTable } from '../../src/core/agreement/agreementTable';
import { formatNumber } from '../../src/core/tables/numberFormat';
import { el } from '../shared/dom';
import { WebviewChannel } from '../shared/ipc';
import type { AgreementProtocol, AnalysisMessage, AnalysisView, DimensionAgreementView, ErrorCategoryTableView, ExportableTable } from './protocol';

Chart.register(BarController, BarElement, CategoryScale, LinearScale, Legend, Tooltip);

const channel = new WebviewChannel<AgreementProtocol>();

const $ = (id: string) => document.getElementById(id) as HTMLElement;
const num = (v: number | null, digits = 3) => (v === null ? '–' : formatNumber(v, digits));
const pct = (v: number | null) => (v === null ? '–' : `${(v * 100).toFixed(1)}%`);

/** A theme colour (VS Code's CSS variables), with a fallback outside VS Code. */
function theme(name: string, fallback: string): string {
  return getComputedStyle(document.body).getPropertyValue(`--vscode-${name}`).trim() || fallback;
}

/** Kappa interpretation as in the caption of Table 4 (Landis and Koch's bands). */
function interpretation(k: number | null): string {
  if (k === null) return 'undefined';
  if (k < 0) return 'poor';
  if (k <= 0.2) return 'slight';
  if (k <= 0.4) return 'fair';
  if (k <= 0.6) return 'moderate';
  if (k <= 0.8) return 'substantial';
  return 'almost perfect';
}

function table(header: string[], rows: HTMLTableRowElement[], cls = ''): HTMLTableElement {
  return el('table', cls ? { class: cls } : {}, el('thead', {}, el('tr', {}, ...header.map((h) => el('th', {}, h)))), el('tbody', {}, ...rows));
}
const td = (text: string, attrs: Record<string, string> = {}) => el('td', attrs, text);
const numTd = (text: string, attrs: Record<string, string> = {}) => el('td', { class: 'num', ...attrs }, text);

function kappaCell(row: AgreementRow | undefined, group: string): HTMLTableCellElement[] {
  if (!row) return [numTd('–'), numTd('–')];
  const title = row.kappa === null ? `undefined: ${row.undefinedReason ?? 'no subjects'}` : `${row.kappa} (${interpretation(row.kappa)}); ${row.raters} ratings per subject`;
  return [numTd(num(row.kappa), { 'data-kappa': row.kappa === null ? '' : String(row.kappa), 'data-group': group, title }), numTd(String(row.subjects), { 'data-subjects': String(row.subjects) })];
}

function renderKappa(a: AnalysisView): void {
  const box = $('kappa');
  const groups = a.agreement.filter((t) => t.rows.length > 0);
  if (groups.length === 0) {
    box.replaceChildren(el('p', { class: 'muted' }, 'No response has coherence labels from two or more annotators yet.'));
    return;
  }
  const header = ['Annotation item', ...groups.flatMap((t: AgreementTable) => [`${t.group} (n=${t.raters ?? '–'}) IAA`, '#Sub'])];
  const rows: HTMLTableRowElement[] = [];
  for (const [title, derived] of [['Original', false], ['Derived', true]] as const) {
    rows.push(el('tr', { class: 'section' }, el('td', { colspan: String(header.length) }, title)));
    for (const r of groups[0].rows.filter((x) => x.derived === derived)) {
      rows.push(el('tr', { 'data-key': r.key }, td(r.label), ...groups.flatMap((t) => kappaCell(t.rows.find((x) => x.key === r.key), t.group))));
    }
  }
  const notes: string[] = [];
  for (const t of groups) {
    for (const [reason, n] of Object.entries(t.leftOut)) notes.push(`${t.group}: ${n} response(s) left out of every row: ${reason}`);
    for (const r of t.rows) for (const [reason, n] of Object.entries(r.leftOut)) notes.push(`${t.group}, ${r.label}: ${n} left out: ${reason}`);
  }
  box.replaceChildren(
    table(header, rows, 'kappa'),
    el('p', { class: 'muted', id: 'kappa-legend' }, '(M): category merging. IAA (Landis and Koch): poor (< 0), slight (0.00–0.20), fair (0.21–0.40), moderate (0.41–0.60), substantial (0.61–0.80), almost perfect (0.81–1.00). Hover a value for its interpretation.'),
    ...(notes.length ? [el('ul', { class: 'notes muted' }, ...notes.map((n) => el('li', {}, n)))] : []),
  );
}

function renderGroups(a: AnalysisView): void {
  const gc = a.groupCoherence.filter((g) => g.responses > 0);
  $('groups').replaceChildren(
    gc.length === 0
      ? el('p', { class: 'muted' }, 'No response is labelled by both laypeople and experts.')
      : table(
          ['strategy', 'responses', 'mean laypeople', 'mean experts', 'share laypeople', 'share experts', "Spearman's ρ", 'p'],
          gc.map((g) =>
            el(
              'tr',
              { 'data-strategy': g.strategy },
              td(g.strategy),
              numTd(String(g.responses)),
              numTd(num(g.meanLaypeople)),
              numTd(num(g.meanExperts)),
              numTd(pct(g.meanShareLaypeople)),
              numTd(pct(g.meanShareExperts)),
              numTd(num(g.spearman.statistic), g.spearman.statistic === null ? { title: g.spearman.undefinedReason ?? '' } : {}),
              numTd(g.spearman.pValue === null ? '–' : g.spearman.pValue.toPrecision(3)),
            ),
          ),
        ),
  );
}

const charts = new Map<string, Chart>();

/**
 * Draws a chart, or hides its box when there is nothing to plot (one annotator, too few labelled responses): empty
 * axes read as a broken chart; the text beside it says why nothing is shown.
 */
function drawChart(id: string, config: ChartConfiguration<'bar'>, data: unknown[]): void {
  charts.get(id)?.destroy();
  charts.delete(id);
  const canvas = $(id) as HTMLCanvasElement;
  canvas.dataset.values = JSON.stringify(data);
  const box = canvas.parentElement as HTMLElement;
  box.hidden = data.length === 0;
  if (data.length === 0) return;
  charts.set(id, new Chart(canvas, config));
}

/** Whether a high-contrast theme is active (bars then get a border in the contrast colour). */
const highContrast = () => document.body.classList.contains('vscode-high-contrast') || document.body.classList.contains('vscode-high-contrast-light');

/** A colour of the panel's colour-blind-safe palette (media/agreement.css, per theme kind). */
function palette(name: string, fallback: string): string {
  return getComputedStyle(document.body).getPropertyValue(`--re-${name}`).trim() || fallback;
}

/** Bar outline: the theme's contrast border in high-contrast themes (segments stay apart), none otherwise. */
function barBorder(): { borderColor: string; borderWidth: number } {
  return highContrast() ? { borderColor: theme('contrastBorder', theme('foreground', '#fff')), borderWidth: 1 } : { borderColor: 'transparent', borderWidth: 0 };
}

function commonOptions(yTitle: string, stacked: boolean): ChartConfiguration<'bar'>['options'] {
  const fg = theme('foreground', '#ccc');
  const grid = theme('panel-border', 'rgba(128,128,128,0.3)');
  return {
    animation: false,
    maintainAspectRatio: false,
    responsive: true,
    scales: {
      x: { stacked, ticks: { color: fg }, grid: { color: grid } },
      y: { stacked, min: 0, max: 100, ticks: { color: fg, callback: (v) => `${v}%` }, grid: { color: grid }, title: { display: true, text: yTitle, color: fg } },
    },
    plugins: { legend: { labels: { color: fg } } },
  };
}

function renderCoherence(a: AnalysisView): void {
  const shown = a.coherenceRates.filter((r) => r.shown);
  const hidden = a.coherenceRates.filter((r) => !r.shown);
  const who = a.options.majorityGroup === 'all' ? 'all annotators' : a.options.majorityGroup;
  const canvas = $('coherence-chart') as HTMLCanvasElement;
  canvas.setAttribute('aria-label', `Coherence rate per decoding strategy: ${shown.map((r) => `${r.strategy} ${pct(r.rate)}`).join(', ')}`);
  const human = palette('human', '#009e73');
  const model = palette('model', '#0072b2');
  drawChart(
    'coherence-chart',
    {
      type: 'bar',
      data: {
        labels: shown.map((r) => r.strategy),
        datasets: [{ label: 'coherence rate', data: shown.map((r) => (r.rate ?? 0) * 100), backgroundColor: shown.map((r) => (r.human ? human : model)), ...barBorder() }],
      },
      options: {
        ...commonOptions('coherent & consistent (majority vote)', false),
        plugins: {
          legend: { display: false },
          tooltip: { callbacks: { label: (ctx) => `${pct(shown[ctx.dataIndex].rate)} (${shown[ctx.dataIndex].coherent} of ${shown[ctx.dataIndex].labelled})` } },
        },
      },
    },
    shown.map((r) => ({ strategy: r.strategy, rate: r.rate })),
  );
  const prop = a.propagation.enabled && a.propagation.propagatedResponses > 0;
  $('coherence').replaceChildren(
    el('p', { class: 'muted' }, `Majority vote of ${who}; strategies with at least ${a.options.minResponses} majority-labelled responses.${shown.length === 0 ? ' None has that many yet.' : ''}`),
    ...(shown.length
      ? [
          table(
            ['strategy', 'responses', 'labelled', 'coherent', 'incoherent', 'no majority', ...(prop ? ['propagated'] : []), 'rate'],
            shown.map((r) =>
              el(
                'tr',
                { 'data-strategy': r.strategy },
                td(r.strategy),
                numTd(String(r.responses)),
                numTd(String(r.labelled)),
                numTd(String(r.coherent)),
                numTd(String(r.incoherent)),
                numTd(String(r.noMajority)),
                ...(prop ? [numTd(String(r.propagated))] : []),
                numTd(pct(r.rate), { 'data-rate': r.rate === null ? '' : String(r.rate) }),
              ),
            ),
            'figure-data',
          ),
        ]
      : []),
    ...(hidden.length ? [el('p', { class: 'muted' }, `Not shown (fewer than ${a.options.minResponses} labelled): ${hidden.map((r) => `${r.strategy} (${r.labelled})`).join(', ')}`)] : []),
    ...(a.propagation.enabled && a.propagation.clusters > 0 ? [el('p', { class: 'muted' }, `Cluster propagation: ${a.propagation.propagatedResponses} response(s) took their cluster representative's label (${a.propagation.clusters} clusters).`)] : []),
  );
}

/**
 * Colours of Figure 4's categories: Okabe and Ito's colour-blind-safe palette, lighter variants on dark themes
 * (media/agreement.css); neighbouring stacked segments differ in hue and lightness.
 */
function categoryColour(key: string): string {
  const fallback: Record<string, string> = { malformed: '#e69f00', parroting: '#0072b2', hallucinatory: '#cc79a7', other: '#009e73', noMajority: '#999999' };
  return palette(`category-${key}`, fallback[key] ?? '#56b4e9');
}

function renderErrors(a: AnalysisView): void {
  const { categories, rows } = a.errorDistribution;
  const shown = rows.filter((r) => r.shown);
  const hidden = rows.filter((r) => !r.shown);
  drawChart(
    'error-chart',
    {
      type: 'bar',
      data: {
        labels: shown.map((r) => r.strategy),
        datasets: categories.map((c) => ({
          label: c.label,
          data: shown.map((r) => r.shares[c.key] * 100),
          backgroundColor: categoryColour(c.key),
          ...barBorder(),
        })),
      },
      options: {
        ...commonOptions('share of majority-incoherent responses', true),
        plugins: {
          legend: { labels: { color: theme('foreground', '#ccc') } },
          tooltip: { callbacks: { label: (ctx) => `${ctx.dataset.label}: ${pct(shown[ctx.dataIndex].shares[categories[ctx.datasetIndex].key])} (${shown[ctx.dataIndex].counts[categories[ctx.datasetIndex].key]})` } },
        },
      },
    },
    shown.map((r) => ({ strategy: r.strategy, shares: r.shares })),
  );
  ($('error-chart') as HTMLCanvasElement).setAttribute('aria-label', `Most evident error per decoding strategy, ${shown.length} strategies`);
  $('errors').replaceChildren(
    el('p', { class: 'muted' }, `Majority vote on the consensus-adjusted MEE after merging Dialogue-contradicting, Off-topic and On-topic but unverifiable into Hallucinatory, over majority-incoherent responses; strategies with at least ${a.options.minResponses} of them.${shown.length === 0 ? ' None has that many yet.' : ''}`),
    ...(shown.length
      ? [
          table(
            ['strategy', 'incoherent', ...categories.map((c) => c.label)],
            shown.map((r) => el('tr', { 'data-strategy': r.strategy }, td(r.strategy), numTd(String(r.incoherent)), ...categories.map((c) => numTd(`${pct(r.shares[c.key])} (${r.counts[c.key]})`, { 'data-category': c.key })))),
            'figure-data',
          ),
        ]
      : []),
    ...(hidden.length ? [el('p', { class: 'muted' }, `Not shown (fewer than ${a.options.minResponses} incoherent): ${hidden.map((r) => `${r.strategy} (${r.incoherent})`).join(', ')}`)] : []),
  );
}

/** Each error-category judge's table: the text export's cells, kappa interpreted on hover. */
function renderErrorCategories(views: ErrorCategoryTableView[]): void {
  const section = $('error-categories-section');
  section.hidden = views.length === 0;
  $('error-categories').replaceChildren(
    ...views.flatMap((v) => [
      el('h4', { title: v.evaluatorId }, v.title),
      table(
        v.columns,
        v.cells.map((row, i) =>
          el(
            'tr',
            { 'data-evaluator': v.evaluatorId, 'data-row': v.rowKeys[i] },
            ...row.map((cell, j) =>
              j === 0 ? td(cell) : numTd(cell, v.columns[j] === "Cohen's kappa" ? { 'data-kappa': v.kappas[i] === null ? '' : String(v.kappas[i]), title: `${interpretation(v.kappas[i])} agreement (Landis and Koch)` } : {}),
            ),
          ),
        ),
        'error-categories',
      ),
      el('ul', { class: 'notes muted' }, ...v.notes.map((n) => el('li', {}, n))),
    ]),
  );
}

/** Sections of the first study's analyses (the MI preset's), hidden on a study with its own rubric. */
const MI_SECTIONS = ['kappa-section', 'groups-section', 'coherence-section', 'errors-section'];

/**
 * A study with its own rubric: the dimension picker (every dimension but free text) and the picked dimension's
 * coefficients per annotator group, the one that fits its type named first (`reflect-eval agreement --dimension`).
 */
function renderDimension(m: AnalysisMessage): void {
  const r = m.rubric!;
  const view = m.dimension as DimensionAgreementView;
  const picker = el('select', { id: 'dimension-select', 'aria-label': 'Dimension' }, ...r.dimensions.map((d) => {
    const o = el('option', { value: d.name }, `${d.title}${d.name === r.primary ? ' (primary)' : ''} · ${d.type}`);
    if (d.name === view.dimension) o.setAttribute('selected', '');
    return o;
  }));
  picker.addEventListener('change', () => channel.notify('pickDimension', { dimension: (picker as HTMLSelectElement).value }));
  $('dimension-picker').replaceChildren(el('label', {}, 'Dimension ', picker), el('span', { class: 'muted' }, `of the rubric "${r.name}"; the coefficient that fits its type first (Fleiss' kappa for binary and categorical, Krippendorff's alpha at the ordinal or interval level otherwise)`));
  $('dimension').replaceChildren(
    ...(view.tables.length === 0 ? [el('p', { class: 'muted' }, 'No response has labels of this dimension from two or more annotators yet.')] : []),
    ...view.tables.flatMap((t) => [
      el('h4', {}, t.title),
      el('p', { class: 'headline' }, ...t.rows.map((row, i) => el('span', { 'data-row': row.key, 'data-headline': row.headline.value === null ? '' : String(row.headline.value) }, `${i > 0 ? ' · ' : ''}${t.rows.length > 1 ? `${t.cells[i]?.[0] ?? row.key}: ` : ''}${row.headline.name} ${num(row.headline.value)}`))),
      table(t.columns, t.cells.map((row, i) => el('tr', { 'data-row': t.rows[i]?.key ?? '', 'data-group': t.group }, ...row.map((cell, j) => (j === 0 ? td(cell) : numTd(cell))))), 'dimension-coefficients'),
      el('ul', { class: 'notes muted' }, ...t.notes.map((n) => el('li', {}, n))),
    ]),
  );
}

channel.on('analysis', (m: AnalysisMessage) => {
  $('title').textContent = m.file ? `Agreement & error analyses: ${m.file}` : 'Agreement & error analyses';
  $('cli').replaceChildren(...(m.cli ? ['Same numbers on the command line: ', el('code', {}, m.cli)] : []));
  const own = Boolean(m.rubric && m.dimension);
  $('dimension-section').hidden = !own;
  for (const id of MI_SECTIONS) $(id).hidden = own;
  if (own) {
    document.body.classList.remove('empty');
    renderErrorCategories([]);
    $('summary').textContent = `A study with its own rubric ("${m.rubric!.name}"): agreement per dimension.`;
    renderDimension(m);
    return;
  }
  document.body.classList.toggle('empty', !m.analysis);
  const a = m.analysis;
  renderErrorCategories(m.errorCategories);
  if (!a) {
    $('summary').textContent = m.error ? `Cannot analyse this file: ${m.error}` : 'Open a dialogue file in the ReflectEval editor.';
    for (const id of ['kappa', 'groups', 'coherence', 'errors']) $(id).replaceChildren();
    for (const c of charts.values()) c.destroy();
    charts.clear();
    return;
  }
  const s = a.summary;
  const experts = s.annotators.filter((x) => x.group === 'expert').length;
  $('summary').textContent = `${s.items} items, ${s.candidates} responses (${s.labelledCandidates} labelled), ${s.annotations} annotations by ${s.annotators.length} annotator${s.annotators.length === 1 ? '' : 's'} (${experts} expert${experts === 1 ? '' : 's'}, ${s.annotators.length - experts} laypeople; experts: names starting "${a.options.expertPrefix}" or group "expert").`;
  renderKappa(a);
  renderGroups(a);
  renderCoherence(a);
  renderErrors(a);
});

for (const b of document.querySelectorAll<HTMLButtonElement>('button.csv')) {
  b.title = 'Export this table as CSV (the layout of reflect-eval agreement --csv)';
  b.addEventListener('click', () => channel.notify('exportCsv', { table: b.dataset.table as ExportableTable }));
}
channel.notify('ready', {});
