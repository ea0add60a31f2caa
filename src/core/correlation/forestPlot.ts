/**
 * A forest plot of a correlation table as an SVG string (no DOM, so the CLI writes it and the panel shows it):
 * one row per evaluator, one panel per column (response group); in each panel the evaluator's correlation as a
 * point (filled when p < α) and its bootstrap interval as whiskers, the laypeople–experts reference row as a dashed
 * vertical line (ICMI 2023 Table 2: how far an evaluator is from the agreement between two human groups), and zero
 * as a thin solid line. Undefined cells say why in a short phrase.
 *
 * Colours are CSS custom properties with light-theme fallbacks: inside a VS Code webview the plot takes the theme's
 * colours (`--vscode-foreground`, `--vscode-charts-blue`, …); as a file it is dark ink on white.
 */
import { showsReferenceRow } from './referenceRow';
import type { CellPoint, CorrelationCell, CorrelationRow, CorrelationTable } from './correlationTable';
import { formatInterval, formatNumber, formatP, undefinedExplanation, undefinedPhrase } from '../tables/numberFormat';

/** Layout of the plot; every length in CSS pixels. */
export interface ForestPlotOptions {
  /** Width of one column's panel (default 220). */
  panelWidth?: number;
  /** Height of one evaluator row (default 22). */
  rowHeight?: number;
  /** Width kept for the evaluator names (default: from the longest name, 140–380). */
  labelWidth?: number;
  /** Title above the plot (default: method and human group). */
  title?: string;
  /** Paint a background (`#ffffff` for a file; default none, so a webview's shows through). */
  background?: string;
  /** Embed {@link FOREST_PLOT_CSS} in a `<style>` element (default true). */
  embedStyle?: boolean;
}

/**
 * The plot's stylesheet: theme colours as VS Code CSS variables with light fallbacks. Embedded in the SVG unless
 * `embedStyle` is false (a webview whose Content-Security-Policy refuses inline styles adds it with its nonce).
 */
export const FOREST_PLOT_CSS = `.forest-plot { color: var(--vscode-foreground, #1f1f1f); }
.forest-plot text { fill: var(--vscode-foreground, #1f1f1f); }
.forest-plot .muted { fill: var(--vscode-descriptionForeground, #616161); }
.forest-plot .grid { stroke: var(--vscode-panel-border, #d4d4d4); stroke-width: 1; }
.forest-plot .zero { stroke: var(--vscode-descriptionForeground, #8a8a8a); stroke-width: 1; }
.forest-plot .reference { stroke: var(--vscode-charts-orange, #c25e00); stroke-width: 1.5; stroke-dasharray: 5 3; }
.forest-plot .reference-band { fill: var(--vscode-charts-orange, #c25e00); fill-opacity: 0.12; }
.forest-plot text.reference-label { fill: var(--vscode-charts-orange, #c25e00); }
.forest-plot .whisker { stroke: var(--vscode-charts-blue, #0063b1); stroke-width: 1.5; }
.forest-plot .point { stroke: var(--vscode-charts-blue, #0063b1); stroke-width: 1.5; fill: var(--vscode-editor-background, #ffffff); }
.forest-plot .point.significant { fill: var(--vscode-charts-blue, #0063b1); }
.forest-plot .best text, .forest-plot text.best { font-weight: 700; }
.forest-plot .row:hover .row-bg, .forest-plot .row.selected .row-bg { fill: var(--vscode-list-hoverBackground, #f0f0f0); }
.forest-plot .row-bg { fill: transparent; }`;

/** Escapes text for SVG/XML content and attribute values. */
export function escapeXml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' })[c] as string);
}

const SYMBOL = { spearman: 'ρ', pearson: 'r', kendall: 'τ-b' } as const;
const FONT = 12;
/** Average glyph width of the sans-serif font at 12 px, for sizing the name column without a DOM. */
const CHAR = 6.6;

/** Line height of a wrapped evaluator name, px. */
const LINE = 14;

function truncate(s: string, maxChars: number): string {
  return s.length <= maxChars ? s : `${s.slice(0, Math.max(1, maxChars - 1))}…`;
}

