/**
 * ReflectEval: Score Candidates… — pick registered metrics, score every candidate of the open dialogue file with
 * progress and cancel, and merge the scores into the document (finished batches are kept on cancel).
 */
import * as vscode from 'vscode';
import { documentItems } from '../../core/format/jsonl';
import { mergeScores } from '../../core/dialogue/merge';
import type { DialogueItem } from '../../core/dialogue/types';
import { parseTextDocument, updateItems, type DialogueEditorProvider } from '../dialogueEditor';
import { activeDialogue, config, requireTrust, resolveMetricPaths, workspaceDir } from './common';

/** Metrics that only compute on text (no model, no network): they also run in untrusted workspaces. */
const TEXT_ONLY = new Set(['bleu4', 'sacrebleu', 'rougeL', 'meteor']);

export async function scoreCommand(editors: DialogueEditorProvider): Promise<void> {
  const document = activeDialogue(editors);
  if (!document) return;
  const { listMetrics, scoreItems } = await import('../../core/metrics');
  const { DEFAULT_METRICS, itemsLackingReference, metricRuns } = await import('../../core/metrics/runSpec');
  const configured = resolveMetricPaths(config().get<Record<string, unknown>>('metrics') ?? {}, workspaceDir(document));
  const picks = await vscode.window.showQuickPick(
    listMetrics().map((m) => {
      let detail: string;
      try {
        const value = configured[m.name];
        const configs = (Array.isArray(value) ? value : [value ?? {}]) as object[];
        detail = `${configs.length > 1 ? `${configs.length} configurations: ` : ''}${configs.map((c) => m.signature(m.configure(c))).join('  ·  ')}`;
      } catch (err) {
        detail = `reflectEval.metrics.${m.name}: ${(err as Error).message}`;
      }
      return { label: m.name, description: m.card.title, detail, picked: DEFAULT_METRICS.includes(m.name), name: m.name };
    }),
    { title: 'Score candidates with (configurations: setting reflectEval.metrics)', canPickMany: true, matchOnDescription: true },
  );
  if (!picks?.length) return;
  const names = picks.map((p) => p.name);
  if (names.some((n) => !TEXT_ONLY.has(n)) && !requireTrust('run model-based metrics')) return;
  const runs = metricRuns(names, Object.fromEntries(Object.entries(configured).filter(([k]) => names.includes(k))), 'setting reflectEval.metrics');
  const snapshot: DialogueItem[] = documentItems(parseTextDocument(document));
  const perRun = snapshot.reduce((n, it) => n + it.candidates.length, 0);
  const total = perRun * runs.length;
  await vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: `ReflectEval: scoring ${perRun} candidate(s) with ${runs.length} metric configuration(s)`, cancellable: true },
    async (progress, token) => {
      const abort = new AbortController();
      token.onCancellationRequested(() => abort.abort());
      const summary: string[] = [];
      let done = 0;
      for (const run of runs) {
        if (abort.signal.aborted) break;
        let last = 0;
        const res = await scoreItems(snapshot, run.metric, run.config, {
          signal: abort.signal,
          onProgress: (d) => {
            progress.report({ increment: ((d - last) / Math.max(total, 1)) * 100, message: `${done + d}/${total} · ${run.metric.name}` });
            last = d;
          },
        });
        done += perRun;
        // Merge into the current document (edits made meanwhile are kept); a cancelled run keeps its finished batches.
        const byId = new Map(res.items.map((it) => [it.id, it]));
        await updateItems(document, (current) => {
          const computed = byId.get(current.id);
          if (!computed) return undefined;
          let next = current;
          for (const id of res.evaluatorIds) next = mergeScores(next, computed, id);
          return next === current ? undefined : next;
        });
        summary.push(`${run.metric.name}: ${res.scored} scored, ${res.skipped} already scored, ${res.failures} without a score (${res.signature})`);
      }
      const noReference = itemsLackingReference(snapshot, runs);
      const hint = noReference > 0
        ? ` ${noReference} of ${snapshot.length} item(s) have no reference, so reference-based metrics could not score their candidates (an annotation table: import it with the human response as reference).`
        : '';
      void vscode.window.showInformationMessage(`ReflectEval: ${summary.length ? summary.join('; ') : 'nothing scored'}${abort.signal.aborted ? ' (cancelled; finished scores kept)' : ''}.${hint}`);
    },
  );
}
