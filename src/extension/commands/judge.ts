/**
 * ReflectEval: Judge Candidates, Run Judge Matrix…, Set Judge API Key. The settings and quick picks become a
 * judge plan that the core job runs (src/core/jobs/judge.ts), with the response cache and the manifest beside the
 * dialogue file, as the CLI writes them.
 */
import * as vscode from 'vscode';
import type { JudgePlan } from '../../core/jobs/judge';
import type { JudgeSpec, Price } from '../../core/judges/judgeSpec';
import type { DialogueEditorProvider } from '../dialogueEditor';
import { parseDialogue } from '../dialogueDocument';
import { documentFile, runPlanInEditor } from '../host';
import { setKeyCommand } from '../keys';
import { activeDialogue, config, pickBatchMode, promptRoots, requireTrust, workspaceDir } from './common';

/** The single judge the `reflectEval.judge.*` settings describe. */
function settingsJudge(): JudgeSpec {
  if ((config().get<string>('judge.backend') ?? 'local') === 'openai') {
    return { backend: 'openai-chat', baseURL: config().get<string>('judge.baseURL') ?? 'https://api.openai.com/v1', model: config().get<string>('judge.model')?.trim() ?? '' };
  }
  const local = config().get<string>('judge.localModel')?.trim();
  return { backend: 'local', ...(local ? { model: local } : {}) };
}

/** A judge plan from what the settings and picks say, checked as a run config file would be. */
async function judgePlan(judges: JudgeSpec[], bodies: string[], requests: string[]): Promise<JudgePlan> {
  const { validateJudgePlan } = await import('../../core/jobs/judge');
  const prices = config().get<Record<string, Price>>('prices') ?? {};
  const repeats = config().get<number>('judge.repeats') ?? 1;
  return validateJudgePlan(
    { judges, bodies, requests, concurrency: 4, ...(repeats !== 1 ? { repeats } : {}), ...(Object.keys(prices).length ? { prices } : {}) },
    'settings (reflectEval.judges / reflectEval.judge.*)',
  );
}

export async function judgeCommand(context: vscode.ExtensionContext, editors: DialogueEditorProvider): Promise<void> {
  if (!requireTrust('run judges')) return;
  const document = activeDialogue(editors);
  if (!document) return;
  const plan = await judgePlan([settingsJudge()], [config().get<string>('judge.body') ?? 'instructions'], [config().get<string>('judge.request') ?? 'rating']);
  await runPlanInEditor(context, document, { ...plan, job: 'judge' }, 'judging');
}

/**
 * The start both Run Judge Matrix… and Search Judge Prompts… share: workspace trust, the active dialogue document,
 * the prompt library (workspace `prompts/` over the bundled one) and a pick of judges from `reflectEval.judges`
 * (or the single judge of the `reflectEval.judge.*` settings), all preselected.
 *
 * @returns undefined when the user or the workspace stops it (untrusted, no dialogue editor, nothing picked)
 */
async function startJudgePicks(context: vscode.ExtensionContext, editors: DialogueEditorProvider, title: string) {
  if (!requireTrust('run judges')) return undefined;
  const document = activeDialogue(editors);
  if (!document) return undefined;
  const { loadPromptLibrary } = await import('../../core/templates/judgePrompt');
  const { judgeLabel } = await import('../../core/judges/createJudge');
  const lib = loadPromptLibrary(...promptRoots(context));
  const configured = config().get<JudgeSpec[]>('judges') ?? [];
  const judges = configured.length ? configured : [settingsJudge()];
  const picked = await vscode.window.showQuickPick(judges.map((j) => ({ label: judgeLabel(j), picked: true, spec: j })), { ignoreFocusOut: true, title, canPickMany: true });
  if (!picked?.length) return undefined;
  return { document, lib, judges: picked.map((p) => p.spec) };
}

