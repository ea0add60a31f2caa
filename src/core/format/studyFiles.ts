/**
 * A study on disk: its dialogue file and, when it keeps labels in sidecar files, its labels folder
 * `<study>.labels/` (docs/format.md, "Labels in sidecar files"; the pure part is `labelSidecars.ts`). Every CLI job
 * and analysis reads a study with {@link readStudy} and writes it back with {@link writeStudyBack}, so all of them
 * see the same items — each candidate's inline labels and its sidecar ones — and every write keeps the guarantees
 * of `files.ts`: only changed lines are rewritten, every other byte of every file stays, a write that changes
 * nothing writes nothing.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, rmdirSync, statSync, unlinkSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import type { DialogueItem } from '../dialogue/types';
import { bytesEqual, encodeUtf8 } from './bytes';
import { readDialogueFile, sameFile, writeItemsBack, writeTextAtomic } from './files';
import type { DialogueDocument } from './jsonl';
import { labelsFolderOf, labelWrites, overlayLabels, readLabelSidecars, type LabelOverlay, type LabelRouting, type LabelSidecars } from './labelSidecars';
import { problemLineMessages } from './lineReport';

/** A study as read: its file, its labels folder when it has one, and the items every job sees. */
export interface Study {
  /** The study file's absolute path. */
  path: string;
  /** The study file as read (its items carry inline labels only). */
  doc: DialogueDocument;
  /** The labels folder's absolute path, when the study keeps labels in sidecars (the folder exists). */
  labelsFolder?: string;
  overlay: LabelOverlay;
  /** The study's items with every sidecar's labels laid over: what every job and analysis reads. */
  items: DialogueItem[];
}

/** The README a new labels folder gets (it also keeps an empty folder in git, where the folder is the opt-in). */
export function labelsReadme(studyFile: string): string {
  return [
    `# Labels of ${studyFile}`,
    '',
    `Each annotator's labels on ${studyFile}, one file per annotator (\`<annotator>.jsonl\`, the id with characters other`,
    'than A-Z a-z 0-9 . _ - written %XX), one line per labelled candidate: {"item": …, "candidate": …, "annotation": {…}}.',
    'ReflectEval reads them as if they were in the study; `reflect-eval labels join` moves them back inline.',
    'See docs/format.md, "Labels in sidecar files".',
    '',
  ].join('\n');
}

function readFolder(folder: string): LabelSidecars {
  if (!statSync(folder).isDirectory()) throw new Error(`${folder}: a study's labels folder must be a folder (docs/format.md, "Labels in sidecar files")`);
  const files = readdirSync(folder)
    .filter((name) => name.endsWith('.jsonl') && statSync(join(folder, name)).isFile())
    .map((name) => ({ name, bytes: readFileSync(join(folder, name)) }));
  return readLabelSidecars(basename(folder), files);
}

/**
 * A study's labels folder (`<study>.labels/`) as read, or undefined when the study has none: what the editor lays
 * over the study it opens, read as every job reads it.
 *
 * @throws Error when `<study>.labels` exists and is not a folder
 */
export function readLabelsFolder(studyPath: string): LabelSidecars | undefined {
  const folder = labelsFolderOf(studyPath);
  return existsSync(folder) ? readFolder(folder) : undefined;
}

/**
 * Reads a study: its dialogue file as bytes (`readDialogueFile`) and, when `<study>.labels/` exists, every sidecar in
 * it, laid over the items. Problems — the study's problem lines, sidecar lines that are not labels or whose item or
 * candidate is not in the study, conflicts — are on `doc.problems` and `overlay.problems`, never thrown.
 *
 * @throws Error when `<study>.labels` exists and is not a folder
 */
export function readStudy(path: string): Study {
  const doc = readDialogueFile(path);
  const folder = labelsFolderOf(doc.path!);
  const sidecars = existsSync(folder) ? readFolder(folder) : undefined;
  const overlay = overlayLabels(doc, sidecars);
  return { path: doc.path!, doc, ...(sidecars ? { labelsFolder: folder } : {}), overlay, items: overlay.items };
}

/**
 * One message per problem of the study — its problem lines, then its labels' (`file:line: field: why`) — what the
 * CLI prints when it opens a study.
 */
export function studyProblemMessages(study: Study): string[] {
  return [...problemLineMessages(study.doc), ...study.overlay.problems.map((p) => `${p.file}:${p.line}: ${p.field ? `${p.field}: ` : ''}${p.message}`)];
}

/** What {@link writeStudyBack} did. */
export interface StudyWrite {
  /** Item lines of the study rewritten. */
  itemsChanged: number;
  /** Sidecar lines added, rewritten or removed. */
  labelLinesChanged: number;
  /** Sidecar files written (absolute paths; the study file is not listed). */
  sidecarsWritten: string[];
  /** Sidecar files removed (their labels went back inline). */
  sidecarsRemoved: string[];
}

