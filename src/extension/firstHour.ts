/**
 * The Get Started walkthrough's commands (package.json `contributes.walkthroughs`, id `reflectEval.firstHour`), the
 * side bar's actions on a study, and the Start view. The walkthrough runs on the public-domain AnnoMI sample bundled
 * with the extension (LICENSE-data.md says why the labelled EvalReflections release is not bundled): create a study
 * in a folder the user picks, generate candidates with the bundled model, label ten, score them, run the local
 * judge, open the correlation table and the agreement panel, preview and edit a judge prompt.
 *
 * Each step completes on what the user did: the steps that change files complete when the Studies view sees the
 * change (context keys `reflectEval.firstHour.{study,generated,labelled,scored,judged}`), the panels when the user
 * opened them from a step or the palette, the prompt step when an edited template is saved. The jobs themselves are
 * the existing commands (loaded on first use, lazyExtension.ts), run on the study after opening it in the editor.
 */
import { copyFile, mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { basename, dirname, join, relative } from 'node:path';
import * as vscode from 'vscode';
import type { FirstHourProgress } from '../core/workspace/studies';
import { STUDIES_VIEW, type StudiesView } from './studiesView';

/** The walkthrough's id as VS Code names it: `<publisher>.<name>#<walkthrough id>`. */
export const WALKTHROUGH = 'reflect-eval.reflect-eval#reflectEval.firstHour';
/** The public release of the labelled data the walkthrough cannot carry (CC BY-NC, research only). */
export const LABELLED_RELEASE = 'https://github.com/uccollab/expert_laypeople_reflection_annotation';
const DIALOGUE_EDITOR = 'reflectEval.dialogueEditor';
const STUDY_KEY = 'reflectEval.firstHour.study';
/** Contexts of the demo study: one per AnnoMI high-quality dialogue of the sample (data/annomi/README.md). */
const DEMO_CONTEXTS = 15;

/** Commands this module registers (they get no stand-in in lazyExtension.ts). */
export const FIRST_HOUR_COMMANDS = [
  'reflectEval.firstHour.open',
  'reflectEval.firstHour.createStudy',
  'reflectEval.firstHour.generate',
  'reflectEval.firstHour.label',
  'reflectEval.firstHour.score',
  'reflectEval.firstHour.judge',
  'reflectEval.firstHour.correlation',
  'reflectEval.firstHour.agreement',
  'reflectEval.firstHour.editPrompt',
  'reflectEval.firstHour.labelledRelease',
  'reflectEval.studies.refresh',
  'reflectEval.studies.open',
  'reflectEval.studies.generate',
  'reflectEval.studies.score',
  'reflectEval.studies.judge',
  'reflectEval.studies.correlation',
  'reflectEval.studies.agreement',
  'reflectEval.studies.planLabels',
  'reflectEval.studies.exportAnnotations',
  'reflectEval.studies.reveal',
] as const;

/** A study row of the Studies view, as menus pass it. */
type StudyArg = { kind: 'study'; folder: vscode.WorkspaceFolder; study: { path: string } } | vscode.Uri | undefined;

function uriOfArg(arg: StudyArg): vscode.Uri | undefined {
  if (arg instanceof vscode.Uri) return arg;
  if (arg && typeof arg === 'object' && arg.kind === 'study') return vscode.Uri.file(join(arg.folder.uri.fsPath, ...arg.study.path.split('/')));
  return undefined;
}

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}

/** Sets a context key the walkthrough completes on. */
function setKey(name: string, value: boolean): Thenable<unknown> {
  return vscode.commands.executeCommand('setContext', `reflectEval.firstHour.${name}`, value);
}

export class FirstHour {
  constructor(
    private readonly context: vscode.ExtensionContext,
    private readonly studies: StudiesView,
  ) {}