/**
 * Splits a name into lines of at most `maxChars` characters, breaking at spaces (a word longer than a line is cut
 * into pieces), so that every character of the name is drawn: two evaluators whose names share a long prefix never
 * read the same (issue 41 item 5). Joining the lines with single spaces (pieces of a cut word without) gives the
 * name back with its runs of white space made single.
 *
 * @param name - the evaluator's display name
 * @param maxChars - characters per line, ≥ 1
 * @returns at least one line, none longer than `maxChars`
 */
export function wrapName(name: string, maxChars: number): string[] {
  const width = Math.max(1, Math.floor(maxChars));
  const lines: string[] = [];
  let line = '';
  for (const word of name.trim().split(/\s+/)) {
    let rest = word;
    if (line && line.length + 1 + rest.length <= width) {
      line += ` ${rest}`;
      continue;
    }
    if (line) lines.push(line);
    line = '';
    while (rest.length > width) {
      lines.push(rest.slice(0, width));
      rest = rest.slice(width);
    }
    line = rest;
  }
  if (line || lines.length === 0) lines.push(line);
  return lines;
}

/**
 * The forest plot of `t` as a standalone SVG document (`<svg xmlns=…>`), rows in the table's order.
 *
 * Each evaluator row is a `<g class="row" data-evaluator="<id>">`; each point a `<g class="cell" data-evaluator
 * data-column>` with a `<title>` (value, interval, p, n) — the panel hangs clicks on these. Names longer than the
 * label column wrap onto more lines ({@link wrapName}; the row grows), so the drawing — and a file exported from it —
 * names every evaluator in full; the full name and id are also in the row's `<title>`.
 *
 * @param t - a correlation table ({@link correlationTable}); intervals are drawn when it has them
 * @returns the SVG text (UTF-8), all user text escaped
 */
