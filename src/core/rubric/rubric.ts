/**
 * A rubric: the labelling scheme of a study as data (issue 39 item 1; docs/format.md, "Rubrics"). Named
 * dimensions, each of one type — binary, ordinal (a Likert scale with its points and anchors), numeric (a range),
 * categorical, multi-select (error categories, with an optional "most evident" choice), free text — each with its
 * keys, and the conditions under which it is asked. The model is Label Studio's labelling config (`Choices`,
 * `Rating`, `Number`, `TextArea`) and Argilla's question types (label, multi-label, rating, text): the scheme is
 * declared once and the editor, the exports and the analyses all follow it.
 *
 * A dimension's value lives in each annotation under the dimension's `name` (`{"annotator": "E1", "fluency": 4}`),
 * so the seeds' scheme is a rubric whose dimensions are the annotation fields it always had (`coherent`, `errors`
 * with `mostEvidentError`, `otherText`, `empathy`): the ACL 2023 preset ({@link MI_RUBRIC}), which every file
 * without a rubric of its own uses, reads existing files unchanged.
 */
import { speakerDisplayName } from '../dialogue/speakers';

/** The types a dimension can have. */
export type DimensionType = 'binary' | 'ordinal' | 'numeric' | 'categorical' | 'multiSelect' | 'text';

/**
 * When a dimension is asked: another (earlier) dimension's value equals `equals`, or (a multi-select) includes
 * `includes`. The MI preset asks for errors only when the response is incoherent and for empathy only when it is
 * coherent; values of a dimension whose condition stops holding are stashed, not dropped (labels/annotate.ts).
 */
export interface DimensionCondition {
  dimension: string;
  equals?: boolean | number | string;
  includes?: string;
}

/** One option of a categorical or multi-select dimension, or one point of an ordinal scale. */
export interface DimensionOption<V extends string | number = string> {
  value: V;
  /** What an annotator reads (an ordinal point's anchor, e.g. "somewhat agree"); the value when absent. */
  label?: string;
  /** The keyboard key that chooses it in the editor (one character, e.g. `"1"`, `"m"`). */
  key?: string;
}

interface DimensionBase {
  /**
   * The field an annotation keeps the value under, and the name every analysis uses (`--dimension <name>`); for a
   * column imported from a dataset, its header exactly.
   */
  name: string;
  type: DimensionType;
  /** A readable title for tables and the editor; the name when absent. */
  title?: string;
  /** The question an annotator is asked. */
  question?: string;
  /** Asked only when this holds. */
  when?: DimensionCondition;
}

/** Yes or no. Stored as `true` / `false`. */
export interface BinaryDimension extends DimensionBase {
  type: 'binary';
  /** Labels of the two answers (default "Yes" / "No"). */
  labels?: { yes: string; no: string };
  /** Keys of the two answers (default `y` / `n`). */
  keys?: { yes: string; no: string };
}

/** A Likert scale: integer points in increasing order, each with an optional anchor. Stored as the point's value. */
export interface OrdinalDimension extends DimensionBase {
  type: 'ordinal';
  points: DimensionOption<number>[];
}

/** A number in a closed range, optionally on a grid of `step`. Stored as the number. */
export interface NumericDimension extends DimensionBase {
  type: 'numeric';
  min: number;
  max: number;
  step?: number;
}

/** One of several options. Stored as the option's value. */
export interface CategoricalDimension extends DimensionBase {
  type: 'categorical';
  options: DimensionOption<string>[];
}

/**
 * Any number of options (at least one once answered), e.g. error categories. Stored as the chosen values in the
 * options' order. With `mostEvident`, one chosen value can be marked the most evident (first study §4.2.3), stored
 * under `mostEvident.name`; a single chosen value is its own most evident one (§5.1).
 */
export interface MultiSelectDimension extends DimensionBase {
  type: 'multiSelect';
  options: DimensionOption<string>[];
  mostEvident?: { name: string; title?: string };
}

