/**
 * Reading a study's rubric: `<study>.rubric.json` beside `<study>.dialogues.jsonl` (docs/format.md, "Rubrics";
 * JSON Schema: docs/rubric.schema.json, which VS Code applies to `*.rubric.json` while the file is edited). A study
 * without a rubric file uses the MI preset. A rubric that breaks a rule is refused with every problem named by file,
 * line and field — a rubric decides which labels count, so nothing in it is ever guessed.
 */
import { existsSync, readFileSync } from 'node:fs';
import { siblingFile } from '../dialogue/siblingFile';
import { findNodeAtLocation, parseTree, printParseErrorCode, type Node, type ParseError } from 'jsonc-parser';
import { MI_RUBRIC, PRESETS } from './presets';
import { LAYOUT_KEYS, NAVIGATION_KEYS, RESERVED_ANNOTATION_FIELDS, RUBRIC_KEY_CHARACTERS, isScaleDimension, type Dimension, type Rubric } from './rubric';

/** One problem of a rubric file: where (1-based line, field path) and what. */
export interface RubricProblem {
  file: string;
  line: number;
  field: string;
  message: string;
}

/** A rubric file that cannot be used; `problems` names each rule it breaks. */
export class RubricError extends Error {
  constructor(readonly problems: RubricProblem[]) {
    super(problems.map((p) => `${p.file}:${p.line}: ${p.field}: ${p.message}`).join('\n'));
    this.name = 'RubricError';
  }
}

/** `a/b/study.dialogues.jsonl` → `a/b/study.rubric.json`; any other `x.jsonl` → `x.rubric.json`. */
export function rubricPathOf(dialogueFile: string): string {
  return siblingFile(dialogueFile, '.rubric.json');
}

type Path = (string | number)[];

function fieldOf(path: Path): string {
  let out = '';
  for (const p of path) out += typeof p === 'number' ? `[${p}]` : out ? `.${p}` : p;
  return out || '(rubric)';
}

function lineAt(text: string, offset: number): number {
  let line = 1;
  for (let i = 0; i < offset && i < text.length; i++) if (text.charCodeAt(i) === 10) line++;
  return line;
}

/**
 * Checks a parsed rubric value (a full rubric or `{"preset": …}`) against every rule of docs/format.md: the
 * structure of docs/rubric.schema.json, and what a schema cannot say — unique names, no reserved or shadowed name,
 * a primary scale dimension, conditions on earlier dimensions with values they can take, increasing scale points,
 * keys that never collide while both dimensions can be asked.
 *
 * @returns the problems as (field path, message) pairs; empty when the rubric is usable
 */
export function rubricProblems(value: unknown): { path: Path; message: string }[] {
  const out: { path: Path; message: string }[] = [];
  const bad = (path: Path, message: string) => out.push({ path, message });
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    bad([], 'a rubric must be a JSON object');
    return out;
  }
  const r = value as Record<string, unknown>;
  if ('preset' in r) {
    if (typeof r.preset !== 'string' || !Object.hasOwn(PRESETS, r.preset)) bad(['preset'], `unknown preset ${JSON.stringify(r.preset)}; built in: ${Object.keys(PRESETS).join(', ')}`);
    for (const k of Object.keys(r)) if (k !== 'preset' && k !== '$schema') bad([k], 'a preset rubric has no other fields (write out a full rubric to change it)');
    return out;
  }
  if (r.version !== 1) bad(['version'], `must be 1, got ${JSON.stringify(r.version)}`);
  if (typeof r.name !== 'string' || !r.name) bad(['name'], 'must be a non-empty string');
  if (r.description !== undefined && typeof r.description !== 'string') bad(['description'], 'must be a string');
  if (!Array.isArray(r.dimensions) || r.dimensions.length === 0) {
    bad(['dimensions'], 'must be a non-empty list of dimensions');
    return out;
  }
  const seen = new Map<string, number>();
  const dims = r.dimensions as unknown[];
  dims.forEach((raw, i) => checkDimension(raw, i, dims, seen, bad));
  if (typeof r.primary !== 'string') bad(['primary'], 'must name a dimension');
  else {
    const p = seen.get(r.primary);
    if (p === undefined) bad(['primary'], `no dimension is named ${JSON.stringify(r.primary)}`);
    else if (!isScaleDimension(dims[p] as Dimension)) bad(['primary'], `must be a binary, ordinal or numeric dimension; ${JSON.stringify(r.primary)} is ${(dims[p] as Dimension).type}`);
  }
  if (r.speakers !== undefined) {
    const s = r.speakers as Record<string, unknown>;
    if (typeof s !== 'object' || s === null || Array.isArray(s)) bad(['speakers'], 'must be an object');
    else {
      if (s.respondent !== undefined && (typeof s.respondent !== 'string' || !s.respondent)) bad(['speakers', 'respondent'], 'must be a non-empty string');
      if (s.names !== undefined) {
        if (typeof s.names !== 'object' || s.names === null || Array.isArray(s.names)) bad(['speakers', 'names'], 'must map speakers to display names');
        else for (const [k, v] of Object.entries(s.names)) if (typeof v !== 'string' || !v) bad(['speakers', 'names', k], 'must be a non-empty string');
      }
      for (const k of Object.keys(s)) if (k !== 'respondent' && k !== 'names') bad(['speakers', k], 'unknown field (respondent, names)');
    }
  }
  checkKeys(dims, bad);
  return out;
}

