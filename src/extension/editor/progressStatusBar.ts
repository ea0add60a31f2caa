/**
 * The labelling progress of the active dialogue editor in VS Code's status bar (issue 18 item 3), and beside it the
 * team's progress with the agreement so far (issue 44 item 5; editor/teamProgress.ts).
 */
import * as vscode from 'vscode';
import type { LabelProgress } from '../../core/navigation/itemNavigation';
import { progressStatusText } from '../itemNavigator';

/** The status bar item showing the active dialogue editor's progress; clicking it runs "next unlabelled". */
export class ProgressStatusBar implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem('reflectEval.labelProgress', vscode.StatusBarAlignment.Left, 100);
  private readonly team = vscode.window.createStatusBarItem('reflectEval.teamProgress', vscode.StatusBarAlignment.Left, 99);

  constructor() {
    this.item.name = 'ReflectEval Labelling Progress';
    this.item.command = 'reflectEval.label.nextUnlabelled';
    this.team.name = 'ReflectEval Team Progress';
  }

  /** Shows the team's progress (text and tooltip lines), or hides it when there is none. */
  showTeam(text: string | undefined, lines: readonly string[] = []): void {
    if (!text) return this.team.hide();
    this.team.text = text;
    this.team.tooltip = [...lines, '', 'The same numbers as `reflect-eval progress <study> [--packets <folder>]`'].join('\n');
    this.team.accessibilityInformation = { label: `ReflectEval team progress: ${text.replace(/^\$\([^)]*\)\s*/, '')}` };
    this.team.show();
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
    this.team.dispose();
  }
}
