/**
 * ReflectEval: Judge Candidates, Run Judge Matrix…, Set Judge API Key.
 */
import * as vscode from 'vscode';
import { documentItems } from '../../core/format/jsonl';
import { mergeScores } from '../../core/dialogue/merge';
import type { DialogueItem } from '../../core/dialogue/types';
import type { Judge } from '../../core/judges/judge';
import type { PromptVariant } from '../../core/judges/prompts';
import type { JudgeSpec, Price } from '../../core/judges/runConfig';
import { parseTextDocument, updateItems, type DialogueEditorProvider } from '../dialogueEditor';
import { activeDialogue, bundledModelFolder, config, promptRoots, requireTrust } from './common';

const SECRET_KEY = 'reflectEval.judge.apiKey';

/** The single judge the `reflectEval.judge.*` settings describe. */
function settingsJudge(): JudgeSpec {
  if ((config().get<string>('judge.backend') ?? 'local') === 'openai') {
    return { backend: 'openai-chat', baseURL: config().get<string>('judge.baseURL') ?? 'https://api.openai.com/v1', model: config().get<string>('judge.model')?.trim() ?? '' };
  }
  const local = config().get<string>('judge.localModel')?.trim();
  return { backend: 'local', ...(local ? { model: local } : {}) };
}

function judgeLabel(spec: JudgeSpec): string {
  return spec.backend === 'local' ? `local: ${spec.model ?? 'bundled:reflect-gpt2-tiny'}` : `${spec.backend}: ${spec.model} @ ${spec.baseURL}`;
}

/** A ready judge for a spec, wrapped with the response cache; undefined (with a message) when it cannot run. */
async function makeJudge(context: vscode.ExtensionContext, spec: JudgeSpec, progress: vscode.Progress<{ message?: string }>): Promise<{ judge: Judge; dispose: () => Promise<void> } | undefined> {
  let apiKey: string | undefined;
  if (spec.backend !== 'local') {
    apiKey = await context.secrets.get(SECRET_KEY);
    if (!apiKey) {
      void vscode.window.showWarningMessage('ReflectEval: no API key stored. Run "ReflectEval: Set Judge API Key" first.');
      return undefined;
    }
  } else {
    progress.report({ message: `loading ${spec.model ?? 'the bundled model'}` });
  }
  const { createJudge, judgeDescription } = await import('../../core/judges/createJudge');
  const made = await createJudge(spec, { apiKey, bundledModel: bundledModelFolder(context) });
  // Replies are cached per backend description and prompt (never keyed by the API key) in the extension's storage.
  const { cachedJudge, JudgeCache } = await import('../../core/judges/cache');
  const cache = new JudgeCache(vscode.Uri.joinPath(context.globalStorageUri, 'judge-cache.jsonl').fsPath);
  return { judge: cachedJudge(made.judge, cache, judgeDescription(spec)), dispose: made.dispose };
}

/** Runs judges × variants over the document's candidates with progress and cancel, merging scores as each variant finishes. */
async function runVariants(context: vscode.ExtensionContext, document: vscode.TextDocument, specs: JudgeSpec[], variants: PromptVariant[]): Promise<void> {
  const snapshot: DialogueItem[] = documentItems(parseTextDocument(document));
  const perVariant = snapshot.reduce((n, it) => n + it.candidates.length, 0);
  const total = perVariant * specs.length * variants.length;
  await vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: `ReflectEval: judging (${specs.length} judge(s) × ${variants.length} variant(s))`, cancellable: true },
    async (progress, token) => {
      const abort = new AbortController();
      token.onCancellationRequested(() => abort.abort());
      const { runJudge } = await import('../../core/judges/judge');
      const { loadPromptLibrary } = await import('../../core/judges/prompts');
      const lib = loadPromptLibrary(...promptRoots(context));
      let done = 0;
      const summary: string[] = [];
      for (const spec of specs) {
        if (abort.signal.aborted) break;
        const made = await makeJudge(context, spec, progress);
        if (!made) return;
        try {
          for (const variant of variants) {
            if (abort.signal.aborted) break;
            let last = 0;
            const res = await runJudge(snapshot, made.judge, lib, variant, {
              concurrency: 4,
              signal: abort.signal,
              onProgress: (p) => {
                progress.report({ increment: ((p.done - last) / Math.max(total, 1)) * 100, message: `${done + p.done}/${total} · ${variant.body} × ${variant.request} (${p.failures} without a usable score)` });
                last = p.done;
              },
            });
            done += perVariant;
            const byId = new Map(res.items.map((it) => [it.id, it]));
            await updateItems(document, (current) => {
              const computed = byId.get(current.id);
              return computed ? mergeScores(current, computed, res.evaluatorId) : undefined;
            });
            summary.push(`${res.evaluatorId}: ${res.calls} judgement(s), ${res.failures} without a usable score`);
          }
        } finally {
          await made.dispose();
        }
      }
      void vscode.window.showInformationMessage(`ReflectEval: ${summary.length ? summary.join('; ') : 'nothing judged'}${abort.signal.aborted ? ' (cancelled; finished judgements kept)' : ''}.`);
    },
  );
}