const TYPES = ['binary', 'ordinal', 'numeric', 'categorical', 'multiSelect', 'text'];

function checkDimension(raw: unknown, i: number, dims: readonly unknown[], seen: Map<string, number>, bad: (path: Path, message: string) => void): void {
  const at = (...rest: Path): Path => ['dimensions', i, ...rest];
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return bad(at(), 'must be an object');
  const d = raw as Record<string, unknown>;
  const claim = (name: unknown, path: Path) => {
    if (typeof name !== 'string' || !name) return bad(path, 'must be a non-empty string');
    if (RESERVED_ANNOTATION_FIELDS.includes(name)) return bad(path, `${JSON.stringify(name)} is an annotation field, not a label (reserved: ${RESERVED_ANNOTATION_FIELDS.join(', ')})`);
    if (seen.has(name)) return bad(path, `${JSON.stringify(name)} is already the name of dimension ${seen.get(name)! + 1}`);
    seen.set(name, i);
  };
  claim(d.name, at('name'));
  if (!TYPES.includes(d.type as string)) return bad(at('type'), `must be one of ${TYPES.join(', ')}, got ${JSON.stringify(d.type)}`);
  for (const f of ['title', 'question'] as const) if (d[f] !== undefined && typeof d[f] !== 'string') bad(at(f), 'must be a string');
  const options = (list: unknown, field: string, min: number, integer: boolean) => {
    if (!Array.isArray(list) || list.length < min) return bad(at(field), `must list at least ${min} ${field}`);
    const values = new Set<unknown>();
    list.forEach((o, j) => {
      if (typeof o !== 'object' || o === null) return bad(at(field, j), 'must be an object with a value');
      const v = (o as Record<string, unknown>).value;
      if (integer ? !Number.isInteger(v) : typeof v !== 'string' || !v) bad(at(field, j, 'value'), integer ? 'must be an integer' : 'must be a non-empty string');
      else if (values.has(v)) bad(at(field, j, 'value'), `${JSON.stringify(v)} is listed twice`);
      else if (integer && values.size > 0 && (v as number) <= Math.max(...(values as Set<number>))) bad(at(field, j, 'value'), 'points must increase');
      values.add(v);
      const label = (o as Record<string, unknown>).label;
      if (label !== undefined && typeof label !== 'string') bad(at(field, j, 'label'), 'must be a string');
    });
  };
  if (d.type === 'ordinal') options(d.points, 'points', 2, true);
  if (d.type === 'categorical') options(d.options, 'options', 2, false);
  if (d.type === 'multiSelect') {
    options(d.options, 'options', 1, false);
    if (d.mostEvident !== undefined) {
      const m = d.mostEvident as Record<string, unknown>;
      if (typeof m !== 'object' || m === null) bad(at('mostEvident'), 'must be an object with a name');
      else claim(m.name, at('mostEvident', 'name'));
    }
  }
  if (d.type === 'numeric') {
    if (typeof d.min !== 'number' || !Number.isFinite(d.min)) bad(at('min'), 'must be a finite number');
    if (typeof d.max !== 'number' || !Number.isFinite(d.max)) bad(at('max'), 'must be a finite number');
    else if (typeof d.min === 'number' && d.max <= d.min) bad(at('max'), `must be greater than min (${d.min})`);
    if (d.step !== undefined && !(typeof d.step === 'number' && d.step > 0)) bad(at('step'), 'must be a positive number');
  }
  if (d.when !== undefined) checkCondition(d.when, i, dims, at('when'), bad);
}

function checkCondition(raw: unknown, i: number, dims: readonly unknown[], path: Path, bad: (path: Path, message: string) => void): void {
  const w = raw as Record<string, unknown>;
  if (typeof w !== 'object' || w === null) return bad(path, 'must be an object naming a dimension');
  const j = dims.findIndex((x) => (x as Record<string, unknown> | null)?.name === w.dimension);
  if (j < 0 || j >= i) return bad([...path, 'dimension'], `must name an earlier dimension, got ${JSON.stringify(w.dimension)}`);
  const target = dims[j] as Dimension;
  if ((w.equals === undefined) === (w.includes === undefined)) return bad(path, 'needs exactly one of equals or includes');
  const listed = (list: unknown, v: unknown) => Array.isArray(list) && list.some((o) => (o as { value?: unknown } | null)?.value === v);
  if (w.includes !== undefined) {
    if (target.type !== 'multiSelect') return bad([...path, 'includes'], `only a multi-select dimension can include a value; ${target.name} is ${target.type}`);
    if (!listed(target.options, w.includes)) bad([...path, 'includes'], `${target.name} has no option ${JSON.stringify(w.includes)}`);
    return;
  }
  const v = w.equals;
  const ok = target.type === 'binary' ? typeof v === 'boolean' : target.type === 'ordinal' ? listed(target.points, v) : target.type === 'categorical' ? listed(target.options, v) : false;
  if (!ok) bad([...path, 'equals'], `${JSON.stringify(v)} is not a value ${target.name} (${target.type}) can take`);
}

