/**
 * What a study's dialogue file holds, in the few numbers the side bar shows: items and candidates, every
 * annotator's labelling progress (`navigation/itemNavigation.ts` `labelProgress`: a candidate counts once per
 * annotator with a coherence answer), the candidates ReflectEval generated grouped by model and decoding strategy,
 * and the evaluators that scored it. Read leniently: a line that is not a JSON item is counted as a problem and
 * skipped (the dialogue editor says what is wrong with it), never guessed at.
 *
 * A study that keeps labels in sidecar files (`<study>.labels/<annotator>.jsonl`, docs/format.md "Labels in sidecar
 * files", `format/labelSidecars.ts`) is counted with them, as every job reads it: a sidecar line's annotation is laid
 * over its candidate unless the study already has that annotator's label there (the study's is read, as
 * `overlayLabels` does). Sidecar lines are read by core's reader (`readSidecarFile`, with the annotation schema), so a line is a label here
 * exactly when it is one for every job; one that is not, or names no item or candidate of the study, counts as a
 * sidecar problem line here and is left out, as every job leaves it out.
 */
import type { Candidate, CandidateOrigin, DialogueItem } from '../dialogue/types';
import { evaluatorKind, type EvaluatorKind } from '../evaluators/evaluatorNames';
import { isHeaderLine } from '../format/compactScores';
import { encodeUtf8 } from '../format/bytes';
import { readSidecarFile, type AnnotationCheck } from '../format/sidecarReader';
import { labelProgress, type LabelProgress } from '../navigation/itemNavigation';

/** Candidates one generator made under one decoding strategy, from their recorded origins. */
export interface OriginGroup {
  kind: 'model' | 'api';
  /** The origin's `model` (a hub id, a folder, `bundled:…` or an API model name); '' when not recorded. */
  model: string;
  /** The decoding strategy (`greedy`, `beamSearch`, `nucleusSampling`, …). */
  strategy: string;
  /** Candidates whose first origin this is. */
  candidates: number;
  /** Latest `createdAt` among them (ISO 8601), when recorded. */
  lastCreatedAt?: string;
}

/** Evaluators that scored the file's candidates. */
export interface EvaluatorCount {
  id: string;
  kind: EvaluatorKind;
  /** Candidates with a score of this evaluator (usable or not). */
  candidates: number;
}

/** The numbers of one dialogue file. */
export interface StudyContent {
  items: number;
  /** Candidates, all items (the total each annotator's count is out of). */
  candidates: number;
  /** Every annotator with a coherence answer, by labelled count descending, then id (`mine` is not set: no viewer). */
  progress: LabelProgress;
  /** Candidates with a coherence answer from at least one annotator. */
  labelledByAnyone: number;
  /** Generated candidates (an origin with decoding settings) by model and strategy, most candidates first. */
  generated: OriginGroup[];
  evaluators: EvaluatorCount[];
  /** 1-based numbers of lines that are not dialogue items (invalid JSON, not an object, no candidates list). */
  problemLines: number[];
  /** Sidecar files read (`<study>.labels/<name>`), by name; absent when the study keeps no labels in sidecars. */
  sidecars?: { name: string; annotator: string; labels: number; problemLines: number[] }[];
}