export function forestPlotSvg(t: CorrelationTable, options: ForestPlotOptions = {}): string {
  const panelWidth = options.panelWidth ?? 220;
  const rowHeight = options.rowHeight ?? 22;
  const rows = t.rows;
  const longest = Math.max(10, ...rows.map((r) => r.displayName.length));
  const labelWidth = options.labelWidth ?? Math.min(380, Math.max(140, Math.ceil(longest * CHAR) + 16));
  const maxChars = Math.floor((labelWidth - 16) / CHAR);
  const gap = 16;
  const top = 74;
  const names = rows.map((r) => wrapName(r.displayName, maxChars));
  const heights = names.map((lines) => Math.max(rowHeight, lines.length * LINE + 8));
  const tops: number[] = [];
  heights.reduce((y, h) => (tops.push(y), y + h), top);
  const plotHeight = Math.max(rowHeight, heights.reduce((a, h) => a + h, 0));
  const axisY = top + plotHeight + 4;
  const height = axisY + 58;
  const width = labelWidth + t.columns.length * (panelWidth + gap) + 8;
  const sym = SYMBOL[t.method];
  const who = t.human === 'experts' ? 'experts' : t.human === 'laypeople' ? 'laypeople' : 'all annotators';
  const title = options.title ?? `${t.method === 'spearman' ? "Spearman's" : t.method === 'pearson' ? "Pearson's" : "Kendall's"} ${sym} with the ${who}' ${t.dimension ? t.dimension.phrase : 'coherence score'}`;
  const inner = 12;
  const xOf = (v: number) => Math.round((inner + ((v + 1) / 2) * (panelWidth - 2 * inner)) * 10) / 10;
  const rowY = (i: number) => tops[i] + heights[i] / 2;
  const out: string[] = [];
  out.push(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" role="img" aria-label="${escapeXml(`Forest plot: ${title}, ${rows.length} evaluators, ${t.columns.length} groups`)}" class="forest-plot" font-family="system-ui, -apple-system, 'Segoe UI', sans-serif" font-size="${FONT}">`,
    ...(options.embedStyle === false ? [] : ['<style>', FOREST_PLOT_CSS, '</style>']),
  );
  if (options.background) out.push(`<rect width="100%" height="100%" fill="${escapeXml(options.background)}"/>`);
  out.push(`<text x="8" y="18" font-weight="600">${escapeXml(title)}</text>`);
  const ref = t.reference;
  const withRef = showsReferenceRow(t);
  const boot = t.bootstrap ? `whiskers: ${Math.round(t.bootstrap.level * 100)}% bootstrap intervals (${t.bootstrap.resamples} resamples of the items, seed ${t.bootstrap.seed})` : 'no intervals (bootstrap off)';
  out.push(`<text x="8" y="34" class="muted">${escapeXml(`filled: p < ${t.alpha}; hollow: not significant; bold: best in group${withRef ? '; dashed line (ref.): laypeople–experts' : ''}`)}</text>`);
  out.push(`<text x="8" y="49" class="muted">${escapeXml(boot)}</text>`);

  // Row backgrounds and names (one group per evaluator, spanning the panels, so a click anywhere on the row hits it).
  rows.forEach((r, i) => {
    const y = tops[i];
    const best = r.cells.some((c) => c.best);
    const lines = names[i];
    // The first baseline so that the lines sit centred in the row.
    const first = y + heights[i] / 2 - ((lines.length - 1) * LINE) / 2 + FONT / 2 - 2;
    const text = lines.length === 1 ? escapeXml(lines[0]) : lines.map((l, j) => `<tspan x="8" y="${first + j * LINE}">${escapeXml(l)}</tspan>`).join('');
    out.push(
      `<g class="row" data-evaluator="${escapeXml(r.evaluatorId)}"><title>${escapeXml(`${r.displayName}\n${r.evaluatorId}`)}</title>`,
      `<rect class="row-bg" x="0" y="${y}" width="${width}" height="${heights[i]}"/>`,
      `<text x="8" y="${first}"${best ? ' class="best"' : ''}>${text}</text>`,
      '</g>',
    );
  });

  t.columns.forEach((col, k) => {
    const x0 = labelWidth + k * (panelWidth + gap);
    const refCell = withRef ? ref.cells[k] : undefined;
    const ns = rows.map((r) => r.cells[k]?.n ?? 0);
    const nText = ns.length ? (Math.min(...ns) === Math.max(...ns) ? `n = ${ns[0]}` : `n = ${Math.min(...ns)}–${Math.max(...ns)}`) : '';
    out.push(`<g class="panel" data-column="${escapeXml(col.key)}" transform="translate(${x0} 0)">`);
    out.push(`<text x="${panelWidth / 2}" y="${top - 8}" text-anchor="middle" font-weight="600">${escapeXml(truncate(col.label, Math.floor(panelWidth / 7)))}<title>${escapeXml(`${col.label}: ${col.candidates} responses in ${col.items} items; ${nText}`)}</title></text>`);
    for (const v of [-1, -0.5, 0.5, 1]) out.push(`<line class="grid" x1="${xOf(v)}" x2="${xOf(v)}" y1="${top}" y2="${axisY}"/>`);
    out.push(`<line class="zero" x1="${xOf(0)}" x2="${xOf(0)}" y1="${top}" y2="${axisY}"/>`);
    // The human reference: a dashed line at laypeople–experts, a faint band for its interval.
    if (refCell && refCell.statistic !== null) {
      const rx = xOf(refCell.statistic);
      if (refCell.ci && refCell.ci.lower !== null && refCell.ci.upper !== null) {
        out.push(`<rect class="reference-band" x="${xOf(refCell.ci.lower)}" y="${top}" width="${Math.max(0, xOf(refCell.ci.upper) - xOf(refCell.ci.lower))}" height="${plotHeight}"/>`);
      }
      out.push(`<g class="reference-line" data-evaluator="${escapeXml(ref.evaluatorId)}" data-column="${escapeXml(col.key)}"><title>${escapeXml(`${ref.displayName}: ${sym} = ${formatNumber(refCell.statistic)}${formatInterval(refCell) ? ` ${formatInterval(refCell)}` : ''}, n = ${refCell.n}`)}</title>`);
      out.push(`<line class="reference" x1="${rx}" x2="${rx}" y1="${top - 2}" y2="${axisY}"/>`);
      out.push(`<text class="reference-label" x="${Math.min(panelWidth - 2, Math.max(2, rx))}" y="${axisY + 44}" text-anchor="${rx > panelWidth * 0.75 ? 'end' : rx < panelWidth * 0.25 ? 'start' : 'middle'}" font-size="${FONT - 1}">${escapeXml(`ref. ${formatNumber(refCell.statistic)}`)}</text>`);
      out.push('</g>');
    } else if (refCell) {
      out.push(`<text class="muted" x="${panelWidth / 2}" y="${axisY + 44}" text-anchor="middle" font-size="${FONT - 1}">${escapeXml(`ref.: ${undefinedPhrase(refCell.undefinedReason)}`)}<title>${escapeXml(undefinedExplanation(refCell.undefinedReason))}</title></text>`);
    }
    rows.forEach((r, i) => out.push(cellMark(r, r.cells[k], col.key, rowY(i), xOf, panelWidth, sym)));
    // Axis.
    out.push(`<line class="zero" x1="${inner}" x2="${panelWidth - inner}" y1="${axisY}" y2="${axisY}"/>`);
    for (const v of panelWidth < 170 ? [-1, 0, 1] : [-1, -0.5, 0, 0.5, 1]) {
      out.push(`<line class="zero" x1="${xOf(v)}" x2="${xOf(v)}" y1="${axisY}" y2="${axisY + 4}"/>`);
      out.push(`<text class="muted" x="${xOf(v)}" y="${axisY + 17}" text-anchor="middle" font-size="${FONT - 1}">${v === 0 ? '0' : v < 0 ? `−${-v}` : String(v)}</text>`);
    }
    out.push(`<text class="muted" x="${panelWidth / 2}" y="${axisY + 30}" text-anchor="middle" font-size="${FONT - 1}">${escapeXml(sym)}</text>`);
    out.push('</g>');
  });
  out.push('</svg>');
  return out.join('\n');
}

