/**
 * A per-group estimate chart as an SVG string (no DOM, so the CLI writes it and a webview can show it), in the manner
 * of the first study's Figure 3 (GEM 2022 §5.2: coherence rate per decoding strategy): one row per group, one or more
 * panels side by side sharing the rows — e.g. the rates from every expert label beside the prediction-powered
 * intervals from a fraction of them. In a panel each row shows its value as a point with its interval as whiskers, an
 * optional second interval (the expert-only one from the same labels) as a thin grey bar below, and an optional
 * reference value (the all-labels rate) as a small vertical tick.
 *
 * Colours are CSS custom properties with light-theme fallbacks (as `correlation/forestPlot.ts`): inside a VS Code
 * webview the chart takes the theme's colours; as a file it is dark ink on white.
 */
import { escapeXml } from '../correlation/forestPlot';

/** One row of a panel. */
export interface ChartRow {
  /** The group (must match across panels; rows are drawn in the first panel's order). */
  key: string;
  value: number | null;
  lower?: number | null;
  upper?: number | null;
  /** A second interval (drawn thin and grey below the first): e.g. expert-only from the same labels. */
  secondary?: { lower: number; upper: number } | null;
  /** A reference value drawn as a tick (e.g. the all-labels rate). */
  reference?: number | null;
  /** Shown in the row's tooltip, e.g. `n = 75, 23 labelled`. */
  note?: string;
}

/** One panel. */
export interface ChartPanel {
  title: string;
  /** A second title line (e.g. `95 % intervals`). */
  subtitle?: string;
  rows: ChartRow[];
}

/** Layout and text of the chart. */
export interface EstimateChartOptions {
  title?: string;
  /** The value axis (default [0, 1]). */
  domain?: [number, number];
  /** Axis label (default `coherence rate`). */
  axisLabel?: string;
  panelWidth?: number;
  rowHeight?: number;
  /** A legend line under the panels. */
  legend?: string[];
  /** Paint a background (`#ffffff` for a file). */
  background?: string;
}

export const ESTIMATE_CHART_CSS = `.estimate-chart text { fill: var(--vscode-foreground, #1f1f1f); font-family: var(--vscode-font-family, sans-serif); }
.estimate-chart .muted { fill: var(--vscode-descriptionForeground, #616161); }
.estimate-chart .grid { stroke: var(--vscode-panel-border, #d4d4d4); stroke-width: 1; }
.estimate-chart .whisker { stroke: var(--vscode-charts-blue, #0063b1); stroke-width: 2; }
.estimate-chart .point { fill: var(--vscode-charts-blue, #0063b1); }
.estimate-chart .secondary { stroke: var(--vscode-descriptionForeground, #8a8a8a); stroke-width: 1.5; }
.estimate-chart .reference { stroke: var(--vscode-charts-orange, #c25e00); stroke-width: 2; }
.estimate-chart .band { fill: var(--vscode-list-hoverBackground, #f3f3f3); }`;

const FONT = 12;
const CHAR = 6.6;
const fmt = (v: number) => (Math.round(v * 1000) / 1000).toFixed(3);

/**
 * The chart as a standalone SVG document.
 *
 * @throws RangeError on no panel, or a domain that is empty
 */