  register(): vscode.Disposable[] {
    const cmd = (id: (typeof FIRST_HOUR_COMMANDS)[number], fn: (...args: never[]) => Promise<unknown>) =>
      vscode.commands.registerCommand(id, async (...args: never[]) => {
        try {
          return await fn(...args);
        } catch (err) {
          void vscode.window.showErrorMessage(`ReflectEval: ${(err as Error).message}`);
          return undefined;
        }
      });
    return [
      this.studies.onDidRefresh((p) => void this.setProgress(p)),
      // The prompt step completes when a workspace template the user edited is saved.
      vscode.workspace.onDidSaveTextDocument((d) => void this.promptSaved(d)),
      cmd('reflectEval.firstHour.open', async () => vscode.commands.executeCommand('workbench.action.openWalkthrough', WALKTHROUGH, false)),
      cmd('reflectEval.firstHour.createStudy', () => this.createStudy()),
      cmd('reflectEval.firstHour.generate', async () => this.onStudy(undefined, 'reflectEval.generate', { save: true })),
      cmd('reflectEval.firstHour.label', () => this.label()),
      cmd('reflectEval.firstHour.score', async () => this.onStudy(undefined, 'reflectEval.score', { save: true })),
      cmd('reflectEval.firstHour.judge', async () => this.onStudy(undefined, 'reflectEval.judge', { save: true })),
      cmd('reflectEval.firstHour.correlation', async () => (await this.onStudy(undefined, 'reflectEval.showCorrelation')) && setKey('correlation', true)),
      cmd('reflectEval.firstHour.agreement', async () => (await this.onStudy(undefined, 'reflectEval.showAgreement')) && setKey('agreement', true)),
      cmd('reflectEval.firstHour.editPrompt', () => this.editPrompt()),
      cmd('reflectEval.firstHour.labelledRelease', async () => vscode.env.openExternal(vscode.Uri.parse(LABELLED_RELEASE))),
      cmd('reflectEval.studies.refresh', () => this.studies.refresh()),
      cmd('reflectEval.studies.open', async (arg: StudyArg) => this.onStudy(arg, undefined)),
      cmd('reflectEval.studies.generate', async (arg: StudyArg) => this.onStudy(arg, 'reflectEval.generate')),
      cmd('reflectEval.studies.score', async (arg: StudyArg) => this.onStudy(arg, 'reflectEval.score')),
      cmd('reflectEval.studies.judge', async (arg: StudyArg) => this.onStudy(arg, 'reflectEval.judge')),
      cmd('reflectEval.studies.correlation', async (arg: StudyArg) => this.onStudy(arg, 'reflectEval.showCorrelation')),
      cmd('reflectEval.studies.agreement', async (arg: StudyArg) => this.onStudy(arg, 'reflectEval.showAgreement')),
      cmd('reflectEval.studies.planLabels', async (arg: StudyArg) => this.onStudy(arg, 'reflectEval.planLabels')),
      cmd('reflectEval.studies.exportAnnotations', async (arg: StudyArg) => this.onStudy(arg, 'reflectEval.exportAnnotationTable')),
      cmd('reflectEval.studies.reveal', async (arg: StudyArg) => {
        const uri = uriOfArg(arg);
        if (uri) await vscode.commands.executeCommand('revealInExplorer', uri);
      }),
    ];
  }

  private async setProgress(p: FirstHourProgress): Promise<void> {
    await Promise.all((Object.keys(p) as (keyof FirstHourProgress)[]).map((k) => (p[k] ? setKey(k, true) : undefined)));
  }

