/**
 * ReflectEval: Cluster Candidates (semantic dedup) — first study §4.2.1 on the open dialogue file.
 */
import * as vscode from 'vscode';
import { documentItems } from '../../core/format/jsonl';
import { parseTextDocument, updateItems, type DialogueEditorProvider } from '../dialogueEditor';
import { activeDialogue, config, requireTrust, workspaceDir } from './common';

export async function dedupCommand(editors: DialogueEditorProvider): Promise<void> {
  if (!requireTrust('run models')) return;
  const document = activeDialogue(editors);
  if (!document) return;
  const { SEMANTIC_DEDUP_DEFAULTS, clusterCandidates, mergeClusters, semanticDedupConfig } = await import('../../core/dedup/semanticDedup');
  const settings = semanticDedupConfig({
    model: config().get<string>('dedup.model')?.trim() || SEMANTIC_DEDUP_DEFAULTS.model,
    threshold: config().get<number>('dedup.threshold') ?? SEMANTIC_DEDUP_DEFAULTS.threshold,
    sample: config().get<number>('dedup.sample') ?? SEMANTIC_DEDUP_DEFAULTS.sample,
    seed: config().get<number>('dedup.seed') ?? SEMANTIC_DEDUP_DEFAULTS.seed,
    include: config().get<'generated' | 'all'>('dedup.include') ?? SEMANTIC_DEDUP_DEFAULTS.include,
  });
  const snapshot = documentItems(parseTextDocument(document));
  await vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: `ReflectEval: clustering candidates (σ = ${settings.threshold}, k = ${settings.sample})`, cancellable: true },
    async (progress, token) => {
      const abort = new AbortController();
      token.onCancellationRequested(() => abort.abort());
      progress.report({ message: `loading ${settings.model}` });
      const { SentenceEmbedder } = await import('../../core/models/sentenceEmbedding');
      const embedder = await SentenceEmbedder.load(settings.model, { cwd: workspaceDir(document) });
      let done = 0;
      try {
        const res = await clusterCandidates(snapshot, embedder, settings, {
          signal: abort.signal,
          onProgress: (n, total) => {
            progress.report({ increment: ((n - done) / total) * 100, message: `${n}/${total} items` });
            done = n;
          },
        });
        const byId = new Map(res.items.map((it) => [it.id, it]));
        const reached = new Set(res.perItem.map((p) => p.itemId));
        const n = await updateItems(document, (current) => (reached.has(current.id) ? mergeClusters(current, byId.get(current.id)!) : undefined));
        const clusters = res.perItem.reduce((s, p) => s + p.clusters, 0);
        const mean = Number.isNaN(res.meanSampledClusterSize) ? '—' : res.meanSampledClusterSize.toFixed(2);
        void vscode.window.showInformationMessage(
          `ReflectEval: ${clusters} clusters in ${res.perItem.length} item(s), ${n} line(s) updated; mean size of a sampled cluster ${mean}${res.cancelled ? ' (cancelled; finished items kept)' : ''}.`,
        );
      } finally {
        await embedder.dispose();
      }
    },
  );
}
