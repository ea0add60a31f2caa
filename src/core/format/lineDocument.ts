/**
 * The dialogue editor's document state without VS Code (issue 19 item 3): the text (`LineText`), a version that
 * increases with every change, and the edits on the editor's undo stack with the point last in sync with the file,
 * which says whether the document is dirty. VS Code keeps the undo stack itself and calls an edit's `undo` and
 * `redo` (`CustomDocumentEditEvent`); `src/extension/dialogueDocument.ts` forwards those calls here and reports the
 * lines each one changed.
 */
import type { LineReplacement, LineText } from './lineText';

/** One edit on the undo stack: `undo` and `redo` return the lines they replaced, or undefined when they did nothing. */
export interface LineEdit {
  /** The lines the edit replaced, with their new text. */
  readonly changed: readonly LineReplacement[];
  undo(): LineReplacement[] | undefined;
  redo(): LineReplacement[] | undefined;
}

/** A text with an undo stack and a saved point. */
export class LineDocument {
  private versionNumber = 1;
  /** Ids of the edits applied, oldest first (an undo pops, a redo pushes back). */
  private readonly applied: number[] = [];
  /** The id on top of `applied` when the text was last in sync with the file (0: none; −1: never, e.g. a backup). */
  private savedTop: number;
  private nextEdit = 1;
  /** Bumped by every reload: an edit made before it does nothing when undone or redone. */
  private generation = 0;

  /**
   * @param text - the text as read
   * @param inSync - false when the text is not the file's (restored from a hot-exit backup): dirty until saved
   */
  constructor(
    private current: LineText,
    inSync = true,
  ) {
    this.savedTop = inSync ? 0 : -1;
  }

  get text(): LineText {
    return this.current;
  }

  /** Increases with every change of the text (edit, undo, redo, reload). */
  get version(): number {
    return this.versionNumber;
  }

  /** The undo stack's top now (0 when nothing is applied). */
  get stackTop(): number {
    return this.applied[this.applied.length - 1] ?? 0;
  }

  /** Whether the text differs from the file as last read or saved, by the undo stack's position. */
  get isDirty(): boolean {
    return this.stackTop !== this.savedTop;
  }

  /**
   * Replaces whole lines as one edit; lines whose text is already that are left out.
   *
   * @param also - a change of state kept beside the text (the study's label sidecars, issue 44 item 1), made now and
   *   undone and redone with the lines, so that the edit is one step of the undo stack even when no line changes.
   *   Each call returns the lines whose meaning it changed (reported among the edit's lines, with their text as it
   *   is). After a reload it is still undone and redone (the text's lines are not).
   * @returns the edit for the undo stack, or undefined when no line changes and there is no `also`
   * @throws RangeError for a line out of range or a line break in a text (nothing is changed)
   */
  edit(edits: readonly LineReplacement[], also?: { redo(): readonly number[]; undo(): readonly number[] }): LineEdit | undefined {
    const changed = edits.filter((e) => this.current.line(e.line) !== e.text);
    if (changed.length === 0 && !also) return undefined;
    const inverse = this.current.replaceLines(changed);
    const touched = (lines: readonly LineReplacement[], more: readonly number[] | undefined) => {
      const seen = new Set(lines.map((l) => l.line));
      const extra = (more ?? []).filter((l) => !seen.has(l) && l < this.current.lineCount).map((line) => ({ line, text: this.current.line(line) }));
      return [...lines, ...extra].sort((a, b) => a.line - b.line);
    };
    const first = touched(changed, also?.redo());
    this.versionNumber++;
    const id = this.nextEdit++;
    this.applied.push(id);
    const generation = this.generation;
    const step = (lines: readonly LineReplacement[], side: (() => readonly number[]) | undefined) => {
      const more = side?.();
      if (generation !== this.generation) {
        if (!side) return undefined;
        this.versionNumber++;
        return [];
      }
      this.current.replaceLines(lines);
      this.versionNumber++;
      return touched(lines, more);
    };
    return {
      changed: first,
      undo: () => {
        if (this.stackTop === id) this.applied.pop();
        return step(inverse, also && (() => also.undo()));
      },
      redo: () => {
        this.applied.push(id);
        return step(changed, also && (() => also.redo()));
      },
    };
  }

  /** Replaces the whole text with the file's as read now: in sync with the file; earlier edits do nothing any more. */
  reload(text: LineText): void {
    this.current = text;
    this.generation++;
    this.savedTop = this.stackTop;
    this.versionNumber++;
  }

  /**
   * Marks the text as written to the file.
   *
   * @param top - the undo stack's top when the text written was taken ({@link stackTop}); edits after it stay unsaved
   */
  markSaved(top = this.stackTop): void {
    this.savedTop = top;
  }
}