/** Free text (a rationale, the "other" error's description). Stored as the string. */
export interface TextDimension extends DimensionBase {
  type: 'text';
  /** The key that moves the focus to the text box. */
  key?: string;
}

/** One dimension of a rubric. */
export type Dimension = BinaryDimension | OrdinalDimension | NumericDimension | CategoricalDimension | MultiSelectDimension | TextDimension;

/** How a study names its speakers: display names, and which speaker the candidates answer as. */
export interface SpeakerRoles {
  /** The speaker whose turn the candidates are (the MI preset: `therapist`). */
  respondent?: string;
  /** Display names by speaker as written in the file (`{"therapist": "Therapist"}`); the speaker itself otherwise. */
  names?: Record<string, string>;
}

/** A rubric: a study's labelling scheme (`*.rubric.json` beside the dialogue file; docs/rubric.schema.json). */
export interface Rubric {
  /** Format version of the rubric file (1). */
  version: 1;
  /** A name to show and to record in exports. */
  name: string;
  description?: string;
  /**
   * The dimension analyses use when none is named (`--dimension`): the MI preset's `coherent`. Must be binary,
   * ordinal or numeric.
   */
  primary: string;
  dimensions: Dimension[];
  speakers?: SpeakerRoles;
  [key: string]: unknown;
}

/** Keys the dialogue editor keeps for moving between candidates and items (docs/labelling.md): no dimension may take them. */
export const NAVIGATION_KEYS: readonly string[] = ['j', 'k', 'u'];

/** Keys the dialogue editor keeps for its layout: `l` shows or hides the item list, `t` the whole transcript. */
export const LAYOUT_KEYS: readonly string[] = ['l', 't'];

/**
 * The characters a dimension's key may be: a letter or a digit the editor does not keep. Each has a default
 * keybinding in the editor (src/core/labels/labelKeys.ts), with Shift for a multi-select's most evident option.
 */
export const RUBRIC_KEY_CHARACTERS: readonly string[] = [...'0123456789abcdefghijklmnopqrstuvwxyz'].filter((c) => !NAVIGATION_KEYS.includes(c) && !LAYOUT_KEYS.includes(c));

/** Annotation fields that are not labels: a dimension may not be named after one of them. */
export const RESERVED_ANNOTATION_FIELDS: readonly string[] = ['annotator', 'group', 'updatedAt', 'stashed'];

/** Dimension types whose values are numbers on a scale (a human score is their mean, a judge can target them). */
export function isScaleDimension(d: Dimension): d is BinaryDimension | OrdinalDimension | NumericDimension {
  return d.type === 'binary' || d.type === 'ordinal' || d.type === 'numeric';
}

/** A dimension of `rubric` by name, or undefined. */
export function dimensionNamed(rubric: Rubric, name: string): Dimension | undefined {
  return rubric.dimensions.find((d) => d.name === name);
}

/** The title a table shows for a dimension: its `title`, else its name. */
export function dimensionTitle(d: Pick<DimensionBase, 'name' | 'title'>): string {
  return d.title ?? d.name;
}

/**
 * The lowest and highest value a scale dimension can take: 0 and 1 for binary (no = 0, yes = 1), the first and
 * last point of an ordinal scale, the range of a numeric one.
 */
export function scaleRange(d: BinaryDimension | OrdinalDimension | NumericDimension): { min: number; max: number } {
  if (d.type === 'binary') return { min: 0, max: 1 };
  if (d.type === 'ordinal') return { min: d.points[0].value, max: d.points[d.points.length - 1].value };
  return { min: d.min, max: d.max };
}

/** How a speaker is shown in a study with this rubric (its display name, else the speaker as written in the file). */
export function speakerName(rubric: Pick<Rubric, 'speakers'>, speaker: string): string {
  return speakerDisplayName(speaker, rubric.speakers?.names ?? {});
}
