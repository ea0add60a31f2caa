/**
 * The ReflectEval side bar's Studies view: every study of the workspace (`*.dialogues.jsonl`) with its labelling
 * progress, and under it its generation and judge runs, label plans, reports and team packets, as
 * `src/core/workspace` indexes them (the same index `reflect-eval studies` prints). It refreshes when such a file
 * changes, is created or deleted, and when the annotator id changes; each refresh reads again only the files that
 * changed. It also sets the context keys the Get Started walkthrough completes on (`reflectEval.firstHour.*`).
 */
import { join } from 'node:path';
import * as vscode from 'vscode';
import { describeGenerationRun, describeJudgeRun, describeOriginGroup, describeProgress, shortTime } from '../core/workspace/describe';
import { nameOf } from '../core/workspace/files';
import { WorkspaceScanner } from '../core/workspace/scan';
import type { AnnotationCheck } from '../core/format/sidecarReader';
import { firstHourProgress, type FirstHourProgress, type StudyIndex, type StudySummary } from '../core/workspace/studies';

/** The view's id (package.json `contributes.views.reflectEval`). */
export const STUDIES_VIEW = 'reflectEval.studies';

/** A row of the tree. */
type Node =
  | { kind: 'folder'; folder: vscode.WorkspaceFolder; index: StudyIndex }
  | { kind: 'study'; folder: vscode.WorkspaceFolder; study: StudySummary }
  | { kind: 'group'; folder: vscode.WorkspaceFolder; label: string; icon: string; children: Node[]; id: string }
  | { kind: 'leaf'; label: string; description?: string; tooltip?: string; icon: string; open?: { uri: vscode.Uri; how: 'text' | 'markdown' }; id: string; contextValue?: string };

/** The labels a study must have from the viewing annotator for the walkthrough's labelling step. */
export const LABEL_TARGET = 10;

export class StudiesView implements vscode.TreeDataProvider<Node> {
  private readonly changed = new vscode.EventEmitter<Node | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  private readonly scanners = new Map<string, WorkspaceScanner>();
  private indexes = new Map<string, { folder: vscode.WorkspaceFolder; index: StudyIndex }>();
  private timer: ReturnType<typeof setTimeout> | undefined;
  private running: Promise<void> | undefined;
  private again = false;
  private readonly progressEmitter = new vscode.EventEmitter<FirstHourProgress>();
  /** Fires after each refresh with how far the workspace is through the first hour. */
  readonly onDidRefresh = this.progressEmitter.event;
  /** Time the last refresh took (ms), and how many files it read. */
  lastRefresh: { ms: number; read: number } | undefined;

  /**
   * @param annotationCheck - the annotation schema's check of a sidecar line (from the full extension, loaded when a
   *   study with label sidecars is first read: the entry bundle does not carry the schema validator)
   */
  constructor(
    context: vscode.ExtensionContext,
    private readonly annotationCheck?: () => Promise<AnnotationCheck>,
  ) {
    const watcher = vscode.workspace.createFileSystemWatcher('**/*.{jsonl,json,md}');
    context.subscriptions.push(
      this.changed,
      this.progressEmitter,
      watcher,
      watcher.onDidCreate(() => this.schedule()),
      watcher.onDidChange(() => this.schedule()),
      watcher.onDidDelete(() => this.schedule()),
      vscode.workspace.onDidChangeWorkspaceFolders(() => this.schedule(0)),
      vscode.workspace.onDidChangeConfiguration((e) => e.affectsConfiguration('reflectEval.annotator') && this.schedule(0)),
      vscode.window.createTreeView(STUDIES_VIEW, { treeDataProvider: this, showCollapseAll: true }),
    );
    this.schedule(0);
  }

  /** The annotator whose labels count as "yours". */
  private annotator(): string | null {
    return vscode.workspace.getConfiguration('reflectEval').get<string>('annotator')?.trim() || null;
  }