function cellMark(r: CorrelationRow, c: CorrelationCell | undefined, column: string, y: number, xOf: (v: number) => number, panelWidth: number, sym: string): string {
  if (!c) return '';
  const attrs = `class="cell${c.best ? ' best' : ''}" data-evaluator="${escapeXml(r.evaluatorId)}" data-column="${escapeXml(column)}"`;
  if (c.statistic === null) {
    if (c.undefinedReason === 'not-in-configuration') return '';
    return `<g ${attrs}><title>${escapeXml(`${r.displayName}: ${undefinedExplanation(c.undefinedReason)} n = ${c.n}`)}</title><text class="muted" x="${panelWidth / 2}" y="${y + 4}" text-anchor="middle" font-size="${FONT - 1}" font-style="italic">${escapeXml(undefinedPhrase(c.undefinedReason))}</text></g>`;
  }
  const parts: string[] = [];
  const ci = formatInterval(c);
  const tip = `${r.displayName}: ${sym} = ${formatNumber(c.statistic)}${ci ? ` ${ci}` : ''}${c.pValue !== null ? `, p = ${formatP(c.pValue)}` : ''}, n = ${c.n}${c.best ? ' (best in group)' : ''}`;
  parts.push(`<g ${attrs}><title>${escapeXml(tip)}</title>`);
  if (c.ci && c.ci.lower !== null && c.ci.upper !== null) {
    const a = xOf(c.ci.lower);
    const b = xOf(c.ci.upper);
    parts.push(`<line class="whisker" x1="${a}" x2="${b}" y1="${y}" y2="${y}"/>`, `<line class="whisker" x1="${a}" x2="${a}" y1="${y - 4}" y2="${y + 4}"/>`, `<line class="whisker" x1="${b}" x2="${b}" y1="${y - 4}" y2="${y + 4}"/>`);
  }
  parts.push(`<circle class="point${c.significant ? ' significant' : ''}" cx="${xOf(c.statistic)}" cy="${y}" r="${c.best ? 5 : 4}"/>`, '</g>');
  return parts.join('');
}

/** One panel of a strip plot: a column's responses. */
export interface StripPanel {
  column: string;
  label: string;
  points: CellPoint[];
}

/** Deterministic jitter in [−1, 1] from a string (FNV-1a), so a redraw puts every point where it was. */
function jitter(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return (h / 0xffffffff) * 2 - 1;
}

/**
 * A strip plot of one evaluator's scores against the human coherence score, as an SVG string: one panel per
 * column, the human score (number of annotators who said coherent) on x as categories, the evaluator's score on y,
 * each response a point jittered within its category. Each point is a `<circle class="pt" data-item data-candidate
 * data-column>` with a `<title>`, for drill-down.
 *
 * @param name - the evaluator's readable name (escaped here)
 */
