/**
 * The correlation panel: a webview beside the dialogue editor showing, for every evaluator id, Spearman's
 * rho against the human coherence score, with n and p. It follows the active dialogue document and
 * updates on every change to it.
 */
import * as vscode from 'vscode';
import { correlationTable } from '../core/analysis/correlationTable';
import { coherenceScore } from '../core/labels/annotate';
import { documentItems } from '../core/format/jsonl';
import type { CorrelationHostMessage, CorrelationWebviewMessage } from '../../webview/correlation/protocol';
import { parseTextDocument, type DialogueEditorProvider } from './dialogueEditor';
import { webviewPage } from './webviewHtml';

export class CorrelationPanel {
  private static current: CorrelationPanel | undefined;
  private readonly disposables: vscode.Disposable[] = [];

  static show(context: vscode.ExtensionContext, editors: DialogueEditorProvider): void {
    if (CorrelationPanel.current) {
      CorrelationPanel.current.panel.reveal(vscode.ViewColumn.Beside, true);
      CorrelationPanel.current.update();
      return;
    }
    const panel = vscode.window.createWebviewPanel('reflectEval.correlation', 'ReflectEval: Correlations', { viewColumn: vscode.ViewColumn.Beside, preserveFocus: true }, {
      enableScripts: true,
      localResourceRoots: [vscode.Uri.joinPath(context.extensionUri, 'dist'), vscode.Uri.joinPath(context.extensionUri, 'media')],
    });
    CorrelationPanel.current = new CorrelationPanel(panel, context, editors);
  }

  private constructor(
    private readonly panel: vscode.WebviewPanel,
    context: vscode.ExtensionContext,
    private readonly editors: DialogueEditorProvider,
  ) {
    panel.webview.html = webviewPage(panel.webview, context.extensionUri, {
      title: 'ReflectEval: Correlations',
      script: 'correlation',
      style: 'correlation',
      body: '<h2 id="title">Correlations</h2><p id="summary" class="muted"></p><div id="table"></div>',
    });
    this.disposables.push(
      panel.webview.onDidReceiveMessage((m: CorrelationWebviewMessage) => {
        if (m.type === 'ready') this.update();
      }),
      editors.onDidChangeActive(() => this.update()),
      vscode.workspace.onDidChangeTextDocument((e) => {
        if (e.document === this.editors.activeDocument && e.contentChanges.length > 0) this.update();
      }),
    );
    panel.onDidDispose(() => {
      CorrelationPanel.current = undefined;
      this.disposables.forEach((d) => d.dispose());
    });
  }

  private update(): void {
    const document = this.editors.activeDocument;
    let msg: CorrelationHostMessage;
    if (!document) {
      msg = { type: 'table', file: null, rows: [], labelledCandidates: 0, totalCandidates: 0 };
    } else {
      const items = documentItems(parseTextDocument(document));
      const candidates = items.flatMap((i) => i.candidates);
      msg = {
        type: 'table',
        file: vscode.workspace.asRelativePath(document.uri),
        rows: correlationTable(items).map((r) => ({
          evaluatorId: r.evaluatorId,
          n: r.n,
          excluded: r.excluded,
          rho: r.result.statistic,
          pValue: r.result.pValue,
          undefinedReason: r.result.undefinedReason,
        })),
        labelledCandidates: candidates.filter((c) => coherenceScore(c) !== null).length,
        totalCandidates: candidates.length,
      };
    }
    void this.panel.webview.postMessage(msg);
  }
}
