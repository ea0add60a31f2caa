/**
 * The rubric of the study a panel shows, read again only when its file changed: the panels update after every label,
 * and reading and checking `<study>.rubric.json` each time would cost a parse per label.
 */
import { existsSync, statSync } from 'node:fs';
import type { DialogueFileDocument } from './dialogueDocument';
import { MI_RUBRIC } from '../core/rubric/presets';
import type { Rubric } from '../core/rubric/rubric';
import { loadRubric, rubricPathOf } from '../core/rubric/rubricFile';

/** One panel's cached rubric. */
export class StudyRubric {
  private read: { path: string; mtimeMs: number | null; rubric: Rubric } | undefined;

  /**
   * The study's rubric (its `*.rubric.json`, else the MI preset; the MI preset for a document not on disk), cached by
   * the rubric file's modification time.
   *
   * @throws RubricError for a broken rubric file
   */
  of(document: DialogueFileDocument | undefined): Rubric {
    if (!document || document.uri.scheme !== 'file') return MI_RUBRIC;
    const path = rubricPathOf(document.uri.fsPath);
    const mtimeMs = existsSync(path) ? statSync(path).mtimeMs : null;
    if (this.read?.path === path && this.read.mtimeMs === mtimeMs) return this.read.rubric;
    const rubric = loadRubric(document.uri.fsPath).rubric;
    this.read = { path, mtimeMs, rubric };
    return rubric;
  }
}
