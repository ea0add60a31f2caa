/**
 * What a workspace file is to ReflectEval, from its name alone: a study (a dialogue file), a judge or generation
 * manifest, a label plan, a report (Markdown), a possible team packet manifest, or nothing. The names are the ones
 * the jobs write (`jobs/judge.ts` `judgeManifestFile`, `generation/manifest.ts`, `planning/planView.ts`
 * `labelPlanRecordPath`, the report job's `<base>.report.md` in the demo); `test/core/workspace/files.test.ts` checks
 * they agree.
 */

/** The kinds of file the side bar and `reflect-eval studies` list. */
export type WorkspaceFileKind = 'study' | 'judgeManifest' | 'generationManifest' | 'labelPlan' | 'report';

/** Suffixes, longest first where one ends another. */
const KINDS: readonly [RegExp, WorkspaceFileKind][] = [
  [/\.dialogues\.jsonl$/i, 'study'],
  [/\.judge-manifest\.json$/i, 'judgeManifest'],
  [/\.generation-manifest\.json$/i, 'generationManifest'],
  [/\.label-plan\.json$/i, 'labelPlan'],
  [/\.md$/i, 'report'],
];

/**
 * A file's kind and its base (the path without the kind's suffix: `runs/study.dialogues.jsonl` → `runs/study`),
 * or undefined for a file ReflectEval does not list. A `.md` file is only a *candidate* report: it is one when its
 * first line says so ({@link reportSubject}).
 *
 * @param path - a path with `/` separators (relative to the workspace folder)
 */
export function classifyFile(path: string): { kind: WorkspaceFileKind; base: string } | undefined {
  for (const [suffix, kind] of KINDS) {
    const m = suffix.exec(path);
    if (m) return { kind, base: path.slice(0, m.index) };
  }
  return undefined;
}

/** The base of a dialogue file, as every job names the files beside it: strips `.dialogues.jsonl` or `.jsonl`. */
export function studyBase(path: string): string {
  return path.replace(/(\.dialogues)?\.jsonl$/i, '');
}

/** The first line of a report the report job writes: `# ReflectEval report: <dialogue file's name>`. */
const REPORT_TITLE = /^# ReflectEval report: (.+?)\s*$/;

/**
 * The dialogue file a Markdown report is about, from its first line (the report job writes
 * `# ReflectEval report: study.dialogues.jsonl`), or undefined for any other Markdown file.
 *
 * @param head - the file's first bytes as text (a line is enough)
 */
export function reportSubject(head: string): string | undefined {
  const first = head.split(/\r?\n/, 1)[0];
  return REPORT_TITLE.exec(first)?.[1];
}

/** Folders a workspace scan never enters: tools' and ReflectEval's own caches. */
export const SKIPPED_FOLDERS: ReadonlySet<string> = new Set(['node_modules', '.git', '.reflect-eval-cache', '.vscode-test', '.hg', '.svn']);

/** The folder part of a `/`-separated path ('' at the root). */
export function folderOf(path: string): string {
  const i = path.lastIndexOf('/');
  return i < 0 ? '' : path.slice(0, i);
}

/** The name part of a `/`-separated path. */
export function nameOf(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1);
}