  /** Refreshes after `delayMs` (several file events in a burst make one refresh). */
  schedule(delayMs = 300): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.refresh(), delayMs);
  }

  /** Scans every workspace folder again (reading only changed files) and redraws the tree. */
  async refresh(): Promise<void> {
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = (async () => {
      const start = Date.now();
      const folders = vscode.workspace.workspaceFolders ?? [];
      const next = new Map<string, { folder: vscode.WorkspaceFolder; index: StudyIndex }>();
      let read = 0;
      for (const folder of folders) {
        if (folder.uri.scheme !== 'file') continue;
        const key = folder.uri.toString();
        let scanner = this.scanners.get(key);
        if (!scanner) this.scanners.set(key, (scanner = new WorkspaceScanner(folder.uri.fsPath, { annotationCheck: this.annotationCheck })));
        next.set(key, { folder, index: await scanner.scan(this.annotator()) });
        read += scanner.stats.read;
      }
      for (const key of this.scanners.keys()) if (!next.has(key)) this.scanners.delete(key);
      this.indexes = next;
      this.lastRefresh = { ms: Date.now() - start, read };
      this.changed.fire(undefined);
      const all: StudyIndex = { studies: [...next.values()].flatMap((x) => x.index.studies), unmatched: { judgeRuns: [], generationRuns: [], reports: [], packets: [] }, problems: [] };
      const progress = firstHourProgress(all, LABEL_TARGET);
      await vscode.commands.executeCommand('setContext', 'reflectEval.hasStudies', progress.study);
      this.progressEmitter.fire(progress);
    })();
    try {
      await this.running;
    } finally {
      this.running = undefined;
      if (this.again) {
        this.again = false;
        void this.refresh();
      }
    }
  }

  /** Every study of every folder, with the file it is. */
  studies(): { uri: vscode.Uri; study: StudySummary }[] {
    return [...this.indexes.values()].flatMap(({ folder, index }) => index.studies.map((study) => ({ uri: uriOf(folder, study.path), study })));
  }

  getTreeItem(node: Node): vscode.TreeItem {
    switch (node.kind) {
      case 'folder': {
        const item = new vscode.TreeItem(node.folder.name, vscode.TreeItemCollapsibleState.Expanded);
        item.iconPath = vscode.ThemeIcon.Folder;
        item.id = `folder:${node.folder.uri.toString()}`;
        return item;
      }
      case 'study': {
        const s = node.study;
        const uri = uriOf(node.folder, s.path);
        const item = new vscode.TreeItem(s.name, hasChildren(s) ? vscode.TreeItemCollapsibleState.Collapsed : vscode.TreeItemCollapsibleState.None);
        item.id = `study:${uri.toString()}`;
        item.description = describeProgress(s);
        item.resourceUri = uri;
        item.iconPath = new vscode.ThemeIcon(s.content ? 'notebook' : 'warning');
        item.contextValue = 'reflectEval.study';
        item.tooltip = new vscode.MarkdownString(studyTooltip(s));
        item.command = { command: 'vscode.openWith', title: 'Open', arguments: [uri, 'reflectEval.dialogueEditor'] };
        item.accessibilityInformation = { label: `${s.name}: ${describeProgress(s)}` };
        return item;
      }
      case 'group': {
        const item = new vscode.TreeItem(node.label, vscode.TreeItemCollapsibleState.Collapsed);
        item.id = node.id;
        item.iconPath = new vscode.ThemeIcon(node.icon);
        return item;
      }
      case 'leaf': {
        const item = new vscode.TreeItem(node.label, vscode.TreeItemCollapsibleState.None);
        item.id = node.id;
        item.description = node.description;
        item.tooltip = node.tooltip;
        item.iconPath = new vscode.ThemeIcon(node.icon);
        if (node.contextValue) item.contextValue = node.contextValue;
        if (node.open) {
          item.resourceUri = node.open.uri;
          item.command = node.open.how === 'markdown' ? { command: 'markdown.showPreview', title: 'Open preview', arguments: [node.open.uri] } : { command: 'vscode.open', title: 'Open', arguments: [node.open.uri] };
        }
        return item;
      }
    }
  }

  getChildren(node?: Node): Node[] {
    if (!node) {
      const roots = [...this.indexes.values()];
      if (roots.length === 1) return this.folderChildren(roots[0].folder, roots[0].index);
      return roots.filter((r) => r.index.studies.length || r.index.problems.length).map((r) => ({ kind: 'folder', folder: r.folder, index: r.index }));
    }
    if (node.kind === 'folder') return this.folderChildren(node.folder, node.index);
    if (node.kind === 'group') return node.children;
    if (node.kind === 'study') return studyChildren(node.folder, node.study);
    return [];
  }

  private folderChildren(folder: vscode.WorkspaceFolder, index: StudyIndex): Node[] {
    const out: Node[] = index.studies.map((study) => ({ kind: 'study', folder, study }));
    const u = index.unmatched;
    const stray: Node[] = [
      ...u.judgeRuns.map((r): Node => leaf(folder, r.manifest, `judge run of ${r.file ?? 'a file not here'}`, describeJudgeRun(r), 'law')),
      ...u.generationRuns.map((r, i): Node => ({ ...leaf(folder, r.manifest, `generation run of ${r.file ?? 'a file not here'}`, describeGenerationRun(r), 'sparkle'), id: `${r.manifest}#${i}` })),
      ...u.reports.map((p): Node => leaf(folder, p, p, 'report of a study not found here, or of several', 'markdown', 'markdown')),
      ...u.packets.map((p): Node => leaf(folder, p.path, p.path, `packet of a study not here (${p.manifest})`, 'person')),
    ];
    if (stray.length) out.push({ kind: 'group', folder, label: `Not matched to a study (${stray.length})`, icon: 'question', children: stray, id: `stray:${folder.uri.toString()}` });
    for (const p of index.problems) out.push(leaf(folder, p.file, p.file, p.message, 'warning'));
    return out;
  }
}

