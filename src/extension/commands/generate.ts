/**
 * ReflectEval: Generate Candidates
 */
import * as vscode from 'vscode';
import { documentItems } from '../../core/format/jsonl';
import { mergeNewCandidates } from '../../core/model/merge';
import { parseTextDocument, updateItems, type DialogueEditorProvider } from '../dialogueEditor';
import { activeDialogue, config, loadConfiguredModel, requireTrust } from './common';

export async function generateCommand(context: vscode.ExtensionContext, editors: DialogueEditorProvider): Promise<void> {
  if (!requireTrust('run models')) return;
  const document = activeDialogue(editors);
  if (!document) return;
  const maxNewTokens = config().get<number>('generator.maxNewTokens') ?? 128;
  const snapshot = documentItems(parseTextDocument(document));
  await vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: 'ReflectEval: generating greedy candidates', cancellable: true },
    async (progress, token) => {
      const abort = new AbortController();
      token.onCancellationRequested(() => abort.abort());
      const { generateCandidates } = await import('../../core/generation/generate');
      const model = await loadConfiguredModel(context, 'generator.model', progress);
      let done = 0;
      try {
        const computed = await generateCandidates(model, snapshot, { strategy: 'greedy', maxNewTokens }, {
          signal: abort.signal,
          onProgress: (p) => {
            progress.report({
              increment: ((p.itemsDone - done) / p.itemsTotal) * 100,
              message: `${p.itemsDone}/${p.itemsTotal} contexts · ${((p.tokensGenerated / Math.max(p.elapsedMs, 1)) * 1000).toFixed(1)} tokens/s`,
            });
            done = p.itemsDone;
          },
        });
        const byId = new Map(snapshot.map((s, i) => [s.id, { snapshot: s, computed: computed[i] }]));
        const n = await updateItems(document, (current) => {
          const m = byId.get(current.id);
          return m ? mergeNewCandidates(current, m.snapshot, m.computed) : undefined;
        });
        void vscode.window.showInformationMessage(`ReflectEval: added candidates to ${n} item(s)${abort.signal.aborted ? ' (cancelled; finished contexts kept)' : ''}.`);
      } finally {
        await model.dispose();
      }
    },
  );
}