  /**
   * Creates the demo study: 15 AnnoMI contexts (one per high-quality dialogue of the bundled sample, public domain)
   * with the therapist's reflection as reference, in a folder the user picks, through a pipeline file written beside
   * it (`reflect-eval run annomi-demo.pipeline.json` makes the same file), then opens it.
   */
  private async createStudy(): Promise<void> {
    const workspace = vscode.workspace.workspaceFolders?.[0]?.uri;
    const picked = await vscode.window.showOpenDialog({
      title: 'ReflectEval: folder for the demo study (AnnoMI sample, public domain)',
      openLabel: 'Create the demo study here',
      canSelectFiles: false,
      canSelectFolders: true,
      canSelectMany: false,
      ...(workspace ? { defaultUri: workspace } : {}),
    });
    const folder = picked?.[0];
    if (!folder) return;
    let name = 'annomi-demo';
    for (let n = 2; await exists(join(folder.fsPath, `${name}.dialogues.jsonl`)); n++) name = `annomi-demo-${n}`;
    const csv = vscode.Uri.joinPath(this.context.extensionUri, 'data', 'annomi', 'AnnoMI-sample.csv').fsPath;
    const pipeline = join(folder.fsPath, `${name}.pipeline.json`);
    await writeFile(
      pipeline,
      JSON.stringify(
        {
          file: `${name}.dialogues.jsonl`,
          steps: [{ job: 'import', format: 'annomi', file: csv, quality: 'high', sample: DEMO_CONTEXTS, seed: '0' }],
        },
        null,
        2,
      ) + '\n',
    );
    const study = vscode.Uri.file(join(folder.fsPath, `${name}.dialogues.jsonl`));
    // The pipeline runs through the full extension's "Run Plan File…", which opens the new file in the editor.
    await vscode.commands.executeCommand('reflectEval.runPlan', vscode.Uri.file(pipeline));
    if (!(await exists(study.fsPath))) return; // not trusted, cancelled or failed: the command said why
    await this.context.globalState.update(STUDY_KEY, study.toString());
    await setKey('study', true);
    this.studies.schedule(0);
    const inWorkspace = vscode.workspace.getWorkspaceFolder(study);
    if (!inWorkspace) {
      const open = await vscode.window.showInformationMessage(
        `ReflectEval: created ${basename(study.fsPath)} in ${folder.fsPath}. Open that folder to see it in the ReflectEval side bar?`,
        'Open Folder',
        'Not now',
      );
      if (open === 'Open Folder') await vscode.commands.executeCommand('vscode.openFolder', folder, { forceNewWindow: false });
    } else await vscode.commands.executeCommand(`${STUDIES_VIEW}.focus`).then(undefined, () => undefined);
  }

  /**
   * The study a walkthrough step acts on: the dialogue file in the active editor, else the demo study the
   * walkthrough created, else the workspace's only study, else one the user picks.
   */
  private async currentStudy(): Promise<vscode.Uri | undefined> {
    const input = vscode.window.tabGroups.activeTabGroup.activeTab?.input;
    if (input instanceof vscode.TabInputCustom && input.viewType.startsWith(DIALOGUE_EDITOR)) return input.uri;
    const remembered = this.context.globalState.get<string>(STUDY_KEY);
    if (remembered) {
      const uri = vscode.Uri.parse(remembered);
      if (await exists(uri.fsPath)) return uri;
    }
    await this.studies.refresh();
    const all = this.studies.studies();
    if (all.length === 1) return all[0].uri;
    if (all.length === 0) {
      const create = await vscode.window.showInformationMessage('ReflectEval: there is no study in this workspace yet. Create the demo study first (the walkthrough\'s first step).', 'Create the Demo Study');
      if (create) await vscode.commands.executeCommand('reflectEval.firstHour.createStudy');
      return undefined;
    }
    const picked = await vscode.window.showQuickPick(
      all.map((s) => ({ label: s.study.name, description: s.study.path, uri: s.uri })),
      { title: 'ReflectEval: which study?' },
    );
    return picked?.uri;
  }

  /**
   * Opens the study in the dialogue editor (the study of a Studies row, else {@link currentStudy}) and runs
   * `command` on it, as the editor's own buttons do.
   *
   * @param options.save - save the study when the command is done (the walkthrough's job steps: their results are
   *   in the open document, and the steps complete on what the file on disk holds, as the CLI's jobs write it)
   * @returns false when there was no study to act on
   */
  private async onStudy(arg: StudyArg, command: string | undefined, options: { save?: boolean } = {}): Promise<boolean> {
    const uri = uriOfArg(arg) ?? (await this.currentStudy());
    if (!uri) return false;
    await vscode.commands.executeCommand('vscode.openWith', uri, DIALOGUE_EDITOR, { preview: false, viewColumn: vscode.ViewColumn.One });
    await this.activeIs(uri);
    if (command) await vscode.commands.executeCommand(command);
    if (options.save && (await this.activeIs(uri))) await vscode.commands.executeCommand('workbench.action.files.save');
    return true;
  }

