/**
 * The correlation panel: a webview beside the dialogue editor showing the correlation table (ICMI 2023 Tables
 * 2–5) of the active dialogue document — every evaluator against the human coherence score, by response group,
 * with n, p, significance and best marks, optional bootstrap intervals, pinned configurations side by side, a
 * comparison of two evaluators, the human ceiling as the first rows when switched on (as `correlate --ceiling`), and
 * exports. It follows the active document and recomputes on every change to it:
 * the table at once, the intervals (when switched on) debounced and cooperatively, cancelled by the next change.
 */
import { StudyRubric } from './studyRubric';
import * as vscode from 'vscode';
import { onDidChangeDialogue, parseDialogue, type DialogueFileDocument } from './dialogueDocument';
import { compareEvaluators } from '../core/correlation/compareEvaluators';
import { exportTable } from '../core/correlation/correlationExport';
import { cellPoints, correlationData, type CorrelationTable, type CorrelationTableOptions } from '../core/correlation/correlationTable';
import { displayNames, evaluatorSignatures, parseJudgeId } from '../core/evaluators/evaluatorNames';
import { exportableTable, sideBySide, sideBySideAsync, type PinnedConfiguration } from '../core/correlation/sideBySide';
import { tableSummary } from '../core/correlation/tableSummary';
import type { HumanGroup } from '../core/labels/groups';
import { documentItems } from '../core/format/jsonl';
import type { DialogueItem } from '../core/dialogue/types';
import { DEFAULT_SETTINGS, type ComparisonView, type CorrelationProtocol, type DimensionChoice, type PanelSettings, type PinView, type StripView, type TableView } from '../../webview/correlation/protocol';
import type { DialogueEditorProvider } from './dialogueEditor';
import { openPanel } from './panels';
import type { HostChannel } from './webviewChannel';
import { siblingFile } from '../core/dialogue/siblingFile';
import { humanScoreSpec, type HumanScoreRule } from '../core/rubric/labelValues';
import { MI_RUBRIC } from '../core/rubric/presets';
import type { Rubric } from '../core/rubric/rubric';

const STATE_KEY = 'reflectEval.correlation.settings';
/** Wait this long after the last change before starting the bootstrap. */
const INTERVAL_DEBOUNCE_MS = 400;

/**
 * The table options of panel settings, with the study's rubric: the dimension and human score as
 * `correlate --dimension/--human-score` take them (a dimension the rubric lacks, or a rule that does not fit it,
 * falls back to the rubric's primary and its default rule, as the picker then shows).
 */
function toOptions(s: PanelSettings, withBootstrap: boolean, rubric: Rubric = MI_RUBRIC): CorrelationTableOptions {
  const dimension = usableDimension(s, rubric);
  return {
    method: s.method,
    human: s.human,
    groupBy: s.groupBy.trim() || 'origin',
    best: s.best,
    ...(rubric !== MI_RUBRIC ? { rubric } : {}),
    ...(dimension.dimension ? { dimension: dimension.dimension } : {}),
    ...(dimension.humanScore ? { humanScore: dimension.humanScore } : {}),
    ...(withBootstrap && s.intervals ? { bootstrap: { resamples: s.resamples, seed: s.seed } } : {}),
  };
}

/** The settings' dimension and rule when the rubric has them and they fit, else none (the primary, its default rule). */
function usableDimension(s: PanelSettings, rubric: Rubric): { dimension?: string; humanScore?: HumanScoreRule } {
  const dimension = s.dimension || undefined;
  const humanScore = (s.humanScore || undefined) as HumanScoreRule | undefined;
  try {
    humanScoreSpec(rubric, dimension, humanScore);
    return { ...(dimension ? { dimension } : {}), ...(humanScore ? { humanScore } : {}) };
  } catch {
    try {
      humanScoreSpec(rubric, dimension);
      return dimension ? { dimension } : {};
    } catch {
      return {};
    }
  }
}

/** The dimensions of `rubric` a table can take (binary, ordinal, numeric). */
function dimensionChoices(rubric: Rubric): DimensionChoice[] {
  return rubric.dimensions.flatMap((d) => (d.type === 'binary' || d.type === 'ordinal' || d.type === 'numeric' ? [{ name: d.name, title: d.title ?? d.name, type: d.type }] : []));
}

