/**
 * The prompt search leaderboard: a webview panel showing the report a prompt search wrote beside the dialogue file
 * (`<file>.prompt-search.json`, src/core/jobs/searchPrompts.ts) — every judge × variant with its development and
 * held-out Spearman rho and intervals, the optimism gap, the calls it cost and the paper's baselines. It opens after
 * Search Judge Prompts… and with ReflectEval: Show Prompt Search Results, follows the active dialogue file, and
 * opens a clicked variant's assembled prompt in the prompt preview (reflectEval.previewSearchVariant).
 */
import * as vscode from 'vscode';
import { leaderboardRows, readSearchReport, searchReportFile, type SearchResult } from '../core/judges/searchReport';
import type { LeaderboardSummary, LeaderboardView, SearchProtocol } from '../../webview/search/protocol';
import type { DialogueEditorProvider } from './dialogueEditor';
import { documentFile } from './host';
import { openPanel } from './panels';
import type { HostChannel } from './webviewChannel';

/** What reflectEval.previewSearchVariant gets: a report entry, and the dialogue file whose candidates fill the prompt. */
export interface SearchVariantRef {
  reportFile: string;
  index: number;
  dialogueFile?: string;
}

function summaryOf(r: SearchResult): LeaderboardSummary {
  const s = r.split as SearchResult['split'] & { kind?: string; k?: number };
  const split =
    s.kind === 'kfold'
      ? `${s.k} folds by ${s.groupBy}, seed ${s.seed}: ${s.devGroups + s.testGroups} contexts`
      : `development/held-out by ${s.groupBy}, seed ${s.seed}: ${s.devGroups} + ${s.testGroups} ${s.groupBy === 'transcript' ? 'transcripts' : 'contexts'} (${s.devItems.length} + ${s.testItems.length} items)`;
  const target = r.target ? { target: `${r.target.phrase} (dimension ${JSON.stringify(r.target.dimension)}, ${r.human})` } : {};
  return { split, human: r.human, ...target, optimismGap: r.optimismGap, calls: r.calls, cacheHits: r.cacheHits, estimate: r.estimate ?? null, crossFit: r.crossFit ?? null };
}

export class SearchPanel {
  private static current: SearchPanel | undefined;
  private readonly disposables: vscode.Disposable[] = [];
  /** The report on screen (a file given by the search that just ran, else the active dialogue file's). */
  private reportFile: string | undefined;
  private dialogueFile: string | undefined;

  /** Opens (or reveals) the panel; with `files`, shows that report, else the active dialogue file's. */
  static show(context: vscode.ExtensionContext, editors: DialogueEditorProvider, files?: { reportFile: string; dialogueFile: string }): void {
    if (!SearchPanel.current) {
      const { panel, channel } = openPanel<SearchProtocol>(
        context.extensionUri,
        'reflectEval.promptSearch',
        { title: 'ReflectEval: Prompt Search', script: 'search', style: 'search', body: '<div id="app"><h2>Prompt search</h2><p id="search-status" class="muted">Loading…</p></div>' },
        { retainContextWhenHidden: true },
      );
      SearchPanel.current = new SearchPanel(panel, channel, editors);
    } else SearchPanel.current.panel.reveal(vscode.ViewColumn.Beside, true);
    const p = SearchPanel.current;
    p.follow(files);
    p.update();
  }

  private constructor(
    private readonly panel: vscode.WebviewPanel,
    private readonly channel: HostChannel<SearchProtocol>,
    private readonly editors: DialogueEditorProvider,
  ) {
    channel
      .on('ready', () => this.update())
      .on('refresh', () => this.update())
      .on('open', (m) => this.open(m.index));
    this.disposables.push(
      editors.onDidChangeActive(() => {
        this.follow();
        this.update();
      }),
    );
    panel.onDidDispose(() => {
      SearchPanel.current = undefined;
      this.disposables.forEach((d) => d.dispose());
    });
  }

  /** Takes the given report, or the active dialogue file's. */
  private follow(files?: { reportFile: string; dialogueFile: string }): void {
    if (files) {
      this.reportFile = files.reportFile;
      this.dialogueFile = files.dialogueFile;
      return;
    }
    const doc = this.editors.activeDocument;
    if (doc) {
      this.dialogueFile = documentFile(doc);
      this.reportFile = searchReportFile(this.dialogueFile);
    }
  }

  /** A clicked variant: its assembled prompt in the prompt preview. */
  private async open(index: number): Promise<void> {
    if (!this.reportFile) throw new Error('no prompt search report is shown');
    const ref: SearchVariantRef = { reportFile: this.reportFile, index, ...(this.dialogueFile ? { dialogueFile: this.dialogueFile } : {}) };
    await vscode.commands.executeCommand('reflectEval.previewSearchVariant', ref);
  }

  private update(): void {
    const msg: LeaderboardView = { report: null, error: null, summary: null, rows: [] };
    if (!this.reportFile) msg.error = 'Open a dialogue file (*.dialogues.jsonl) and run Search Judge Prompts… to see its leaderboard.';
    else {
      msg.report = vscode.workspace.asRelativePath(this.reportFile);
      try {
        const r = readSearchReport(this.reportFile);
        msg.summary = summaryOf(r);
        msg.rows = leaderboardRows(r);
      } catch (err) {
        msg.error = (err as Error).message;
      }
    }
    this.channel.notify('leaderboard', msg);
  }
}