export async function judgeCommand(context: vscode.ExtensionContext, editors: DialogueEditorProvider): Promise<void> {
  if (!requireTrust('run judges')) return;
  const document = activeDialogue(editors);
  if (!document) return;
  await runVariants(context, document, [settingsJudge()], [{ body: config().get<string>('judge.body') ?? 'instructions', request: config().get<string>('judge.request') ?? 'rating' }]);
}

/** Picks judges × task bodies × requests, shows the number of calls and the estimated cost, then runs them. */
export async function judgeMatrixCommand(context: vscode.ExtensionContext, editors: DialogueEditorProvider): Promise<void> {
  if (!requireTrust('run judges')) return;
  const document = activeDialogue(editors);
  if (!document) return;
  const { loadPromptLibrary, assemblePrompt } = await import('../../core/judges/prompts');
  const lib = loadPromptLibrary(...promptRoots(context));
  const configured = config().get<JudgeSpec[]>('judges') ?? [];
  const judges = configured.length ? configured : [settingsJudge()];
  const pickedJudges = await vscode.window.showQuickPick(judges.map((j) => ({ label: judgeLabel(j), picked: true, spec: j })), { title: 'Judges (setting reflectEval.judges)', canPickMany: true });
  if (!pickedJudges?.length) return;
  const bodies = await vscode.window.showQuickPick(Object.keys(lib.bodies).map((b) => ({ label: b, picked: true })), { title: 'Task bodies', canPickMany: true });
  if (!bodies?.length) return;
  const requests = await vscode.window.showQuickPick(Object.keys(lib.requests).map((r) => ({ label: r, picked: true, description: lib.requests[r].spec.description })), { title: 'Assessment requests', canPickMany: true });
  if (!requests?.length) return;
  const variants = bodies.flatMap((b) => requests.map((r) => ({ body: b.label, request: r.label })));
  const items = documentItems(parseTextDocument(document));
  const candidates = items.reduce((n, it) => n + it.candidates.length, 0);
  const calls = candidates * pickedJudges.length * variants.length;
  // Cost: prompt tokens counted per judge model, plus at most maxTokens (default 16) of reply per call.
  const prices = config().get<Record<string, Price>>('prices') ?? {};
  const { countApiTokens } = await import('../../core/judges/tokenCount');
  const { costOf } = await import('../../core/judges/runConfig');
  const lines: string[] = [];
  let cost = 0;
  for (const { spec } of pickedJudges) {
    if (spec.backend === 'local' || !spec.model) continue;
    let promptTokens = 0;
    for (const v of variants) for (const it of items) for (const c of it.candidates) promptTokens += (await countApiTokens(spec.model, assemblePrompt(lib, v, it.context, c.text).text)).tokens;
    const estimate = costOf({ promptTokens, completionTokens: (spec.maxTokens ?? 16) * candidates * variants.length }, prices[spec.model]);
    lines.push(`${spec.model}: ${promptTokens} prompt tokens${estimate === null ? ' (no price in reflectEval.prices)' : `, ≈ ${estimate.toFixed(4)} at most`}`);
    if (estimate !== null) cost += estimate;
  }
  const message = `${calls} judgements: ${candidates} candidates × ${pickedJudges.length} judge(s) × ${variants.length} variant(s). Cached replies are not asked again.${lines.length ? `\n${lines.join('\n')}\nEstimated cost ≤ ${cost.toFixed(4)}` : ''}`;
  const go = await vscode.window.showInformationMessage(message, { modal: true }, 'Run');
  if (go !== 'Run') return;
  await runVariants(context, document, pickedJudges.map((p) => p.spec), variants);
}

export async function setApiKeyCommand(context: vscode.ExtensionContext): Promise<void> {
  const key = await vscode.window.showInputBox({ title: 'Judge API key', prompt: 'Stored in VS Code SecretStorage; never written to settings or files.', password: true, ignoreFocusOut: true });
  if (key === undefined) return;
  if (key.trim() === '') await context.secrets.delete(SECRET_KEY);
  else await context.secrets.store(SECRET_KEY, key.trim());
  void vscode.window.showInformationMessage(key.trim() ? 'ReflectEval: API key stored.' : 'ReflectEval: API key removed.');
}