function configLabel(s: PanelSettings): string {
  return [s.method, s.human, s.dimension ?? '', s.humanScore ?? '', s.groupBy !== 'origin' ? `by ${s.groupBy}` : '', s.variant, s.ceiling ? 'ceiling' : ''].filter(Boolean).join(' · ');
}

export class CorrelationPanel {
  private static current: CorrelationPanel | undefined;
  private readonly disposables: vscode.Disposable[] = [];
  private settings: PanelSettings;
  private pins: PinView[] = [];
  private lastTable: CorrelationTable | null = null;
  /** The human group of the table last shown, per file: an automatic switch is announced (tableSummary). */
  private shownHuman = new Map<string, HumanGroup>();
  private pending: AbortController | undefined;
  private timer: NodeJS.Timeout | undefined;

  static show(context: vscode.ExtensionContext, editors: DialogueEditorProvider): void {
    if (CorrelationPanel.current) {
      CorrelationPanel.current.panel.reveal(vscode.ViewColumn.Beside, true);
      CorrelationPanel.current.update();
      return;
    }
    const { panel, channel } = openPanel<CorrelationProtocol>(
      context.extensionUri,
      'reflectEval.correlation',
      { title: 'ReflectEval: Correlations', script: 'correlation', style: 'correlation', body: '<div id="app"><h2 id="title">Correlations</h2><p id="summary" class="muted"></p><p id="group-change" role="status" hidden></p><ol id="notes" class="notes"></ol></div>' },
      { retainContextWhenHidden: true },
    );
    CorrelationPanel.current = new CorrelationPanel(panel, channel, context, editors);
  }

  private constructor(
    private readonly panel: vscode.WebviewPanel,
    private readonly channel: HostChannel<CorrelationProtocol>,
    private readonly context: vscode.ExtensionContext,
    private readonly editors: DialogueEditorProvider,
  ) {
    this.settings = { ...DEFAULT_SETTINGS, ...(context.workspaceState.get<Partial<PanelSettings>>(STATE_KEY) ?? {}) };
    channel
      .on('ready', () => this.update())
      .on('settings', async (m) => {
        this.settings = m.settings;
        await this.context.workspaceState.update(STATE_KEY, this.settings);
        this.update();
      })
      .on('pin', (m) => {
        this.pins.push({ label: m.label.trim() || configLabel(this.settings), settings: { ...this.settings } });
        this.update();
      })
      .on('unpin', (m) => {
        this.pins.splice(m.index, 1);
        this.update();
      })
      .on('export', (m) => this.export(m.format))
      .on('exportPlot', (m) => this.exportPlot(m.format, m.data))
      .on('openCell', (m) => this.openCell(m.evaluator, m.column, m.at))
      .on('open', async (m) => {
        const document = this.editors.activeDocument;
        if (!document) throw new Error('open a dialogue file first');
        if (!(await this.editors.reveal(document, m.itemId, m.candidateId))) throw new Error(`item ${m.itemId} is no longer in ${vscode.workspace.asRelativePath(document.uri)}`);
      })
      .handle('compare', (m) => this.compare(m.a, m.b))
      .handle('strip', (m) => this.strip(m.evaluator));
    this.disposables.push(
      editors.onDidChangeActive(() => this.update()),
      onDidChangeDialogue((e) => {
        if (e.document === this.editors.activeDocument && e.contentChanges.length > 0) this.update();
      }),
    );
    panel.onDidDispose(() => {
      CorrelationPanel.current = undefined;
      this.cancelIntervals();
      this.disposables.forEach((d) => d.dispose());
    });
  }

  private items(): { document: DialogueFileDocument; items: DialogueItem[] } | null {
    const document = this.editors.activeDocument;
    return document ? { document, items: documentItems(parseDialogue(document)) } : null;
  }

  /** The active study's rubric (its `*.rubric.json`, else the MI preset), cached by the rubric file's modification time (the panel updates after every label). @throws RubricError for a broken rubric file */
  private rubric(): Rubric {
    return this.studyRubric.of(this.editors.activeDocument);
  }
  private readonly studyRubric = new StudyRubric();