/** Picks judges × task bodies × requests, shows the number of calls and the estimated cost, then runs them. */
export async function judgeMatrixCommand(context: vscode.ExtensionContext, editors: DialogueEditorProvider): Promise<void> {
  const start = await startJudgePicks(context, editors, 'Judges (setting reflectEval.judges)');
  if (!start) return;
  const { document, lib } = start;
  const bodies = await vscode.window.showQuickPick(Object.keys(lib.bodies).map((b) => ({ label: b, picked: true })), { ignoreFocusOut: true, title: 'Task bodies', canPickMany: true });
  if (!bodies?.length) return;
  // ICMI 2023's two requests are preselected; the others (yes/no, error categories — API judges only) are offered.
  const paper = new Set(['rating', 'scoring']);
  const requests = await vscode.window.showQuickPick(
    Object.keys(lib.requests).map((r) => ({ label: r, picked: paper.has(r), description: lib.requests[r].spec.description })),
    { ignoreFocusOut: true, title: 'Assessment requests', canPickMany: true },
  );
  if (!requests?.length) return;
  // A batch plan takes API judges only (validateJudgePlan refuses a local one in it).
  const batch = start.judges.every((j) => j.backend !== 'local') ? await pickBatchMode(start.judges.map((j) => j.backend), 'Judge matrix') : false;
  if (batch === undefined) return;
  const plan = { ...(await judgePlan(start.judges, bodies.map((b) => b.label), requests.map((r) => r.label))), ...(batch ? { batch: true } : {}) };
  const { JOBS } = await import('../../core/jobs/plans');
  const { documentItems } = await import('../../core/format/jsonl');
  const est = await JOBS.judge.estimate(plan, { file: documentFile(document), items: documentItems(parseDialogue(document)) }, { baseDir: workspaceDir(document), promptRoots: promptRoots(context) });
  const lines = est.perJudge.map((j) => `${j.label}: ${j.promptTokens} prompt tokens${j.approximate ? ' (approximate)' : ''}${j.cost === null ? ' (no price in reflectEval.prices)' : `, ≈ ${j.cost.toFixed(4)} at most`}`);
  const message =
    `${est.judgements} judgements: ${est.candidates} candidates × ${plan.judges.length} judge(s) × ${est.variants} variant(s)${(plan.repeats ?? 1) > 1 ? ` × ${plan.repeats} repeats` : ''}. Cached replies are not asked again.${plan.batch ? ' API judges go through the OpenAI Batch API (prices halved below; results within 24 h).' : ''}` +
    (lines.length ? `\n${lines.join('\n')}${est.cost !== null ? `\nEstimated cost ≤ ${est.cost.toFixed(4)}` : ''}` : '');
  const go = await vscode.window.showInformationMessage(message, { modal: true }, 'Run');
  if (go !== 'Run') return;
  await runPlanInEditor(context, document, { ...plan, job: 'judge' }, `judging (${plan.judges.length} judge(s) × ${est.variants} variant(s))`);
}

/** ReflectEval: Set Judge API Key: the key and the endpoint origin it is for (src/extension/keys.ts). */
export async function setApiKeyCommand(context: vscode.ExtensionContext): Promise<void> {
  await setKeyCommand(context, 'judge');
}

/**
 * ReflectEval: Search Judge Prompts…: judges, requests and the task-body parts to switch on and off become a prompt
 * search plan (src/core/jobs/searchPrompts.ts, docs/prompt-search.md); the split, the number of judgements, the calls
 * not cached and the cost bound are shown before it runs. The leaderboard goes to `<file>.prompt-search.json` and the
 * ReflectEval output, and opens in the prompt search panel (src/extension/searchPanel.ts); the document is not changed.
 */