export function estimateChartSvg(panels: readonly ChartPanel[], options: EstimateChartOptions = {}): string {
  if (panels.length === 0) throw new RangeError('a chart needs at least one panel');
  const [lo, hi] = options.domain ?? [0, 1];
  if (!(hi > lo)) throw new RangeError(`empty domain [${lo}, ${hi}]`);
  const panelWidth = options.panelWidth ?? 300;
  const rowHeight = options.rowHeight ?? 24;
  const keys = panels[0].rows.map((r) => r.key);
  const labelWidth = Math.min(260, Math.max(120, Math.ceil(Math.max(...keys.map((k) => k.length)) * CHAR) + 16));
  const gap = 28;
  const top = (options.title ? 28 : 8) + 40;
  const legend = options.legend ?? [];
  const height = top + keys.length * rowHeight + 44 + legend.length * 16;
  const width = labelWidth + panels.length * (panelWidth + gap);
  const x0 = (p: number) => labelWidth + p * (panelWidth + gap);
  const sx = (p: number, v: number) => x0(p) + ((Math.min(hi, Math.max(lo, v)) - lo) / (hi - lo)) * panelWidth;
  const out: string[] = [];
  out.push(`<svg xmlns="http://www.w3.org/2000/svg" class="estimate-chart" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-size="${FONT}" role="img">`);
  out.push(`<style>${ESTIMATE_CHART_CSS}</style>`);
  if (options.background) out.push(`<rect width="100%" height="100%" fill="${escapeXml(options.background)}"/>`);
  if (options.title) out.push(`<text x="8" y="20" font-size="14" font-weight="600">${escapeXml(options.title)}</text>`);
  const ticks = [0, 0.25, 0.5, 0.75, 1].map((t) => lo + t * (hi - lo));
  panels.forEach((panel, p) => {
    const titleY = top - 24;
    out.push(`<text x="${x0(p)}" y="${titleY}" font-weight="600">${escapeXml(panel.title)}</text>`);
    if (panel.subtitle) out.push(`<text x="${x0(p)}" y="${titleY + 14}" class="muted">${escapeXml(panel.subtitle)}</text>`);
    for (const t of ticks) {
      const x = sx(p, t);
      out.push(`<line class="grid" x1="${x.toFixed(1)}" y1="${top - 4}" x2="${x.toFixed(1)}" y2="${top + keys.length * rowHeight}"/>`);
      out.push(`<text x="${x.toFixed(1)}" y="${top + keys.length * rowHeight + 14}" text-anchor="middle" class="muted">${fmt(t).replace(/0+$/, '').replace(/\.$/, '')}</text>`);
    }
    out.push(`<text x="${(x0(p) + panelWidth / 2).toFixed(1)}" y="${top + keys.length * rowHeight + 30}" text-anchor="middle" class="muted">${escapeXml(options.axisLabel ?? 'coherence rate')}</text>`);
    const byKey = new Map(panel.rows.map((r) => [r.key, r]));
    keys.forEach((key, j) => {
      const r = byKey.get(key);
      const y = top + j * rowHeight + rowHeight / 2;
      if (p === 0 && j % 2 === 0) out.push(`<rect class="band" x="0" y="${top + j * rowHeight}" width="${width}" height="${rowHeight}"/>`);
      if (!r) return;
      const tip = [`${key}`, r.value === null ? 'no estimate' : `${fmt(r.value)}${r.lower !== null && r.lower !== undefined && r.upper !== null && r.upper !== undefined ? ` [${fmt(r.lower)}, ${fmt(r.upper)}]` : ''}`, ...(r.secondary ? [`expert-only [${fmt(r.secondary.lower)}, ${fmt(r.secondary.upper)}]`] : []), ...(r.reference !== null && r.reference !== undefined ? [`all labels ${fmt(r.reference)}`] : []), ...(r.note ? [r.note] : [])].join('\n');
      out.push(`<g class="row" data-group="${escapeXml(key)}"><title>${escapeXml(tip)}</title>`);
      if (r.secondary) out.push(`<line class="secondary" x1="${sx(p, r.secondary.lower).toFixed(1)}" y1="${(y + 6).toFixed(1)}" x2="${sx(p, r.secondary.upper).toFixed(1)}" y2="${(y + 6).toFixed(1)}"/>`);
      if (r.lower !== null && r.lower !== undefined && r.upper !== null && r.upper !== undefined) {
        const a = sx(p, r.lower);
        const b = sx(p, r.upper);
        out.push(`<line class="whisker" x1="${a.toFixed(1)}" y1="${y}" x2="${b.toFixed(1)}" y2="${y}"/>`);
        out.push(`<line class="whisker" x1="${a.toFixed(1)}" y1="${y - 4}" x2="${a.toFixed(1)}" y2="${y + 4}"/>`);
        out.push(`<line class="whisker" x1="${b.toFixed(1)}" y1="${y - 4}" x2="${b.toFixed(1)}" y2="${y + 4}"/>`);
      }
      if (r.reference !== null && r.reference !== undefined) out.push(`<line class="reference" x1="${sx(p, r.reference).toFixed(1)}" y1="${y - 7}" x2="${sx(p, r.reference).toFixed(1)}" y2="${y + 7}"/>`);
      if (r.value !== null) out.push(`<circle class="point" cx="${sx(p, r.value).toFixed(1)}" cy="${y}" r="3.5"/>`);
      out.push('</g>');
    });
  });
  keys.forEach((key, j) => {
    const y = top + j * rowHeight + rowHeight / 2 + 4;
    const maxChars = Math.floor((labelWidth - 12) / CHAR);
    out.push(`<text x="8" y="${y}">${escapeXml(key.length > maxChars ? `${key.slice(0, maxChars - 1)}…` : key)}</text>`);
  });
  legend.forEach((line, j) => out.push(`<text x="8" y="${top + keys.length * rowHeight + 44 + j * 16}" class="muted">${escapeXml(line)}</text>`));
  out.push('</svg>');
  return out.join('\n') + '\n';
}