/**
 * Writes a study's items back (or to `outPath`): each label where it is kept (`labelWrites`: an annotator's sidecar,
 * or inline), the study's changed lines with `writeItemsBack`. Sidecars are written first, then the study, then
 * emptied sidecars removed, so a write cut short leaves a label in two places (reported as a conflict when read),
 * never in none. Nothing is written when a sidecar changed on disk since it was read.
 *
 * To another path, the output is a study of its own: its labels folder (`<out>.labels/`) gets every sidecar (those
 * that did not change as they are).
 *
 * @param routing - moves labels between the study and sidecars (`labels split` / `labels join`); when it moves any
 *   into sidecars of a study without a labels folder, the folder is made (with a README)
 * @throws LabelWriteError (nothing written) when a label cannot be written where it belongs
 * @throws Error (nothing written) when a sidecar changed on disk since it was read, or the output's labels folder
 *   holds a sidecar this study does not have
 */
export function writeStudyBack(study: Study, items: readonly DialogueItem[], outPath: string = study.path, routing: LabelRouting = {}): StudyWrite {
  const out = resolve(outPath);
  const inPlace = sameFile(study.path, out);
  const { studyItems, sidecars } = labelWrites(study.overlay, items, routing);
  const joinsAll = routing.inline === 'all';
  const folder = labelsFolderOf(out);
  const result: StudyWrite = { itemsChanged: 0, labelLinesChanged: sidecars.reduce((n, s) => n + s.linesChanged, 0), sidecarsWritten: [], sidecarsRemoved: [] };

  // Check everything before writing anything: the sidecars this write replaces, removes or copies are as read.
  if (study.labelsFolder) {
    const touched = new Set(sidecars.map((s) => s.name));
    for (const sc of study.overlay.sidecars?.files ?? []) {
      if (inPlace && !touched.has(sc.name)) continue;
      const path = join(study.labelsFolder, sc.name);
      if (!existsSync(path) || !bytesEqual(readFileSync(path), sc.bytes)) throw new Error(`${path} changed on disk since ${basename(study.path)} was read: nothing written (run the command again)`);
    }
  }
  /** The sidecars the output has after the write: name → bytes. */
  const finalFiles = new Map<string, Uint8Array>();
  if (!inPlace) {
    for (const sc of study.overlay.sidecars?.files ?? []) finalFiles.set(sc.name, sc.bytes);
    for (const s of sidecars) {
      if (s.bytes === null) finalFiles.delete(s.name);
      else finalFiles.set(s.name, s.bytes);
    }
    if (existsSync(folder)) {
      const foreign = readFolder(folder).files.filter((f) => !finalFiles.has(f.name));
      if (foreign.length) throw new Error(`${folder} holds ${foreign.map((f) => f.name).join(', ')}, which ${basename(study.path)} does not have: they would be read with ${basename(out)}; nothing written (remove them, or write elsewhere)`);
    }
  }

  const outUsesSidecars = !inPlace && (finalFiles.size > 0 || ((study.overlay.usesSidecars || routing.toSidecars !== undefined) && !joinsAll));
  const ensureFolder = () => {
    if (existsSync(folder)) return;
    mkdirSync(folder, { recursive: true });
    writeTextAtomic(join(folder, 'README.md'), labelsReadme(basename(out)));
  };
  if (inPlace) {
    if (routing.toSidecars !== undefined) ensureFolder();
    for (const s of sidecars) {
      if (s.bytes === null) continue;
      ensureFolder();
      writeTextAtomic(join(folder, s.name), s.bytes);
      result.sidecarsWritten.push(join(folder, s.name));
    }
  } else if (outUsesSidecars) {
    ensureFolder();
    for (const [name, bytes] of finalFiles) {
      writeTextAtomic(join(folder, name), bytes);
      result.sidecarsWritten.push(join(folder, name));
    }
  }
  result.itemsChanged = writeItemsBack(study.doc, studyItems, out);
  if (inPlace) {
    for (const s of sidecars) {
      if (s.bytes !== null) continue;
      unlinkSync(join(folder, s.name));
      result.sidecarsRemoved.push(join(folder, s.name));
    }
    // Every label back inline: the folder goes too, when nothing but its own README is left in it.
    if (joinsAll && existsSync(folder)) {
      const left = readdirSync(folder);
      const readme = join(folder, 'README.md');
      const ours = left.length === 1 && left[0] === 'README.md' && bytesEqual(readFileSync(readme), encodeUtf8(labelsReadme(basename(out))));
      if (ours) unlinkSync(readme);
      if (ours || left.length === 0) rmdirSync(folder);
    }
  }
  return result;
}
