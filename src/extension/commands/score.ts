/**
 * ReflectEval: Score Candidates… — pick registered metrics (configurations from `reflectEval.metrics`); the choice
 * becomes a score plan that the core job runs (src/core/jobs/score.ts) with progress and cancel, merging scores
 * into the document (finished configurations are kept on cancel).
 */
import * as vscode from 'vscode';
import type { DialogueEditorProvider } from '../dialogueEditor';
import { runPlanInEditor } from '../host';
import { activeDialogue, config, requireTrust, resolveMetricPaths, workspaceDir } from './common';

export async function scoreCommand(context: vscode.ExtensionContext, editors: DialogueEditorProvider): Promise<void> {
  const document = activeDialogue(editors);
  if (!document) return;
  const { listMetrics } = await import('../../core/metrics');
  const { DEFAULT_METRICS } = await import('../../core/metrics/runSpec');
  const { TEXT_ONLY_METRICS, validateScorePlan } = await import('../../core/jobs/score');
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
    { ignoreFocusOut: true, title: 'Score candidates with (configurations: setting reflectEval.metrics)', canPickMany: true, matchOnDescription: true },
  );
  if (!picks?.length) return;
  const names = picks.map((p) => p.name);
  if (names.some((n) => !TEXT_ONLY_METRICS.has(n)) && !requireTrust('run model-based metrics')) return;
  const chosen = Object.fromEntries(Object.entries(configured).filter(([k]) => names.includes(k)));
  const plan = validateScorePlan({ metrics: names, ...(Object.keys(chosen).length ? { config: chosen } : {}) }, 'setting reflectEval.metrics');
  await runPlanInEditor(context, document, { ...plan, job: 'score' }, `scoring with ${names.join(', ')}`);
}