export async function searchPromptsCommand(context: vscode.ExtensionContext, editors: DialogueEditorProvider): Promise<void> {
  const start = await startJudgePicks(context, editors, 'Prompt search: judges (setting reflectEval.judges)');
  if (!start) return;
  const { document, lib } = start;
  // A study with a rubric of its own: which dimension's human score the variants are chosen on (the MI preset keeps
  // its coherence target and asks nothing more). A dimension other than coherence has its request from the rubric.
  const { loadRubric } = await import('../../core/rubric/rubricFile');
  const { isBundledTarget } = await import('../../core/judges/dimensionRequest');
  const { MI_PRESET } = await import('../../core/rubric/presets');
  const { rubric } = loadRubric(documentFile(document));
  let dimension: string | undefined;
  if (rubric.name !== MI_PRESET) {
    const scales = rubric.dimensions.filter((d) => d.type === 'binary' || d.type === 'ordinal' || d.type === 'numeric');
    const pick = await vscode.window.showQuickPick(
      scales.map((d) => ({ label: d.name, description: `${d.type}${d.name === rubric.primary ? ' · primary' : ''}`, detail: d.question })),
      { ignoreFocusOut: true, title: `Prompt search: the dimension of "${rubric.name}" whose human score the variants are chosen on` },
    );
    if (!pick) return;
    dimension = pick.label;
  }
  let requests: { label: string }[] | undefined;
  if (dimension === undefined || isBundledTarget(rubric, dimension)) {
    const numeric = Object.keys(lib.requests).filter((r) => lib.requests[r].spec.kind !== 'errorCategories');
    requests = await vscode.window.showQuickPick(numeric.map((r) => ({ label: r, picked: ['rating', 'scoring', 'binary'].includes(r), description: lib.requests[r].spec.description })), { ignoreFocusOut: true, title: 'Prompt search: assessment requests', canPickMany: true });
    if (!requests?.length) return;
  }
  const optional = Object.keys(lib.parts).filter((p) => !/^D-/.test(p) && !p.startsWith('examples-'));
  const parts = await vscode.window.showQuickPick(optional.map((p) => ({ label: p, picked: /^[ABC]-/.test(p) })), { ignoreFocusOut: true, title: 'Prompt search: parts to switch on and off (the dialogue part D always comes last)', canPickMany: true });
  if (!parts) return;
  const fewShot = await vscode.window.showQuickPick([{ label: '0', counts: [0] }, { label: '0, 2', counts: [0, 2] }, { label: '0, 2, 4', counts: [0, 2, 4] }], { ignoreFocusOut: true, title: 'Prompt search: few-shot examples (drawn from development items only)' });
  if (!fewShot) return;
  const { validateSearchPromptsPlan, estimateLines } = await import('../../core/jobs/searchPrompts');
  const { JOBS } = await import('../../core/jobs/plans');
  const prices = config().get<Record<string, Price>>('prices') ?? {};
  const plan = validateSearchPromptsPlan(
    { judges: start.judges, ...(requests ? { requests: requests.map((r) => r.label) } : {}), ...(dimension !== undefined ? { dimension } : {}), parts: { optional: parts.map((p) => p.label) }, fewShot: { counts: fewShot.counts }, concurrency: 4, ...(Object.keys(prices).length ? { prices } : {}) },
    'settings and picks',
  );
  const { documentItems } = await import('../../core/format/jsonl');
  const est = await JOBS['search-prompts'].estimate(plan, { file: documentFile(document), items: documentItems(parseDialogue(document)) }, { baseDir: workspaceDir(document), promptRoots: promptRoots(context) });
  const go = await vscode.window.showInformationMessage(estimateLines(est, plan).join('\n'), { modal: true }, 'Run');
  if (go !== 'Run') return;
  const report = await runPlanInEditor(context, document, { ...plan, job: 'search-prompts' }, `prompt search (${est.variants} variants × ${plan.judges.length} judge(s))`);
  const reportFile = report.files?.find((f) => f.endsWith('.prompt-search.json'));
  if (reportFile) {
    const { SearchPanel } = await import('../searchPanel');
    SearchPanel.show(context, editors, { reportFile, dialogueFile: documentFile(document) });
  }
}