  /** The pinned configurations followed by the current one. */
  private configurations(rubric: Rubric): PinnedConfiguration[] {
    const all = [...this.pins, { label: this.pins.length ? `current (${configLabel(this.settings)})` : configLabel(this.settings), settings: this.settings }];
    return all.map((p) => ({ label: p.label, options: toOptions(p.settings, true, rubric), ...(p.settings.variant ? { variant: p.settings.variant } : {}), ...(p.settings.ceiling ? { ceiling: true } : {}) }));
  }

  private cancelIntervals(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.pending?.abort();
    this.pending = undefined;
  }

  /** Recomputes the table at once, then (debounced) the intervals when switched on. */
  private update(): void {
    this.cancelIntervals();
    const started = performance.now();
    const active = this.items();
    if (!active) {
      this.lastTable = null;
      this.post({ file: null, table: null, settings: this.settings, pins: this.pins, evaluators: [], variants: [], labelledCandidates: 0, totalCandidates: 0, timing: { tableMs: 0, candidates: 0 }, intervals: 'off' });
      return;
    }
    const { document, items } = active;
    // The rubric file is read once per update: the table, its summary and the picker all take this one.
    const rubric = this.rubric();
    const configs = this.configurations(rubric);
    const noBootstrap = configs.map((c) => ({ ...c, options: { ...c.options, bootstrap: undefined } }));
    const table = sideBySide(items, noBootstrap);
    const tableMs = performance.now() - started;
    this.lastTable = table;
    const candidates = items.flatMap((i) => i.candidates);
    const ids = [...new Set(candidates.flatMap((c) => Object.keys(c.scores ?? {})))].sort();
    const names = displayNames(ids, evaluatorSignatures(items));
    const base = {
      file: vscode.workspace.asRelativePath(document.uri),
      settings: this.settings,
      pins: this.pins,
      evaluators: ids.map((id) => ({ id, name: names.get(id) as string })),
      variants: [...new Set(ids.map(parseJudgeId).filter((j) => j !== null).map((j) => `${j.body}×${j.request}`))].sort(),
      labelledCandidates: candidates.filter((c) => c.annotations.some((a) => typeof a.coherent === 'boolean')).length,
      totalCandidates: candidates.length,
      summary: tableSummary(items, table, this.shownHuman.get(document.uri.toString()) ?? null, undefined, rubric),
      rubric: { name: rubric.name, primary: rubric.primary, dimensions: dimensionChoices(rubric) },
    };
    this.shownHuman.set(document.uri.toString(), table.human);
    const wantIntervals = configs.some((c) => c.options.bootstrap);
    this.post({ ...base, table, timing: { tableMs, candidates: candidates.length }, intervals: wantIntervals ? 'computing' : 'off' });
    if (!wantIntervals) return;
    const controller = new AbortController();
    this.pending = controller;
    this.timer = setTimeout(() => {
      const t0 = performance.now();
      sideBySideAsync(items, configs, controller.signal).then(
        (withIntervals) => {
          if (controller.signal.aborted) return;
          this.lastTable = withIntervals;
          this.post({ ...base, table: withIntervals, timing: { tableMs, intervalsMs: performance.now() - t0, candidates: candidates.length }, intervals: 'done' });
        },
        (err: Error) => {
          if (controller.signal.aborted) return;
          this.post({ ...base, table, timing: { tableMs, candidates: candidates.length }, intervals: 'failed', message: err.message });
        },
      );
    }, INTERVAL_DEBOUNCE_MS);
  }

  /** Two evaluators compared under the current configuration; null when no dialogue file is active. */
  private compare(a: string, b: string): ComparisonView | null {
    const active = this.items();
    if (!active) return null;
    const t0 = performance.now();
    try {
      const comparisons = compareEvaluators(active.items, a, b, toOptions(this.settings, true, this.rubric()));
      return { comparisons, ms: performance.now() - t0 };
    } catch (err) {
      return { comparisons: null, error: (err as Error).message, ms: performance.now() - t0 };
    }
  }

