/**
 * The agreement & error analyses panel: the first study's Table 4 (Fleiss' kappa), coherence scores by annotator
 * group, Figure 3 (coherence rate per decoding strategy) and Figure 4 (majority-voted consensus-adjusted MEE
 * per strategy), and every error-category judge against the experts' error labels (issue 17), as charts and
 * tables with CSV export. The numbers are `firstStudyAnalysis`'s and `errorCategoryAgreement`'s, the functions
 * `reflect-eval agreement` (and its `--errors-vs`) prints. It follows the active dialogue document and updates when it changes.
 */
import { StudyRubric } from './studyRubric';
import * as vscode from 'vscode';
import { onDidChangeDialogue, parseDialogue, type DialogueFileDocument } from './dialogueDocument';
import { displayNames } from '../core/evaluators/evaluatorNames';
import { firstStudyAnalysis } from '../core/agreement/firstStudy';
import { plainCellText, renderTables, type PlainTable } from '../core/metaEvaluation/metaEvaluationExport';
import { errorCategoryAgreement, errorCategoryAgreementPlainTable, errorCategoryEvaluators } from '../core/metaEvaluation/errorCategoryAgreement';
import type { DialogueItem } from '../core/dialogue/types';
import { firstStudyCsv } from '../core/agreement/firstStudyCsv';
import { DEFAULT_EXPERT_PREFIX } from '../core/datasets/annotationColumns';
import { documentItems } from '../core/format/jsonl';
import type { AgreementProtocol, AnalysisMessage, ErrorCategoryTableView, ExportableTable } from '../../webview/agreement/protocol';
import { config } from './commands/common';
import type { DialogueEditorProvider } from './dialogueEditor';
import { openPanel } from './panels';
import type { HostChannel } from './webviewChannel';
import { siblingFile } from '../core/dialogue/siblingFile';
import { MI_PRESET } from '../core/rubric/presets';
import type { Rubric } from '../core/rubric/rubric';
import { agreementDimensionChoices, dimensionAgreementView } from './agreementDimension';

/** Recomputing waits this long after the last edit, so a burst of label keys costs one analysis. */
const DEBOUNCE_MS = 250;

/** The bootstrap of the error-category kappas: `reflect-eval agreement --bootstrap`'s defaults, so both print the same. */
const ERROR_BOOTSTRAP = { resamples: 1000, seed: 1, level: 0.95 };

/**
 * Labelled candidates up to which the panel bootstraps the error-category kappas. The panel recomputes after every
 * label (debounced) in the extension host, and 1,000 resamples cost about 2 ms per labelled candidate (343 ms for
 * 150 on 2 busy cores); above this the table shows the kappas without intervals and names the command that adds them.
 */
const ERROR_BOOTSTRAP_MAX_LABELLED = 500;

/**
 * Every error-category judge of the file against the experts' majority error labels (issue 17): per category
 * Cohen's kappa with its interval, precision, recall and F1, then the most evident error.
 */
function errorCategoryTables(items: readonly DialogueItem[], file: string, expertPrefix: string): { views: ErrorCategoryTableView[]; tables: PlainTable[] } {
  const ids = errorCategoryEvaluators(items);
  const names = displayNames(ids);
  const views: ErrorCategoryTableView[] = [];
  const tables: PlainTable[] = [];
  for (const id of ids) {
    const options = { group: 'experts' as const, groupRules: { expertPrefix } };
    const point = errorCategoryAgreement(items, id, options);
    const withIntervals = point.labelled <= ERROR_BOOTSTRAP_MAX_LABELLED;
    const r = withIntervals ? errorCategoryAgreement(items, id, { ...options, bootstrap: ERROR_BOOTSTRAP }) : point;
    const name = names.get(id) ?? id;
    const t = errorCategoryAgreementPlainTable(r, name);
    const cli = `reflect-eval agreement ${shellWord(file)} --errors-vs ${shellWord(id)} --bootstrap${expertPrefix === DEFAULT_EXPERT_PREFIX ? '' : ` --expert-prefix ${shellWord(expertPrefix)}`}`;
    const intervals = withIntervals
      ? `95% percentile bootstrap intervals: ${ERROR_BOOTSTRAP.resamples} resamples of the dialogue items (seed ${ERROR_BOOTSTRAP.seed}). Same numbers: ${cli}`
      : `No intervals here: over ${ERROR_BOOTSTRAP_MAX_LABELLED} labelled candidates the panel, which recomputes after every label, leaves the bootstrap to the command line: ${cli}`;
    const table = { ...t, notes: [...t.notes, intervals] };
    tables.push(table);
    views.push({
      evaluatorId: id,
      name,
      title: table.title,
      columns: table.columns,
      cells: table.rows.map((row) => row.map(plainCellText)),
      rowKeys: [...r.categories.map((c) => c.category), 'mostEvidentError'],
      kappas: [...r.categories.map((c) => c.kappa.kappa), r.mostEvidentError.kappa.kappa],
      notes: table.notes,
    });
  }
  return { views, tables };
}