/** One sidecar file of a study's labels folder, as text: its name in the folder (`E1.jsonl`, `Expert%201.jsonl`). */
export interface SidecarText {
  name: string;
  text: string;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** An item as far as the summary reads it: an object whose candidates are objects. */
function isItem(v: unknown): v is DialogueItem {
  return isObject(v) && Array.isArray(v.candidates) && v.candidates.every(isObject);
}

/** A generated origin: one made by a model or an API under recorded decoding settings (not an imported response). */
function generatedOrigin(o: CandidateOrigin | undefined): o is CandidateOrigin & { kind: 'model' | 'api' } {
  return !!o && (o.kind === 'model' || o.kind === 'api') && typeof o.decoding === 'object' && o.decoding !== null;
}

/** Each line of a text with its 1-based number, empty lines left out. */
function* nonEmptyLines(text: string): Generator<[number, string]> {
  let start = 0;
  let line = 0;
  while (start <= text.length) {
    let end = text.indexOf('\n', start);
    if (end < 0) end = text.length;
    line++;
    const raw = text.slice(start, end).trim();
    start = end + 1;
    if (raw) yield [line, raw];
  }
}

/**
 * Lays a study's sidecar labels over its items (in place), read by core's sidecar reader (`readSidecarFile`, the
 * one every job and the editor use, with the annotation schema's check `check`): each sidecar's valid lines, in the order of the files' names, onto the first
 * candidate with the line's id. A line the reader does not take (not JSON, not an annotation of the file's
 * annotator, a second line for one candidate), one whose item or candidate is not in the study, and one for a
 * candidate where the study already has the annotator's label (the study's is read) count as problem lines.
 */
function overlaySidecars(items: DialogueItem[], sidecars: readonly SidecarText[], check: AnnotationCheck): NonNullable<StudyContent['sidecars']> {
  const byItem = new Map<string, DialogueItem>();
  for (const it of items) if (typeof it.id === 'string' && !byItem.has(it.id)) byItem.set(it.id, it);
  const out: NonNullable<StudyContent['sidecars']> = [];
  for (const sc of [...sidecars].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    const read = readSidecarFile('labels', sc.name, encodeUtf8(sc.text), check);
    if ('code' in read) continue;
    const summary = { name: sc.name, annotator: read.annotator, labels: 0, problemLines: read.problems.map((p) => p.line) };
    out.push(summary);
    for (const e of read.entries) {
      const candidate = byItem.get(e.item)?.candidates.find((c) => c.id === e.candidate);
      if (!candidate || candidate.annotations.some((a) => a.annotator === read.annotator)) {
        summary.problemLines.push(e.lineIndex + 1);
        continue;
      }
      candidate.annotations.push(e.annotation);
      summary.labels++;
    }
    summary.problemLines.sort((a, b) => a - b);
  }
  return out;
}

/**
 * Summarises a dialogue file's text (long form or compact; `docs/format.md`).
 *
 * @param text - the whole file as UTF-8 text
 * @param sidecars - the files of the study's labels folder (`<study>.labels/*.jsonl`) when it has one
 * @param check - the check of a sidecar line's annotation every job uses (`labelSidecars.ts`
 *   `annotationSchemaProblem`); required with `sidecars`
 * @throws RangeError for `sidecars` without `check`
 */
export function studyContent(text: string, sidecars?: readonly SidecarText[], check?: AnnotationCheck): StudyContent {
  if (sidecars && !check) throw new RangeError('reading label sidecars needs the annotation check (labelSidecars.ts annotationSchemaProblem)');
  const items: DialogueItem[] = [];
  const problemLines: number[] = [];
  let aliases: string[] = [];
  for (const [line, raw] of nonEmptyLines(text)) {
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch {
      problemLines.push(line);
      continue;
    }
    if (line === 1 && isHeaderLine(value)) {
      const evaluators = (value.reflectEval as { evaluators?: { id?: unknown }[] } | null)?.evaluators;
      aliases = Array.isArray(evaluators) ? evaluators.map((e) => (typeof e?.id === 'string' ? e.id : '')) : [];
      continue;
    }
    if (!isItem(value)) {
      problemLines.push(line);
      continue;
    }
    // Only what labelProgress reads needs to be well-formed: a candidate without an annotations list has none.
    for (const c of value.candidates) (c as Candidate).annotations = Array.isArray(c.annotations) ? c.annotations.filter(isObject) : [];
    items.push(value);
  }
  const sidecarSummary = sidecars ? overlaySidecars(items, sidecars, check!) : undefined;
  const groups = new Map<string, OriginGroup>();
  const scored = new Map<string, number>();
  let candidates = 0;
  let labelledByAnyone = 0;
  for (const it of items) {
    for (const c of it.candidates) {
      candidates++;
      if (c.annotations.some((a) => typeof a.coherent === 'boolean')) labelledByAnyone++;
      const o = c.origin;
      if (generatedOrigin(o)) {
        const strategy = String(o.decoding?.strategy ?? '');
        const model = typeof o.model === 'string' ? o.model : '';
        const key = JSON.stringify([o.kind, model, strategy]);
        const g = groups.get(key) ?? { kind: o.kind, model, strategy, candidates: 0 };
        g.candidates++;
        if (typeof o.createdAt === 'string' && (!g.lastCreatedAt || o.createdAt > g.lastCreatedAt)) g.lastCreatedAt = o.createdAt;
        groups.set(key, g);
      }
      if (isObject(c.scores)) {
        for (const key of Object.keys(c.scores)) {
          const id = key.startsWith('#') && aliases[Number(key.slice(1))] ? aliases[Number(key.slice(1))] : key;
          scored.set(id, (scored.get(id) ?? 0) + 1);
        }
      }
    }
  }
  return {
    items: items.length,
    candidates,
    progress: labelProgress(items, null),
    labelledByAnyone,
    generated: [...groups.values()].sort((a, b) => b.candidates - a.candidates || a.model.localeCompare(b.model) || a.strategy.localeCompare(b.strategy)),
    evaluators: [...scored].map(([id, n]) => ({ id, kind: evaluatorKind(id), candidates: n })).sort((a, b) => a.id.localeCompare(b.id)),
    problemLines,
    ...(sidecarSummary ? { sidecars: sidecarSummary } : {}),
  };
}
