/**
 * ReflectEval's commands: thin glue from VS Code UI to the core, one module per command family.
 */
import * as vscode from 'vscode';
import { AgreementPanel } from '../agreementPanel';
import { CorrelationPanel } from '../correlationPanel';
import type { DialogueEditorProvider } from '../dialogueEditor';
import { parseDialogue } from '../dialogueDocument';
import { documentItems } from '../../core/format/jsonl';
import { estimatePlanCommand, initLabelPlans, planLabelsCommand } from '../labelPlan';
import { SearchPanel } from '../searchPanel';
import { exportAnnotationTableCommand, importAnnotationTableCommand } from './annotations';
import { promptAnnotator } from '../settings';
import { dedupCommand } from './dedup';
import { assignPacketsCommand, collectPacketsCommand } from './team';
import { generateCommand, setGeneratorApiKeyCommand } from './generate';
import { importAnnoMICommand } from './importAnnoMI';
import { importDatasetCommand } from './importGeneric';
import { judgeCommand, judgeMatrixCommand, searchPromptsCommand, setApiKeyCommand } from './judge';
import { outputChannel, runPlanInEditor } from '../host';
import { forgetApprovalsCommand } from '../keys';
import { labellingCommands } from './labelling';
import { perplexityCommand } from './perplexity';
import { runPlanCommand } from './runPlan';
import { scoreCommand } from './score';

/**
 * Wraps a command so its failure becomes an error message instead of an unhandled rejection. The message also goes
 * to the ReflectEval output, where it stays after the notification is gone.
 */
export function reportErrors(fn: () => Promise<void>): () => Promise<void> {
  return async () => {
    try {
      await fn();
    } catch (err) {
      outputChannel().appendLine(`${new Date().toISOString()} error: ${(err as Error).message}`);
      void vscode.window.showErrorMessage(`ReflectEval: ${(err as Error).message}`);
    }
  };
}

/** Registers every command. */
export function registerCommands(context: vscode.ExtensionContext, editors: DialogueEditorProvider): vscode.Disposable[] {
  initLabelPlans(context);
  return [
    vscode.commands.registerCommand('reflectEval.importAnnoMI', reportErrors(() => importAnnoMICommand(context))),
    vscode.commands.registerCommand('reflectEval.importAnnotationTable', reportErrors(() => importAnnotationTableCommand(context))),
    vscode.commands.registerCommand('reflectEval.importDataset', reportErrors(() => importDatasetCommand(context))),
    vscode.commands.registerCommand('reflectEval.exportAnnotationTable', reportErrors(() => exportAnnotationTableCommand(editors))),
    vscode.commands.registerCommand('reflectEval.generate', reportErrors(() => generateCommand(context, editors))),
    vscode.commands.registerCommand('reflectEval.judge', reportErrors(() => judgeCommand(context, editors))),
    vscode.commands.registerCommand('reflectEval.dedup', reportErrors(() => dedupCommand(context, editors))),
    vscode.commands.registerCommand('reflectEval.assignPackets', reportErrors(() => assignPacketsCommand(context, editors))),
    vscode.commands.registerCommand('reflectEval.collectPackets', reportErrors(() => collectPacketsCommand(context, editors))),
    vscode.commands.registerCommand('reflectEval.judgeMatrix', reportErrors(() => judgeMatrixCommand(context, editors))),
    vscode.commands.registerCommand('reflectEval.searchPrompts', reportErrors(() => searchPromptsCommand(context, editors))),
    vscode.commands.registerCommand('reflectEval.showPromptSearch', reportErrors(async () => SearchPanel.show(context, editors))),
    vscode.commands.registerCommand('reflectEval.score', reportErrors(() => scoreCommand(context, editors))),
    vscode.commands.registerCommand('reflectEval.showCorrelation', reportErrors(async () => CorrelationPanel.show(context, editors))),
    vscode.commands.registerCommand('reflectEval.setAnnotator', reportErrors(async () => void (await promptAnnotator()))),
    vscode.commands.registerCommand('reflectEval.setApiKey', reportErrors(() => setApiKeyCommand(context))),
    ...labellingCommands(editors),
    vscode.commands.registerCommand(
      'reflectEval.planLabels',
      reportErrors(() => {
        const document = editors.activeDocument;
        return planLabelsCommand(document, (d) => documentItems(parseDialogue(d)), (d) => editors.showPlan(d), (plan) => runPlanInEditor(context, document!, plan, 'labelling plan'));
      }),
    ),
    vscode.commands.registerCommand(
      'reflectEval.planEstimate',
      reportErrors(() => {
        const document = editors.activeDocument;
        return estimatePlanCommand(document, (d) => documentItems(parseDialogue(d)), (d) => editors.showPlan(d), (plan) => runPlanInEditor(context, document!, plan, 'estimate plan'));
      }),
    ),
    vscode.commands.registerCommand('reflectEval.showAgreement', reportErrors(async () => AgreementPanel.show(context, editors))),
    vscode.commands.registerCommand('reflectEval.perplexity', reportErrors(() => perplexityCommand(context, editors))),
    vscode.commands.registerCommand('reflectEval.setGeneratorApiKey', reportErrors(() => setGeneratorApiKeyCommand(context))),
    vscode.commands.registerCommand('reflectEval.forgetKeyApprovals', reportErrors(() => forgetApprovalsCommand(context))),
    vscode.commands.registerCommand('reflectEval.runPlan', (uri?: vscode.Uri) => reportErrors(() => runPlanCommand(context, editors, uri instanceof vscode.Uri ? uri : undefined))()),
  ];
}
