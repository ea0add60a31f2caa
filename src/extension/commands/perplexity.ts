/**
 * ReflectEval: Compute Perplexity — perplexity of local generators on the reference reflections of the open
 * dialogue file (GEM 2022 §3.3, Table 3; see src/core/generation/perplexity.ts for what is scored).
 */
import * as vscode from 'vscode';
import { documentItems } from '../../core/format/jsonl';
import type { GeneratorSpec } from '../../core/generation/runConfig';
import { parseTextDocument, type DialogueEditorProvider } from '../dialogueEditor';
import { activeDialogue, config, requireTrust } from './common';

let channel: vscode.OutputChannel | undefined;

/** The local generators of `reflectEval.generator.models` (else `reflectEval.generator.model`), offered in a pick when several. */
async function pickLocalModels(): Promise<GeneratorSpec[] | undefined> {
  const { DEFAULT_LOCAL_MODEL } = await import('../../core/generation/createGenerator');
  const configured = (config().get<GeneratorSpec[]>('generator.models') ?? []).filter((s) => s.backend === 'local');
  const specs: GeneratorSpec[] = configured.length ? configured : [{ backend: 'local', model: config().get<string>('generator.model')?.trim() || DEFAULT_LOCAL_MODEL }];
  if (specs.length === 1) return specs;
  const picked = await vscode.window.showQuickPick(specs.map((spec) => ({ label: spec.model ?? DEFAULT_LOCAL_MODEL, picked: true, spec })), { title: 'Perplexity: models', canPickMany: true });
  return picked?.length ? picked.map((p) => p.spec) : undefined;
}

export async function perplexityCommand(context: vscode.ExtensionContext, editors: DialogueEditorProvider): Promise<void> {
  if (!requireTrust('run models')) return;
  const document = activeDialogue(editors);
  if (!document) return;
  const { perplexity, perplexityExamples } = await import('../../core/generation/perplexity');
  const examples = perplexityExamples(documentItems(parseTextDocument(document)));
  if (examples.length === 0) {
    void vscode.window.showInformationMessage('ReflectEval: no item of this file has a reference reflection to score.');
    return;
  }
  const models = await pickLocalModels();
  if (!models) return;
  channel ??= vscode.window.createOutputChannel('ReflectEval');
  const lines: string[] = [];
  await vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: `ReflectEval: perplexity on ${examples.length} reference reflection(s)`, cancellable: true },
    async (progress, token) => {
      const abort = new AbortController();
      token.onCancellationRequested(() => abort.abort());
      const { loadGenerativeModel, DEFAULT_GENERATOR: DEFAULT_LOCAL_MODEL } = await import('../../core/models/registry');
      const workspace = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
      for (const spec of models) {
        if (abort.signal.aborted) break;
        const ref = spec.model ?? DEFAULT_LOCAL_MODEL;
        progress.report({ message: `loading ${ref}` });
        const model = await loadGenerativeModel(ref, { bundledDir: vscode.Uri.joinPath(context.extensionUri, 'fixtures', 'models').fsPath, baseDir: workspace ?? context.extensionUri.fsPath });
        try {
          const r = await perplexity(model, examples, { inputSpecialTokens: spec.inputSpecialTokens, signal: abort.signal, onProgress: (done, total) => progress.report({ message: `${ref}: ${done}/${total}` }) });
          const line = `${ref}: perplexity ${r.perplexity.toFixed(3)} (mean NLL ${r.meanNll.toFixed(4)} nats over ${r.tokens} tokens of ${r.responses} responses)`;
          lines.push(line);
          channel!.appendLine(`${new Date().toISOString()} ${document.uri.fsPath}\n  ${line}\n  ${r.signature}`);
        } catch (err) {
          if (!abort.signal.aborted) throw err;
        } finally {
          await model.dispose();
        }
      }
    },
  );
  if (lines.length) {
    channel.show(true);
    void vscode.window.showInformationMessage(`ReflectEval: ${lines.join('; ')}`);
  }
}