/** The keys a dimension binds, each with the path of its field. */
function keysOf(d: Dimension, i: number): { key: string; path: Path }[] {
  const out: { key: string; path: Path }[] = [];
  if (d.type === 'binary' && d.keys) (['yes', 'no'] as const).forEach((k) => out.push({ key: d.keys![k], path: ['dimensions', i, 'keys', k] }));
  if (d.type === 'ordinal') d.points.forEach((p, j) => p.key !== undefined && out.push({ key: p.key, path: ['dimensions', i, 'points', j, 'key'] }));
  if (d.type === 'categorical' || d.type === 'multiSelect') d.options.forEach((o, j) => o.key !== undefined && out.push({ key: o.key, path: ['dimensions', i, 'options', j, 'key'] }));
  if (d.type === 'text' && d.key !== undefined) out.push({ key: d.key, path: ['dimensions', i, 'key'] });
  return out;
}

/** True when two dimensions can never be asked at once: their conditions ask one dimension for different values. */
function exclusive(a: Dimension, b: Dimension): boolean {
  return a.when?.equals !== undefined && b.when?.equals !== undefined && a.when.dimension === b.when.dimension && a.when.equals !== b.when.equals;
}

function checkKeys(dims: readonly unknown[], bad: (path: Path, message: string) => void): void {
  if (dims.some((d) => typeof d !== 'object' || d === null)) return;
  const bound: { key: string; path: Path; dim: Dimension }[] = [];
  (dims as Dimension[]).forEach((d, i) => {
    for (const k of keysOf(d, i)) {
      if (typeof k.key !== 'string' || [...k.key].length !== 1) {
        bad(k.path, 'a key is one character');
        continue;
      }
      const key = k.key.toLowerCase();
      if (NAVIGATION_KEYS.includes(key)) {
        bad(k.path, `${JSON.stringify(k.key)} moves between candidates (${NAVIGATION_KEYS.join(', ')} are the editor's)`);
        continue;
      }
      if (LAYOUT_KEYS.includes(key)) {
        bad(k.path, `${JSON.stringify(k.key)} shows or hides part of the editor (${LAYOUT_KEYS.join(', ')} are the editor's)`);
        continue;
      }
      if (!RUBRIC_KEY_CHARACTERS.includes(key)) {
        bad(k.path, `${JSON.stringify(k.key)} is not a letter or a digit (the editor binds a–z and 0–9; Shift + a key marks the most evident option)`);
        continue;
      }
      const clash = bound.find((b) => b.key === key && (b.dim === d || !exclusive(b.dim, d)));
      if (clash) bad(k.path, `${JSON.stringify(k.key)} is already bound at ${fieldOf(clash.path)} and both can be asked at once`);
      else bound.push({ key, path: k.path, dim: d });
    }
  });
}

/**
 * Parses and checks a rubric file's text.
 *
 * @param text - the file's text (JSON; comments and trailing commas are refused, as JSON tools would)
 * @param file - the file name problems are reported with
 * @returns the rubric (a preset resolved to its built-in rubric)
 * @throws RubricError naming file, line and field of every problem
 */
export function parseRubric(text: string, file: string): Rubric {
  const errors: ParseError[] = [];
  const tree = parseTree(text, errors, { disallowComments: true, allowTrailingComma: false });
  if (errors.length > 0 || !tree) {
    const e = errors[0];
    throw new RubricError([{ file, line: e ? lineAt(text, e.offset) : 1, field: '(rubric)', message: `not valid JSON (${e ? printParseErrorCode(e.error) : 'empty file'})` }]);
  }
  const value = JSON.parse(text) as unknown;
  const problems = rubricProblems(value);
  if (problems.length > 0) {
    throw new RubricError(
      problems.map((p) => {
        let node: Node | undefined;
        for (let k = p.path.length; k >= 0 && !node; k--) node = findNodeAtLocation(tree, p.path.slice(0, k));
        return { file, line: lineAt(text, node?.offset ?? 0), field: fieldOf(p.path), message: p.message };
      }),
    );
  }
  const r = value as Record<string, unknown>;
  return typeof r.preset === 'string' ? PRESETS[r.preset] : (value as Rubric);
}

/**
 * The rubric of a dialogue file: its `*.rubric.json` sibling ({@link rubricPathOf}) when there is one, else the
 * MI preset.
 *
 * @throws RubricError for a rubric file that breaks a rule (never falls back to the preset: that would change
 *   which labels count)
 */
export function loadRubric(dialogueFile: string): { rubric: Rubric; file: string | null } {
  const file = rubricPathOf(dialogueFile);
  if (!existsSync(file)) return { rubric: MI_RUBRIC, file: null };
  return { rubric: parseRubric(readFileSync(file, 'utf8'), file), file };
}