function expertPrefix(): string {
  return config().get<string>('annotations.expertPrefix')?.trim() || DEFAULT_EXPERT_PREFIX;
}

/** A shell word: quoted when it holds anything but safe characters. */
function shellWord(s: string): string {
  return /^[\w./@:+-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

export class AgreementPanel {
  private static current: AgreementPanel | undefined;
  private readonly disposables: vscode.Disposable[] = [];
  private timer: ReturnType<typeof setTimeout> | undefined;
  private last: { document: DialogueFileDocument; analysis: ReturnType<typeof firstStudyAnalysis>; errorTables: PlainTable[] } | undefined;

  /** Shows the panel beside the dialogue editor (one panel; it follows the active dialogue document). */
  static show(context: vscode.ExtensionContext, editors: DialogueEditorProvider): void {
    if (AgreementPanel.current) {
      AgreementPanel.current.panel.reveal(vscode.ViewColumn.Beside, true);
      AgreementPanel.current.update();
      return;
    }
    const { panel, channel } = openPanel<AgreementProtocol>(context.extensionUri, 'reflectEval.agreement', {
      title: 'ReflectEval: Agreement & Errors',
      script: 'agreement',
      style: 'agreement',
      body: `<header><h2 id="title">Agreement &amp; error analyses</h2><p id="summary" class="muted"></p></header>
<section id="dimension-section" hidden><h3>Inter-annotator agreement on a rubric dimension</h3><div id="dimension-picker"></div><div id="dimension"></div></section>
<section id="kappa-section"><h3>Inter-annotator agreement: Fleiss' kappa <span class="muted">(first study §5.1, Table 4)</span> <button class="csv" data-table="agreement">CSV</button></h3><div id="kappa"></div></section>
<section id="groups-section"><h3>Coherence scores by annotator group <span class="muted">(ICMI 2023 §2.1)</span> <button class="csv" data-table="group-coherence">CSV</button></h3><div id="groups"></div></section>
<section id="coherence-section"><h3>Figure 3: coherence rate per decoding strategy <span class="muted">(§5.2)</span> <button class="csv" data-table="coherence-rate">CSV</button></h3><div class="chart"><canvas id="coherence-chart" role="img"></canvas></div><div id="coherence"></div></section>
<section id="errors-section"><h3>Figure 4: most evident error per decoding strategy <span class="muted">(§5.3)</span> <button class="csv" data-table="error-distribution">CSV</button></h3><div class="chart"><canvas id="error-chart" role="img"></canvas></div><div id="errors"></div></section>
<section id="error-categories-section"><h3>Error-category judges against the experts' error labels <span class="muted">(Cohen's kappa vs the majority, precision, recall, F1; GEM 2022 §4 categories)</span> <button class="csv" data-table="error-categories">CSV</button></h3><div id="error-categories"></div></section>
<footer id="cli" class="muted"></footer>`,
    });
    AgreementPanel.current = new AgreementPanel(panel, channel, editors);
  }

  private constructor(
    private readonly panel: vscode.WebviewPanel,
    private readonly channel: HostChannel<AgreementProtocol>,
    private readonly editors: DialogueEditorProvider,
  ) {
    channel
      .on('ready', () => this.update())
      .on('exportCsv', (m) => this.exportCsv(m.table))
      .on('pickDimension', (m) => {
        this.dimension = m.dimension || undefined;
        this.update();
      });
    this.disposables.push(
      editors.onDidChangeActive(() => this.update()),
      onDidChangeDialogue((e) => {
        if (e.document === this.editors.activeDocument && e.contentChanges.length > 0) this.scheduleUpdate();
      }),
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration('reflectEval.annotations.expertPrefix')) this.update();
      }),
    );
    panel.onDidDispose(() => {
      AgreementPanel.current = undefined;
      clearTimeout(this.timer);
      this.disposables.forEach((d) => d.dispose());
    });
  }

  /** The dimension picked on a study with its own rubric (undefined: the rubric's primary). */
  private dimension: string | undefined;

  /** The active study's rubric (its `*.rubric.json`, else the MI preset), cached by the rubric file's modification time. */
  private rubric(document: DialogueFileDocument): Rubric {
    return this.studyRubric.of(document);
  }
  private readonly studyRubric = new StudyRubric();

  private scheduleUpdate(): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.update(), DEBOUNCE_MS);
  }

  private update(): void {
    clearTimeout(this.timer);
    const document = this.editors.activeDocument;
    let msg: AnalysisMessage;
    if (!document) {
      this.last = undefined;
      msg = { file: null, analysis: null, errorCategories: [], cli: null };
    } else {
      const file = vscode.workspace.asRelativePath(document.uri);
      const prefix = expertPrefix();
      const cli = `reflect-eval agreement ${shellWord(file)}${prefix === DEFAULT_EXPERT_PREFIX ? '' : ` --expert-prefix ${shellWord(prefix)}`}`;
      try {
        const items = documentItems(parseDialogue(document));
        const rubric = this.rubric(document);
        if (rubric.name !== MI_PRESET) {
          // A study with its own rubric: the picked dimension's coefficients (the first study's analyses are the MI preset's).
          const view = dimensionAgreementView(items, rubric, this.dimension, { expertPrefix: prefix });
          this.last = undefined;
          const dimensionCli = `${cli} --dimension ${shellWord(view.dimension)}`;
          this.channel.notify('analysis', { file, analysis: null, errorCategories: [], cli: dimensionCli, rubric: { name: rubric.name, primary: rubric.primary, dimensions: agreementDimensionChoices(rubric) }, dimension: view });
          return;
        }
        const analysis = firstStudyAnalysis(items, { groupRules: { expertPrefix: prefix } });
        const errors = errorCategoryTables(items, file, prefix);
        this.last = { document, analysis, errorTables: errors.tables };
        const { responses: _, ...view } = analysis;
        msg = { file, analysis: view, errorCategories: errors.views, cli };
      } catch (err) {
        this.last = undefined;
        msg = { file, analysis: null, errorCategories: [], cli, error: (err as Error).message };
      }
    }
    this.channel.notify('analysis', msg);
  }

  /** Writes one part of the analysis as CSV (the tidy layout of `reflect-eval agreement --csv`) where the user picks. */
  private async exportCsv(table: ExportableTable): Promise<void> {
    if (!this.last || this.last.document.isClosed) throw new Error('no analysis to export: open a dialogue file in the ReflectEval editor');
    const source = this.last.document.uri;
    const target = await vscode.window.showSaveDialog({
      defaultUri: source.with({ path: siblingFile(source.path, `.${table}.csv`) }),
      filters: { CSV: ['csv'] },
      title: `Export ${table} as CSV`,
    });
    if (!target) return;
    const csv = table === 'error-categories' ? renderTables(this.last.errorTables, 'csv') : firstStudyCsv(this.last.analysis, [table]);
    await vscode.workspace.fs.writeFile(target, new TextEncoder().encode(csv));
    void vscode.window.showInformationMessage(`ReflectEval: wrote ${vscode.workspace.asRelativePath(target)}`);
  }
}