  /** Writes the table on screen (with its intervals when computed) to a file the user picks. */
  private async export(format: 'md' | 'latex' | 'csv'): Promise<void> {
    const document = this.editors.activeDocument;
    if (!document || !this.lastTable) throw new Error('open a dialogue file first');
    const ext = format === 'latex' ? 'tex' : format;
    const target = await vscode.window.showSaveDialog({
      defaultUri: document.uri.with({ path: siblingFile(document.uri.path, `.correlation.${ext}`) }),
      filters: { [format === 'md' ? 'Markdown' : format === 'latex' ? 'LaTeX' : 'CSV']: [ext] },
      saveLabel: 'Export',
    });
    if (!target) return;
    await vscode.workspace.fs.writeFile(target, new TextEncoder().encode(exportTable(exportableTable(this.lastTable), format) + '\n'));
    void vscode.window.showInformationMessage(`ReflectEval: correlation table written to ${vscode.workspace.asRelativePath(target)}`);
  }

  /** The strip plot data of one evaluator under the current configuration: the responses each cell correlates. */
  private strip(evaluator: string): StripView | null {
    const source = this.items();
    if (!source) return null;
    const data = correlationData(source.items, toOptions(this.settings, false, this.rubric()));
    const name = displayNames([evaluator], data.signatures).get(evaluator) ?? evaluator;
    const shown = this.lastTable?.rows.find((r) => r.evaluatorId === evaluator)?.displayName ?? name;
    return { evaluator, name: shown, panels: data.columns.map((c) => ({ column: c.key, label: c.label, points: cellPoints(data, evaluator, c.key) })).filter((p) => p.points.length > 0) };
  }

  /**
   * A table cell's (or plot point's) drill-down: the responses it correlates (`cellPoints`, current configuration;
   * `column` is the table's `<config>:<group>` key) as a response list in the dialogue editor (issue 41 item 4),
   * ordered by the evaluator's score, the response `at` (a strip-plot point) or else the first shown and focused.
   */
  private async openCell(evaluator: string, column: string, at?: { itemId: string; candidateId: string }): Promise<void> {
    const source = this.items();
    if (!source) throw new Error('open a dialogue file first');
    const group = column.slice(column.indexOf(':') + 1);
    const rubric = this.rubric();
    const data = correlationData(source.items, toOptions(this.settings, false, rubric));
    const points = cellPoints(data, evaluator, group);
    const name = this.lastTable?.rows.find((r) => r.evaluatorId === evaluator)?.displayName ?? (evaluator === this.lastTable?.reference.evaluatorId ? this.lastTable.reference.displayName : evaluator);
    if (points.length === 0) throw new Error(`no response of ${group} has a score of ${name} and a label`);
    const columns = this.lastTable?.columns ?? [];
    const label = (columns.find((c) => c.key === column) ?? columns.find((c) => c.key.slice(c.key.indexOf(':') + 1) === group))?.label ?? group;
    const dimension = usableDimension(this.settings, rubric).dimension ?? rubric.primary;
    const shown = await this.editors.revealResponses(source.document, { title: `${name} × ${dimension}, ${label}`, evaluator: name }, points, at);
    if (shown === 0) throw new Error(`the responses of ${name} × ${label} are no longer in ${vscode.workspace.asRelativePath(source.document.uri)}`);
  }

  /** Writes the forest plot the webview drew (SVG text, or PNG bytes in base64) to a file the user picks. */
  private async exportPlot(format: 'svg' | 'png', data: string): Promise<void> {
    const document = this.editors.activeDocument;
    if (!document || !this.lastTable) throw new Error('open a dialogue file first');
    const target = await vscode.window.showSaveDialog({
      defaultUri: document.uri.with({ path: siblingFile(document.uri.path, `.forest.${format}`) }),
      filters: { [format === 'svg' ? 'SVG image' : 'PNG image']: [format] },
      saveLabel: 'Export',
    });
    if (!target) return;
    const bytes = format === 'svg' ? new TextEncoder().encode(data) : Buffer.from(data, 'base64');
    if (format === 'png' && !(bytes[0] === 0x89 && bytes[1] === 0x50 && bytes[2] === 0x4e && bytes[3] === 0x47)) throw new Error('the panel sent no PNG image');
    await vscode.workspace.fs.writeFile(target, bytes);
    void vscode.window.showInformationMessage(`ReflectEval: forest plot written to ${vscode.workspace.asRelativePath(target)}`);
  }

  private post(msg: TableView): void {
    this.channel.notify('table', msg);
  }
}
