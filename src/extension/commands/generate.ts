/**
 * ReflectEval: Generate Candidates… (command and editor button) and Set Generator API Key.
 *
 * A quick pick chooses the decoding settings — Greedy, the GEM 2022 grid, the custom settings of
 * `reflectEval.generator.settings`, or a run config file — then the generators (`reflectEval.generator.models`,
 * else `reflectEval.generator.model`); the run shows contexts done / total and tokens per second, and
 * cancelling keeps every finished context. The choices become a generation plan that the core job runs
 * (src/core/jobs/generate.ts); results are merged into the document as it is when they arrive, so labels and edits
 * made meanwhile stay.
 */
import { dirname } from 'node:path';
import * as vscode from 'vscode';
import type { GeneratorSpec, GenerationRunConfig, DecodingSpec, PresetName } from '../../core/generation/runConfig';
import type { DialogueEditorProvider } from '../dialogueEditor';
import { runPlanInEditor } from '../host';
import { setKeyCommand } from '../keys';
import { activeDialogue, config, pickBatchMode, requireTrust } from './common';

/** What the settings quick pick returns. */
interface SettingsChoice {
  label: string;
  /** Without generators: those come from the generator pick (or a config file's own). */
  config: Omit<GenerationRunConfig, 'generators'> & { generators?: GeneratorSpec[] };
  configFile?: string;
}

/** The generators the settings describe: `reflectEval.generator.models`, else the single `reflectEval.generator.model`. */
function configuredGenerators(): GeneratorSpec[] {
  const many = config().get<GeneratorSpec[]>('generator.models') ?? [];
  if (many.length) return many;
  const one = config().get<string>('generator.model')?.trim();
  return [{ backend: 'local', ...(one ? { model: one } : {}) }];
}

async function pickSettings(): Promise<SettingsChoice | undefined> {
  const { PRESETS, validateDecodingSpec } = await import('../../core/generation/runConfig');
  const custom = config().get<DecodingSpec[]>('generator.settings') ?? [];
  type Item = vscode.QuickPickItem & { choice: () => Promise<SettingsChoice | undefined> };
  const items: Item[] = [
    ...(Object.entries(PRESETS) as [PresetName, (typeof PRESETS)[PresetName]][]).map(([name, p]) => ({
      label: p.label,
      description: p.description,
      choice: async () => ({ label: p.label, config: { preset: name } }),
    })),
    {
      label: 'Custom settings',
      description: custom.length ? `${custom.length} setting(s) from reflectEval.generator.settings` : 'none yet: opens the setting reflectEval.generator.settings',
      choice: async () => {
        if (!custom.length) {
          await vscode.commands.executeCommand('workbench.action.openSettings', 'reflectEval.generator.settings');
          return undefined;
        }
        custom.forEach((s, i) =>
          validateDecodingSpec(s, `reflectEval.generator.settings[${i}]`, (field, msg) => {
            throw new Error(`${field}: ${msg}`);
          }),
        );
        return { label: 'Custom settings', config: { settings: custom } };
      },
    },
    {
      label: 'Run config file…',
      description: 'generators, preset, custom settings and seed from a JSON file (docs/generation.md)',
      choice: async () => {
        const picked = await vscode.window.showOpenDialog({ title: 'Generation run config', filters: { JSON: ['json'] }, canSelectMany: false, defaultUri: vscode.workspace.workspaceFolders?.[0]?.uri });
        if (!picked?.[0]) return undefined;
        const { validateGenerationConfig } = await import('../../core/generation/runConfig');
        const file = picked[0].fsPath;
        const text = new TextDecoder().decode(await vscode.workspace.fs.readFile(picked[0]));
        let parsed: unknown;
        try {
          parsed = JSON.parse(text);
        } catch (err) {
          throw new Error(`${file}: not valid JSON: ${(err as Error).message}`);
        }
        return { label: file, config: validateGenerationConfig(parsed, file), configFile: file };
      },
    },
  ];
  const picked = await vscode.window.showQuickPick(items, { ignoreFocusOut: true, title: 'Generate: decoding settings', placeHolder: 'Greedy, the GEM 2022 grid, or custom settings' });
  return picked?.choice();
}

async function pickGenerators(): Promise<GeneratorSpec[] | undefined> {
  const { generatorLabel } = await import('../../core/generation/createGenerator');
  const specs = configuredGenerators();
  if (specs.length === 1) return specs;
  const picked = await vscode.window.showQuickPick(
    specs.map((spec) => ({ label: generatorLabel(spec), description: spec.baseURL, picked: true, spec })),
    { ignoreFocusOut: true, title: 'Generate: generators (setting reflectEval.generator.models)', canPickMany: true },
  );
  return picked?.length ? picked.map((p) => p.spec) : undefined;
}

export async function generateCommand(context: vscode.ExtensionContext, editors: DialogueEditorProvider): Promise<void> {
  if (!requireTrust('run models')) return;
  const document = activeDialogue(editors);
  if (!document) return;
  const choice = await pickSettings();
  if (!choice) return;
  const generators = choice.config.generators ?? (await pickGenerators());
  if (!generators?.length) return;
  const batch = await pickBatchMode(generators.map((g) => g.backend), 'Generate');
  if (batch === undefined) return;
  const { validateGeneratePlan } = await import('../../core/jobs/generate');
  const plan = validateGeneratePlan(
    {
      maxNewTokens: config().get<number>('generator.maxNewTokens') ?? 128,
      seed: config().get<number>('generator.seed') ?? 0,
      ...choice.config,
      generators,
      ...(batch ? { batch: true } : {}),
    },
    choice.configFile ?? 'settings (reflectEval.generator.*)',
  );
  await runPlanInEditor(context, document, { ...plan, job: 'generate' }, `generating (${choice.label})`, choice.configFile ? { baseDir: dirname(choice.configFile), endpointSource: 'plan' } : {});
}

/** ReflectEval: Set Generator API Key: the key and the endpoint origin it is for (src/extension/keys.ts). */
export async function setGeneratorApiKeyCommand(context: vscode.ExtensionContext): Promise<void> {
  await setKeyCommand(context, 'generator');
}