function uriOf(folder: vscode.WorkspaceFolder, path: string): vscode.Uri {
  return vscode.Uri.file(join(folder.uri.fsPath, ...path.split('/')));
}

function leaf(folder: vscode.WorkspaceFolder, path: string, label: string, description: string, icon: string, how: 'text' | 'markdown' = 'text'): Extract<Node, { kind: 'leaf' }> {
  return { kind: 'leaf', label, description, tooltip: `${path}\n${description}`, icon, open: { uri: uriOf(folder, path), how }, id: `leaf:${folder.uri.toString()}:${path}` };
}

function hasChildren(s: StudySummary): boolean {
  return !!(s.content || s.judgeRuns.length || s.generationRuns.length || s.labelPlans.length || s.reports.length || s.packets.length);
}

/** A study's rows: its labels per annotator, scores, runs, plans, reports and packets. */
function studyChildren(folder: vscode.WorkspaceFolder, s: StudySummary): Node[] {
  const key = `${folder.uri.toString()}:${s.path}`;
  const out: Node[] = [];
  const c = s.content;
  if (c) {
    const annotators = c.progress.annotators;
    out.push({
      kind: 'group',
      folder,
      label: `Labels: ${c.labelledByAnyone}/${c.candidates} candidates`,
      icon: 'tag',
      id: `labels:${key}`,
      children: annotators.length
        ? annotators.map((a): Node => {
            const sidecar = c.sidecars?.find((x) => x.annotator === a.annotator);
            return {
              kind: 'leaf',
              label: a.annotator,
              description: `${a.labelled}/${c.candidates}${sidecar ? ` · in ${s.name}.labels/${sidecar.name}` : ''}`,
              icon: 'person',
              id: `annotator:${key}:${a.annotator}`,
              ...(sidecar?.problemLines.length ? { tooltip: `${sidecar.problemLines.length} line(s) of ${sidecar.name} left out (first: line ${sidecar.problemLines[0]}); reflect-eval labels check says why` } : {}),
            };
          })
        : [{ kind: 'leaf', label: 'no labels yet', icon: 'info', id: `annotator:${key}:` }],
    });
    const metrics = c.evaluators.filter((e) => e.kind === 'metric');
    const judges = c.evaluators.filter((e) => e.kind === 'judge');
    const others = c.evaluators.filter((e) => e.kind !== 'metric' && e.kind !== 'judge');
    if (c.evaluators.length) {
      out.push({
        kind: 'group',
        folder,
        label: `Scores: ${metrics.length} metric outputs, ${judges.length} judge evaluators${others.length ? `, ${others.length} other` : ''}`,
        icon: 'graph',
        id: `scores:${key}`,
        children: c.evaluators.map((e): Node => ({ kind: 'leaf', label: e.id, description: `${e.candidates} candidates`, icon: e.kind === 'judge' ? 'law' : 'symbol-numeric', id: `evaluator:${key}:${e.id}` })),
      });
    }
    if (c.problemLines.length) out.push({ kind: 'leaf', label: `${c.problemLines.length} lines are not dialogue items`, description: `first: line ${c.problemLines[0]}`, icon: 'warning', id: `problems:${key}` });
  }
  const gen: Node[] = [
    ...s.generationRuns.map((r, i): Node => ({ ...leaf(folder, r.manifest, r.settings.join(', ') || 'generation', describeGenerationRun(r).split(' · ').slice(1).join(' · '), 'sparkle'), id: `gen:${key}:${i}` })),
    ...s.generatedWithoutManifest.map((g, i): Node => ({ kind: 'leaf', label: g.strategy || 'generated', description: describeOriginGroup(g).split(' · ').slice(1).join(' · '), icon: 'sparkle', id: `origin:${key}:${i}`, tooltip: `${describeOriginGroup(g)}${g.lastCreatedAt ? `\nlatest ${shortTime(g.lastCreatedAt)}` : ''}` })),
  ];
  if (gen.length) out.push({ kind: 'group', folder, label: `Generation runs (${gen.length})`, icon: 'sparkle', children: gen, id: `gens:${key}` });
  if (s.judgeRuns.length) {
    out.push({
      kind: 'group',
      folder,
      label: `Judge runs (${s.judgeRuns.length})`,
      icon: 'law',
      id: `judges:${key}`,
      children: s.judgeRuns.map((r): Node => leaf(folder, r.manifest, r.judges.join(', ') || 'judge run', describeJudgeRun(r).split(' · ').slice(1).join(' · '), 'law')),
    });
  }
  for (const p of s.labelPlans) out.push(leaf(folder, p, 'Label plan', nameOf(p), 'checklist'));
  for (const p of s.reports) out.push(leaf(folder, p, nameOf(p), 'report', 'markdown', 'markdown'));
  if (s.packets.length) {
    out.push({
      kind: 'group',
      folder,
      label: `Team packets (${s.packets.length})`,
      icon: 'organization',
      id: `packets:${key}`,
      children: s.packets.map((p): Node => ({ ...leaf(folder, p.path, nameOf(p.path), p.annotator ?? '', 'person'), contextValue: 'reflectEval.packet' })),
    });
  }
  return out;
}

function studyTooltip(s: StudySummary): string {
  const lines = [`**${s.path}**`, '', describeProgress(s)];
  if (s.content) lines.push(`${s.content.items} items, ${s.content.candidates} candidates`);
  if (s.generationRuns.length) lines.push(`last generation: ${describeGenerationRun(s.generationRuns[0])}`);
  if (s.judgeRuns.length) lines.push(`last judge run: ${describeJudgeRun(s.judgeRuns[0])}`);
  return lines.join('  \n');
}
