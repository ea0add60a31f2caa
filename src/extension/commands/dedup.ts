/**
 * ReflectEval: Cluster Candidates (semantic dedup) — first study §4.2.1 on the open dialogue file; the settings
 * become a dedup plan that the core job runs (src/core/jobs/dedup.ts).
 */
import * as vscode from 'vscode';
import type { DialogueEditorProvider } from '../dialogueEditor';
import { runPlanInEditor } from '../host';
import { activeDialogue, config, requireTrust } from './common';

export async function dedupCommand(context: vscode.ExtensionContext, editors: DialogueEditorProvider): Promise<void> {
  if (!requireTrust('run models')) return;
  const document = activeDialogue(editors);
  if (!document) return;
  const { SEMANTIC_DEDUP_DEFAULTS } = await import('../../core/dedup/semanticDedup');
  const { validateDedupPlan } = await import('../../core/jobs/dedup');
  const plan = validateDedupPlan(
    {
      model: config().get<string>('dedup.model')?.trim() || SEMANTIC_DEDUP_DEFAULTS.model,
      threshold: config().get<number>('dedup.threshold') ?? SEMANTIC_DEDUP_DEFAULTS.threshold,
      sample: config().get<number>('dedup.sample') ?? SEMANTIC_DEDUP_DEFAULTS.sample,
      seed: config().get<number>('dedup.seed') ?? SEMANTIC_DEDUP_DEFAULTS.seed,
      include: config().get<'generated' | 'all'>('dedup.include') ?? SEMANTIC_DEDUP_DEFAULTS.include,
    },
    'settings (reflectEval.dedup.*)',
  );
  await runPlanInEditor(context, document, { ...plan, job: 'dedup' }, `clustering candidates (σ = ${plan.threshold}, k = ${plan.sample})`);
}
