/** The labelling progress of the active dialogue editor in VS Code's status bar (issue 18 item 3). */
import * as vscode from 'vscode';
import type { LabelProgress } from '../../core/navigation/itemNavigation';
import { progressStatusText } from '../itemNavigator';

/** The status bar item showing the active dialogue editor's progress; clicking it runs "next unlabelled". */
export class ProgressStatusBar implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem('reflectEval.labelProgress', vscode.StatusBarAlignment.Left, 100);

  constructor() {
    this.item.name = 'ReflectEval Labelling Progress';
    this.item.command = 'reflectEval.label.nextUnlabelled';
  }

  show(progress: LabelProgress, annotator: string | null, extra: Parameters<typeof progressStatusText>[2] = {}): void {
    const { text, tooltip } = progressStatusText(progress, annotator, extra);
    this.item.text = text;
    this.item.tooltip = tooltip;
    this.item.accessibilityInformation = { label: annotator ? `ReflectEval: ${progress.mine} of ${progress.candidates} candidates labelled by you` : 'ReflectEval: no annotator set' };
    this.item.show();
  }

  hide(): void {
    this.item.hide();
  }

  dispose(): void {
    this.item.dispose();
  }
}