export function stripPlotSvg(name: string, panels: readonly StripPanel[], options: { panelWidth?: number; height?: number; embedStyle?: boolean; background?: string } = {}): string {
  const panelWidth = options.panelWidth ?? 220;
  const plotH = options.height ?? 160;
  const left = 52;
  const top = 62;
  const gap = 20;
  const width = left + panels.length * (panelWidth + gap);
  const height = top + plotH + 44;
  const scores = panels.flatMap((p) => p.points.map((q) => q.score));
  let lo = scores.length ? Math.min(...scores) : 0;
  let hi = scores.length ? Math.max(...scores) : 1;
  if (lo === hi) {
    lo -= 0.5;
    hi += 0.5;
  }
  const yOf = (v: number) => Math.round((top + plotH - ((v - lo) / (hi - lo)) * plotH) * 10) / 10;
  const out: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" role="img" aria-label="${escapeXml(`Strip plot: ${name} against the human coherence score`)}" class="forest-plot strip-plot" font-family="system-ui, -apple-system, 'Segoe UI', sans-serif" font-size="${FONT}">`,
    ...(options.embedStyle === false ? [] : ['<style>', FOREST_PLOT_CSS, '</style>']),
  ];
  if (options.background) out.push(`<rect width="100%" height="100%" fill="${escapeXml(options.background)}"/>`);
  out.push(`<text x="8" y="16" font-weight="600">${escapeXml(`${name}: score against the human coherence score`)}</text>`);
  out.push(`<text x="8" y="30" class="muted">${escapeXml('one point per response; x: annotators who said coherent; click a point to open it in the dialogue editor')}</text>`);
  // Tick labels precise enough to differ (BLEU-4's values can all lie below 1e-3).
  const tick = (v: number) => (hi - lo >= 10 ? formatNumber(v, 0) : hi - lo >= 0.1 ? formatNumber(v, 2) : Number(v.toPrecision(2)).toString());
  for (const v of [lo, (lo + hi) / 2, hi]) out.push(`<text class="muted" x="${left - 6}" y="${yOf(v) + 4}" text-anchor="end" font-size="${FONT - 1}">${escapeXml(tick(v))}</text>`);
  panels.forEach((p, k) => {
    const x0 = left + k * (panelWidth + gap);
    const cats = [...new Set(p.points.map((q) => q.human))].sort((a, b) => a - b);
    const maxCat = Math.max(1, ...cats);
    const xOf = (c: number) => Math.round((12 + (c / maxCat) * (panelWidth - 24)) * 10) / 10;
    const band = Math.max(4, Math.min(18, (panelWidth - 24) / (maxCat + 1) / 3));
    out.push(`<g class="panel" data-column="${escapeXml(p.column)}" transform="translate(${x0} 0)">`);
    out.push(`<rect x="0" y="${top}" width="${panelWidth}" height="${plotH}" fill="none" class="grid" style="stroke-width:1"/>`);
    out.push(`<text x="${panelWidth / 2}" y="${top - 4}" text-anchor="middle" font-weight="600">${escapeXml(`${p.label} (n = ${p.points.length})`)}</text>`);
    for (let c = 0; c <= maxCat; c++) out.push(`<text class="muted" x="${xOf(c)}" y="${top + plotH + 14}" text-anchor="middle" font-size="${FONT - 1}">${c}</text>`);
    out.push(`<text class="muted" x="${panelWidth / 2}" y="${top + plotH + 30}" text-anchor="middle" font-size="${FONT - 1}">coherent votes</text>`);
    for (const q of p.points) {
      const cx = Math.round((xOf(q.human) + jitter(`${q.itemId}\u0000${q.candidateId}`) * band) * 10) / 10;
      out.push(`<circle class="pt point" r="3" cx="${cx}" cy="${yOf(q.score)}" data-item="${escapeXml(q.itemId)}" data-candidate="${escapeXml(q.candidateId)}" data-column="${escapeXml(p.column)}"><title>${escapeXml(`${q.itemId} · ${q.candidateId}: score ${q.score}, ${q.human} said coherent`)}</title></circle>`);
    }
    out.push('</g>');
  });
  out.push('</svg>');
  return out.join('\n');
}
