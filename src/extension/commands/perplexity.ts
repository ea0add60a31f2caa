/**
 * ReflectEval: Compute Perplexity — perplexity of local generators on the reference reflections of the open
 * dialogue file (GEM 2022 §3.3, Table 3); a perplexity plan that the core job runs (src/core/jobs/perplexity.ts),
 * reported in the ReflectEval output channel.
 */
import * as vscode from 'vscode';
import type { GeneratorSpec } from '../../core/generation/runConfig';
import type { DialogueEditorProvider } from '../dialogueEditor';
import { outputChannel, runPlanInEditor } from '../host';
import { activeDialogue, config, requireTrust } from './common';

/** The local generators of `reflectEval.generator.models` (else `reflectEval.generator.model`), offered in a pick when several. */
async function pickLocalModels(): Promise<GeneratorSpec[] | undefined> {
  const { DEFAULT_GENERATOR } = await import('../../core/models/registry');
  const configured = (config().get<GeneratorSpec[]>('generator.models') ?? []).filter((s) => s.backend === 'local');
  const specs: GeneratorSpec[] = configured.length ? configured : [{ backend: 'local', model: config().get<string>('generator.model')?.trim() || DEFAULT_GENERATOR }];
  if (specs.length === 1) return specs;
  const picked = await vscode.window.showQuickPick(specs.map((spec) => ({ label: spec.model ?? DEFAULT_GENERATOR, picked: true, spec })), { ignoreFocusOut: true, title: 'Perplexity: models', canPickMany: true });
  return picked?.length ? picked.map((p) => p.spec) : undefined;
}

export async function perplexityCommand(context: vscode.ExtensionContext, editors: DialogueEditorProvider): Promise<void> {
  if (!requireTrust('run models')) return;
  const document = activeDialogue(editors);
  if (!document) return;
  const models = await pickLocalModels();
  if (!models) return;
  const { DEFAULT_GENERATOR } = await import('../../core/models/registry');
  const { validatePerplexityPlan } = await import('../../core/jobs/perplexity');
  // One plan per input format: a generator's `inputSpecialTokens` changes what is scored.
  for (const special of [false, true]) {
    const refs = models.filter((m) => Boolean(m.inputSpecialTokens) === special).map((m) => m.model ?? DEFAULT_GENERATOR);
    if (!refs.length) continue;
    const plan = validatePerplexityPlan({ models: refs, ...(special ? { inputSpecialTokens: true } : {}) }, 'settings (reflectEval.generator.*)');
    const report = await runPlanInEditor(context, document, { ...plan, job: 'perplexity' }, `perplexity of ${refs.join(', ')}`);
    if (report.lines.length) outputChannel().show(true);
  }
}