  /**
   * Waits (up to 5 s) until the dialogue editor on `uri` is the active tab (the jobs act on the last active one).
   *
   * @returns false when it did not become the active tab
   */
  private async activeIs(uri: vscode.Uri): Promise<boolean> {
    for (let i = 0; i < 50; i++) {
      const input = vscode.window.tabGroups.activeTabGroup.activeTab?.input;
      if (input instanceof vscode.TabInputCustom && input.uri.toString() === uri.toString()) {
        await new Promise((r) => setTimeout(r, 50)); // its view-state event reaches the editor right after
        return true;
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    return false;
  }

  /** Opens the study and the labelling keys, and asks for the annotator id first when none is set. */
  private async label(): Promise<void> {
    if (!vscode.workspace.getConfiguration('reflectEval').get<string>('annotator')?.trim()) await vscode.commands.executeCommand('reflectEval.setAnnotator');
    await this.onStudy(undefined, undefined);
  }

  /**
   * Copies the bundled task body `instructions` into the workspace's `prompts/bodies/` (where judges read templates
   * over the bundled ones; an existing copy is kept), opens it beside the study, and opens the live prompt preview.
   */
  private async editPrompt(): Promise<void> {
    const study = await this.currentStudy();
    if (!study) return;
    const folder = vscode.workspace.getWorkspaceFolder(study)?.uri.fsPath ?? dirname(study.fsPath);
    const target = join(folder, 'prompts', 'bodies', 'instructions.mustache');
    if (!(await exists(target))) {
      await mkdir(dirname(target), { recursive: true });
      await copyFile(vscode.Uri.joinPath(this.context.extensionUri, 'prompts', 'bodies', 'instructions.mustache').fsPath, target);
    }
    await vscode.commands.executeCommand('vscode.openWith', study, DIALOGUE_EDITOR, { preview: false, viewColumn: vscode.ViewColumn.One });
    await this.activeIs(study);
    const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(target));
    await vscode.window.showTextDocument(doc, { viewColumn: vscode.ViewColumn.Two, preview: false });
    await vscode.commands.executeCommand('reflectEval.showPromptPreview');
    void vscode.window.setStatusBarMessage(`ReflectEval: ${relative(folder, target)} is yours to edit — the preview follows each keystroke; save to use it in the next judge run`, 15_000);
  }

  /** A saved judge template under a workspace folder's `prompts/`, different from the bundled one of its name. */
  private async promptSaved(doc: vscode.TextDocument): Promise<void> {
    const file = doc.uri.fsPath;
    if (!file.endsWith('.mustache') || !/[\\/]prompts[\\/](bodies|requests|parts)[\\/]/.test(file)) return;
    const bundled = vscode.Uri.joinPath(this.context.extensionUri, 'prompts', basename(dirname(file)), basename(file)).fsPath;
    const original = await readFile(bundled, 'utf8').catch(() => undefined);
    if (original !== doc.getText()) await setKey('promptEdited', true);
  }
}

/** The Start view: the walkthrough, the demo study, the import commands, the labelled release. */
export class StartView implements vscode.TreeDataProvider<vscode.TreeItem> {
  getTreeItem(item: vscode.TreeItem): vscode.TreeItem {
    return item;
  }

  getChildren(): vscode.TreeItem[] {
    const row = (label: string, icon: string, command: string, tooltip: string, args: unknown[] = []) => {
      const item = new vscode.TreeItem(label);
      item.iconPath = new vscode.ThemeIcon(icon);
      item.command = { command, title: label, arguments: args };
      item.tooltip = tooltip;
      item.id = `start:${command}`;
      return item;
    };
    return [
      row('Get Started walkthrough', 'rocket', 'reflectEval.firstHour.open', 'Ten minutes on a public-domain AnnoMI sample: generate, label, score, judge, correlate'),
      row('Create the demo study…', 'new-file', 'reflectEval.firstHour.createStudy', '15 AnnoMI contexts (public domain) with the therapist\'s reflection as reference'),
      row('Import AnnoMI CSV…', 'cloud-download', 'reflectEval.importAnnoMI', 'AnnoMI-simple.csv or AnnoMI-full.csv: every therapist reflection becomes an item'),
      row('Import Annotation Table (CSV)…', 'table', 'reflectEval.importAnnotationTable', 'Labels in the ACL 2023 layout, e.g. the EvalReflections release'),
      row('Import Dataset (CSV/JSONL)…', 'database', 'reflectEval.importDataset', 'Any dataset through a column mapping'),
      row('Run Plan File…', 'run-all', 'reflectEval.runPlan', 'A plan or pipeline JSON, as `reflect-eval run` runs it'),
      row('The labelled release (EvalReflections)', 'link-external', 'reflectEval.firstHour.labelledRelease', `${LABELLED_RELEASE} — CC BY-NC, research only; not bundled`),
    ];
  }
}
