/**
 * Labels in sidecar files (issue 44 item 4; docs/format.md, "Labels in sidecar files"): a study may keep each
 * annotator's labels in a file of their own beside it, `<study>.labels/<annotator>.jsonl`, one line per labelled
 * candidate — `{"item": "<item id>", "candidate": "<candidate id>", "annotation": {…}}` — in the study's order, so
 * that annotators who commit to one git repository change different files and never conflict. Every reader lays
 * the sidecars over the study's items ({@link overlayLabels}): jobs, analyses and the editor see one list of
 * annotations per candidate, as if they were inline. Every writer splits the items back ({@link labelWrites}): an
 * annotator's labels go where they are kept, only the lines that changed are rewritten, and a job that changes
 * only scores leaves every sidecar alone.
 *
 * Pure: bytes in, bytes out (the CLI's file side is `studyFiles.ts`; the editor passes the bytes it read).
 *
 * The order of a candidate's annotations is the study's inline ones, then each sidecar's (in the order of the files'
 * names), except that a line with an `index` is put at that position of the list. No reader gives the order a
 * meaning (labels are looked up by annotator), but a split and a join keep it exactly — they add an `index` only
 * where the plain order would not give the list back — so a round trip gives the same bytes.
 */
import { siblingFile } from '../dialogue/siblingFile';
import Ajv, { type ErrorObject } from 'ajv';
import schema from '../../../docs/dialogue-item.schema.json';
import type { Annotation, Candidate, DialogueItem } from '../dialogue/types';
import { concatBytes, decodeUtf8Lossy, encodeUtf8 } from './bytes';
import { documentItems, type DialogueDocument } from './jsonl';
import { readSidecarFile, sidecarFileName, type AnnotationCheck, type LabelProblem, type LabelProblemCode, type LabelSidecar, type SidecarEntry } from './sidecarReader';

export { sidecarAnnotator, sidecarFileName, readSidecarFile } from './sidecarReader';
export type { AnnotationCheck, LabelProblem, LabelProblemCode, LabelSidecar, SidecarEntry } from './sidecarReader';

/** The folder of a study's sidecars: `study.dialogues.jsonl` → `study.labels` (a path or a bare name). */
export function labelsFolderOf(studyPath: string): string {
  return siblingFile(studyPath, '.labels');
}

/** A study's labels folder as read: its sidecars (by name) and files it could not take for one. */
export interface LabelSidecars {
  /** The folder's name as problems show it, e.g. `study.labels`. */
  folder: string;
  files: LabelSidecar[];
  problems: LabelProblem[];
}

let annotationValidator: ReturnType<Ajv['compile']> | undefined;
function annotationErrors(value: unknown): ErrorObject[] {
  if (!annotationValidator) {
    const ajv = new Ajv({ allErrors: true, strict: false });
    annotationValidator = ajv.compile({ definitions: (schema as { definitions: Record<string, unknown> }).definitions, $ref: '#/definitions/annotation' });
  }
  return annotationValidator(value) ? [] : (annotationValidator.errors ?? []);
}

function pointerField(prefix: string, pointer: string, extra?: string): string {
  let out = prefix;
  const parts = pointer.split('/').slice(1).map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (extra) parts.push(extra);
  for (const p of parts) out += /^\d+$/.test(p) ? `[${p}]` : `.${p}`;
  return out;
}

const keyOf = (item: string, candidate: string) => `${item}\u0000${candidate}`;

/** The annotation schema's check of a sidecar line's annotation (docs/dialogue-item.schema.json, `annotation`). */
export const annotationSchemaProblem: AnnotationCheck = (annotation) => {
  const errors = annotationErrors(annotation);
  if (!errors.length) return undefined;
  const e = errors[0];
  const missing = e.keyword === 'required' ? (e.params as { missingProperty: string }).missingProperty : undefined;
  return { field: pointerField('annotation', e.instancePath, missing), message: missing ? `missing required field "${missing}"` : (e.message ?? e.keyword) };
};

/**
 * Reads one sidecar's bytes (`sidecarReader.ts` `readSidecarFile` with the annotation schema). Never throws for a bad
 * line: it is kept and reported (named by file, line and field).
 *
 * @param folder - the labels folder's name as problems show it (`study.labels`)
 * @param name - the file's name; must be the annotator's {@link sidecarFileName}
 * @returns the sidecar, or a `fileName` problem when the name is not an annotator's
 */
export function parseLabelSidecar(folder: string, name: string, bytes: Uint8Array): LabelSidecar | LabelProblem {
  return readSidecarFile(folder, name, bytes, annotationSchemaProblem);
}

/**
 * Reads a labels folder's files (`*.jsonl`; other files, such as its README, are not sidecars and are ignored).
 *
 * @param folder - the folder's name as problems show it (`study.labels`)
 * @param files - each file's name in the folder and its bytes
 */
export function readLabelSidecars(folder: string, files: readonly { name: string; bytes: Uint8Array }[]): LabelSidecars {
  const out: LabelSidecars = { folder, files: [], problems: [] };
  for (const f of [...files].filter((f) => f.name.endsWith('.jsonl')).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    const sc = parseLabelSidecar(folder, f.name, f.bytes);
    if ('code' in sc) out.problems.push(sc);
    else out.files.push(sc);
  }
  return out;
}

/**
 * The labels folder after writes (what the editor lays over its study after a save, without reading the folder
 * again): changed files parsed afresh, removed ones gone, the others as they were.
 *
 * @param sidecars - the folder as read, or undefined when the study had none (a split makes one)
 * @param folder - the folder's name as problems show it, when `sidecars` is undefined
 */
export function withSidecarWrites(sidecars: LabelSidecars | undefined, writes: readonly SidecarWrite[], folder?: string): LabelSidecars {
  const name = sidecars?.folder ?? folder;
  if (name === undefined) throw new RangeError('name the labels folder of a study that had none');
  const files = new Map((sidecars?.files ?? []).map((f) => [f.name, f]));
  for (const w of writes) {
    if (w.bytes === null) files.delete(w.name);
    else {
      const sc = parseLabelSidecar(name, w.name, w.bytes);
      if (!('code' in sc)) files.set(w.name, sc);
    }
  }
  return { folder: name, files: [...files.values()].sort((a, b) => byName(a.name, b.name)), problems: sidecars?.problems ?? [] };
}

/** A study's items with its sidecars laid over, and what writing them back needs. */
export interface LabelOverlay {
  /** The study's file name (problems name it). */
  file: string;
  /** The study's items as in its file: inline labels only. */
  inline: readonly DialogueItem[];
  /** The items every job, analysis and the editor see: each candidate's inline annotations and its sidecar ones. */
  items: DialogueItem[];
  /** Whether the study keeps labels in sidecars (its labels folder exists). */
  usesSidecars: boolean;
  /** The labels folder as read (undefined when the study has none). */
  sidecars?: LabelSidecars;
  /** Every problem of the labels, sidecar lines and folder first, then the study's (`mixed`). */
  problems: LabelProblem[];
  /** For {@link labelWrites}: annotator → candidate key → the sidecar line laid over it. */
  readonly placed: ReadonlyMap<string, ReadonlyMap<string, SidecarEntry>>;
  /** For {@link labelWrites}: `annotator \0 item \0 candidate` of a sidecar line left out because the study has that label too. */
  readonly conflicts: ReadonlyMap<string, LabelProblem>;
  /** For {@link labelWrites}: annotators with at least one inline annotation in the study. */
  readonly inlineAnnotators: ReadonlySet<string>;
  /** For {@link labelWrites}: the study's 0-based line of each item. */
  readonly itemLines: readonly number[];
}

/**
 * A candidate's annotations: `inline`, then the sidecar ones without an index in file order; then each one with an
 * index put at it, in ascending order (one index twice: in file order, the later one after the earlier).
 *
 * @param placed - the candidate's sidecar lines in the order of their files' names
 */
function layOver(inline: readonly Annotation[], placed: readonly { annotation: Annotation; index?: number }[]): Annotation[] {
  const out = [...inline];
  for (const p of placed) if (p.index === undefined) out.push(p.annotation);
  const indexed = placed.filter((p) => p.index !== undefined).sort((a, b) => a.index! - b.index!);
  let previous = -1;
  for (const p of indexed) {
    previous = Math.min(Math.max(p.index!, previous + 1), out.length);
    out.splice(previous, 0, p.annotation);
  }
  return out;
}

/**
 * Lays a study's sidecars over its items (see the module comment). A sidecar line whose item or candidate is not in
 * the study is reported and kept in its file (it comes back into use if they do); a line for a candidate where the
 * study has an annotation of the same annotator is reported and left out (inline wins; writes to that label are
 * refused until one is removed); an annotator with a sidecar and inline labels elsewhere is reported (both are read).
 *
 * @param doc - the study, read from bytes or text
 * @param sidecars - its labels folder as read, or undefined when it has none (then `items` are the study's own)
 */
export function overlayLabels(doc: Pick<DialogueDocument, 'file' | 'lines' | 'itemLines'>, sidecars?: LabelSidecars): LabelOverlay {
  const inline = documentItems(doc as DialogueDocument);
  const inlineAnnotators = new Set<string>();
  const firstInline = new Map<string, { line: number; field: string; count: number }>();
  inline.forEach((it, i) => {
    it.candidates.forEach((c, ci) => {
      const seen = new Set<string>();
      c.annotations.forEach((a, ai) => {
        inlineAnnotators.add(a.annotator);
        const f = firstInline.get(a.annotator);
        if (!f) firstInline.set(a.annotator, { line: doc.itemLines[i] + 1, field: `candidates[${ci}].annotations[${ai}].annotator`, count: 1 });
        else if (!seen.has(a.annotator)) f.count++;
        seen.add(a.annotator);
      });
    });
  });
  const base = { file: doc.file, inline, inlineAnnotators, itemLines: doc.itemLines };
  if (!sidecars) return { ...base, items: [...inline], usesSidecars: false, problems: [], placed: new Map(), conflicts: new Map() };

  const problems: LabelProblem[] = [...sidecars.problems];
  const mixed: LabelProblem[] = [];
  const itemIndex = new Map(inline.map((it, i) => [it.id, i]));
  const placed = new Map<string, Map<string, SidecarEntry>>();
  const conflicts = new Map<string, LabelProblem>();
  /** item index → candidate id → its index in the item (the first with the id). */
  const candidateIndex = new Map<number, Map<string, number>>();
  /** item index → candidate id → the sidecar lines laid over it, in file order. */
  const over = new Map<number, Map<string, SidecarEntry[]>>();
  for (const sc of sidecars.files) {
    problems.push(...sc.problems);
    const mine = new Map<string, SidecarEntry>();
    placed.set(sc.annotator, mine);
    for (const e of sc.entries) {
      const at = (code: LabelProblemCode, field: string, message: string) => problems.push({ file: sc.file, line: e.lineIndex + 1, field, code, message });
      const i = itemIndex.get(e.item);
      if (i === undefined) {
        at('orphanItem', 'item', `no item ${JSON.stringify(e.item)} in ${doc.file}: this label is kept in its file and left out (it counts again if the item comes back)`);
        continue;
      }
      let ids = candidateIndex.get(i);
      if (!ids) {
        ids = new Map();
        inline[i].candidates.forEach((c, k) => ids!.has(c.id) || ids!.set(c.id, k));
        candidateIndex.set(i, ids);
      }
      const ci = ids.get(e.candidate) ?? -1;
      if (ci < 0) {
        at('orphanCandidate', 'candidate', `item ${JSON.stringify(e.item)} of ${doc.file} has no candidate ${JSON.stringify(e.candidate)}: this label is kept in its file and left out (it counts again if the candidate comes back)`);
        continue;
      }
      const ai = inline[i].candidates[ci].annotations.findIndex((a) => a.annotator === sc.annotator);
      if (ai >= 0) {
        const p: LabelProblem = {
          file: sc.file,
          line: e.lineIndex + 1,
          field: 'annotation',
          code: 'conflict',
          message: `${doc.file} line ${doc.itemLines[i] + 1} (candidates[${ci}].annotations[${ai}]) has ${sc.annotator}'s label on this candidate too: the study's is read, this line is kept and left out, and neither is written until one of them is removed`,
        };
        problems.push(p);
        conflicts.set(`${sc.annotator}\u0000${keyOf(e.item, e.candidate)}`, p);
        continue;
      }
      mine.set(keyOf(e.item, e.candidate), e);
      let perItem = over.get(i);
      if (!perItem) over.set(i, (perItem = new Map()));
      const list = perItem.get(e.candidate) ?? [];
      list.push(e);
      perItem.set(e.candidate, list);
    }
    const f = firstInline.get(sc.annotator);
    if (f) {
      mixed.push({
        file: doc.file,
        line: f.line,
        field: f.field,
        code: 'mixed',
        message: `${sc.annotator} keeps labels in ${sc.file} and inline in ${doc.file} (on ${f.count} candidate${f.count === 1 ? '' : 's'}, the first here): both are read, and a label of theirs that changes is written to ${sc.file}; \`reflect-eval labels split ${doc.file} --annotators ${sc.annotator}\` moves the rest`,
      });
    }
  }
  const items = inline.map((it, i) => {
    const perItem = over.get(i);
    if (!perItem) return it;
    const done = new Set<string>();
    return {
      ...it,
      candidates: it.candidates.map((c) => {
        const list = perItem.get(c.id);
        // Only the first candidate with an id takes its labels (ids are unique within an item).
        if (!list || done.has(c.id)) return c;
        done.add(c.id);
        return { ...c, annotations: layOver(c.annotations, list) };
      }),
    };
  });
  return { ...base, items, usesSidecars: true, sidecars, problems: [...problems, ...mixed], placed, conflicts };
}

/** Where writes put labels: by default each annotator's labels stay where they are kept (see {@link labelWrites}). */
export interface LabelRouting {
  /** Move these annotators' labels (every annotator with inline labels, for `'all'`) into their sidecars. */
  toSidecars?: readonly string[] | 'all';
  /** Move these annotators' labels (every annotator with a sidecar, for `'all'`) back inline. */
  inline?: readonly string[] | 'all';
}

/** One sidecar file a write changes. */
export interface SidecarWrite {
  name: string;
  /** As problems name it: `study.labels/E1.jsonl`. */
  file: string;
  annotator: string;
  /** The file's new bytes, or null: remove the file (its labels went back inline and nothing else is in it). */
  bytes: Uint8Array | null;
  /** Whether the file is new. */
  created: boolean;
  /** Lines added, rewritten or removed. */
  linesChanged: number;
}

/** What writing items back changes. */
export interface LabelWrites {
  /**
   * The study's items to write (inline labels only), for `writeItemsBack` / `editsFor` (or the editor's own line
   * edits): an item whose line need not change is the overlay's own `inline` object.
   */
  studyItems: DialogueItem[];
  /** The sidecars that change, by name. */
  sidecars: SidecarWrite[];
}

/** Thrown when a write cannot be made without losing or misplacing a label; nothing is written. */
export class LabelWriteError extends Error {
  constructor(readonly problems: LabelProblem[]) {
    super(`${problems.length} label${problems.length === 1 ? '' : 's'} cannot be written:\n${problems.map((p) => `${p.file}:${p.line}: ${p.field ? `${p.field}: ` : ''}${p.message}`).join('\n')}`);
    this.name = 'LabelWriteError';
  }
}

const same = (a: unknown, b: unknown) => a === b || JSON.stringify(a) === JSON.stringify(b);
const byName = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** A sidecar line's text: item, candidate, index when there is one, the annotation, then fields it already had. */
function sidecarLineText(item: string, candidate: string, index: number | undefined, annotation: Annotation, value?: Record<string, unknown>): string {
  const out: Record<string, unknown> = { item, candidate };
  if (index !== undefined) out.index = index;
  out.annotation = annotation;
  for (const [k, v] of Object.entries(value ?? {})) if (!(k in out) && k !== 'index') out[k] = v;
  return JSON.stringify(out);
}

/** A change to one annotator's sidecar on one candidate: the new annotation and index, or null to remove the line. */
type EntryChange = { annotation: Annotation; index?: number } | null;

/**
 * Splits items back into the study's lines and its sidecars (see the module comment).
 *
 * Where a label goes: an annotator listed in `routing` goes where it says. Otherwise a label that did not change
 * stays where it is, and one that changed or is new goes to the annotator's sidecar if they have one, inline if
 * they have inline labels and no sidecar, and — in a study that keeps labels in sidecars — to a new sidecar for an
 * annotator who has neither. A label removed from a candidate still in the study is removed from its sidecar; the
 * labels of a candidate or item no longer in `items` stay in their sidecars (reported as left out when read again).
 * Lines of a sidecar that do not change keep their bytes; new lines go where the study's order puts them.
 *
 * @param items - the overlay's items after the job, same number and ids in the same order
 * @throws RangeError when `items` do not match the overlay's items
 * @throws LabelWriteError, writing nothing, when a label would be written over a sidecar line left out for a
 *   conflict, an annotator going into a sidecar has two annotations on one candidate, an annotator going back
 *   inline has lines in their sidecar that are not labels of the study, or a new sidecar's name differs from an
 *   existing file's only in case
 */
export function labelWrites(overlay: LabelOverlay, items: readonly DialogueItem[], routing: LabelRouting = {}): LabelWrites {
  if (items.length !== overlay.items.length) throw new RangeError(`${overlay.file}: expected ${overlay.items.length} items, got ${items.length}`);
  const sidecarOf = new Map((overlay.sidecars?.files ?? []).map((s) => [s.annotator, s]));
  const listed = (list: readonly string[] | 'all' | undefined, who: string, all: ReadonlySet<string> | ReadonlyMap<string, unknown>) => (list === 'all' ? all.has(who) : (list?.includes(who) ?? false));
  const toInline = (who: string) => listed(routing.inline, who, sidecarOf);
  const toSidecar = (who: string) => !toInline(who) && listed(routing.toSidecars, who, overlay.inlineAnnotators);
  const explicit = routing.inline !== undefined || routing.toSidecars !== undefined;
  /** Where a changed or new label of `who` goes when `routing` does not say. */
  const defaultRoute = (who: string): 'sidecar' | 'inline' => (sidecarOf.has(who) || (overlay.usesSidecars && !overlay.inlineAnnotators.has(who)) ? 'sidecar' : 'inline');
  const problems: LabelProblem[] = [];
  const changes = new Map<string, Map<string, EntryChange>>();
  const change = (who: string, key: string, c: EntryChange) => {
    let m = changes.get(who);
    if (!m) changes.set(who, (m = new Map()));
    m.set(key, c);
  };

  const studyItems = items.map((neu, i) => {
    const old = overlay.items[i];
    const inlineItem = overlay.inline[i];
    if (neu.id !== old.id) throw new RangeError(`${overlay.file}: item ${i} is ${JSON.stringify(neu.id)}, expected ${JSON.stringify(old.id)}`);
    if (neu === old && !explicit) return inlineItem;
    const oldById = new Map<string, Candidate>();
    for (const c of old.candidates) if (!oldById.has(c.id)) oldById.set(c.id, c);
    const inlineById = new Map<string, Candidate>();
    for (const c of inlineItem.candidates) if (!inlineById.has(c.id)) inlineById.set(c.id, c);
    const done = new Set<string>();
    let replaced = false;
    const candidates = neu.candidates.map((nc, ci) => {
      // A second candidate with an id (ids are unique within an item) is not one sidecars can address: kept inline.
      if (done.has(nc.id)) return nc;
      done.add(nc.id);
      const oc = oldById.get(nc.id);
      const ic = inlineById.get(nc.id);
      const key = keyOf(neu.id, nc.id);
      const fromSidecar = (who: string) => overlay.placed.get(who)?.get(key);
      const touches = (who: string) => toInline(who) || toSidecar(who);
      const wanted = nc.annotations ?? [];
      if (oc && (nc.annotations === oc.annotations || same(wanted, oc.annotations)) && !wanted.some((a) => touches(a.annotator))) {
        // Labels as they were: the study keeps its own, the sidecars theirs.
        if (oc === ic) return nc;
        replaced = true;
        return { ...nc, annotations: ic!.annotations };
      }
      const conflict = (who: string) => overlay.conflicts.get(`${who}\u0000${key}`);
      const inlineList: Annotation[] = [];
      const toWrite = new Map<string, { annotation: Annotation; pos: number }>();
      wanted.forEach((a, pos) => {
        const who = a.annotator;
        const s = fromSidecar(who);
        let route: 'sidecar' | 'inline';
        if (toInline(who)) route = 'inline';
        else if (toSidecar(who)) route = 'sidecar';
        else if (s && same(a, s.annotation)) route = 'sidecar';
        else if (ic?.annotations.some((x) => x.annotator === who && same(x, a))) route = 'inline';
        else route = defaultRoute(who);
        const c = conflict(who);
        if (c && (route === 'sidecar' || !ic?.annotations.some((x) => x.annotator === who && same(x, a)))) {
          problems.push(c);
          return;
        }
        if (route === 'inline') return inlineList.push(a);
        if (toWrite.has(who)) {
          problems.push({
            file: overlay.file,
            line: overlay.itemLines[i] + 1,
            field: `candidates[${ci}].annotations[${pos}]`,
            code: 'duplicate',
            message: `${who} has two annotations on this candidate: a sidecar holds one per candidate (remove one, then write again)`,
          });
          return;
        }
        toWrite.set(who, { annotation: a, pos });
      });
      // Sidecar lines of this candidate whose label is gone (removed, or moved back inline).
      for (const [who, m] of overlay.placed) if (m.has(key) && !toWrite.has(who)) change(who, key, null);
      // The positions. A split or join keeps the order exactly: no index on lines written anyway, else as the lines
      // say, else (if that does not give `wanted`) each written line at its place, else every line at its place (which
      // always gives `wanted`). Any other write keeps each line's index as it is and gives a new line none: the order
      // of a candidate's annotations means nothing to any reader, and an index that depends on other annotators'
      // labels would make merges of their files reorder each other's.
      const annotators = [...toWrite.keys()].sort((a, b) => byName(sidecarFileName(a), sidecarFileName(b)));
      const rewrites = (who: string) => {
        const s = fromSidecar(who);
        return !s || !same(s.annotation, toWrite.get(who)!.annotation);
      };
      const attempts: ((who: string) => number | undefined)[] = [
        (who) => (rewrites(who) ? undefined : fromSidecar(who)?.index),
        (who) => fromSidecar(who)?.index,
        (who) => (rewrites(who) ? toWrite.get(who)!.pos : fromSidecar(who)?.index),
        (who) => toWrite.get(who)!.pos,
      ];
      let indexOf = explicit ? attempts[3] : attempts[1];
      if (explicit) for (const attempt of attempts) {
        const got = layOver(inlineList, annotators.map((who) => ({ annotation: toWrite.get(who)!.annotation, index: attempt(who) })));
        if (same(got, wanted)) {
          indexOf = attempt;
          break;
        }
      }
      for (const who of annotators) {
        const s = fromSidecar(who);
        const { annotation } = toWrite.get(who)!;
        const index = indexOf(who);
        if (!s || !same(s.annotation, annotation) || s.index !== index) change(who, key, { annotation, ...(index !== undefined ? { index } : {}) });
      }
      const keep = ic && same(inlineList, ic.annotations) ? ic.annotations : inlineList;
      if (keep === nc.annotations) return nc;
      replaced = true;
      return { ...nc, annotations: keep };
    });
    if (!replaced) return neu === old ? inlineItem : neu;
    return { ...neu, candidates };
  });

  // Going back inline: every line of the annotator's sidecar must be one of the study's labels, or it would be left behind.
  for (const who of sidecarOf.keys()) {
    if (!toInline(who)) continue;
    const sc = sidecarOf.get(who)!;
    const placedHere = overlay.placed.get(who);
    problems.push(...sc.problems.map((p) => ({ ...p, message: `${p.message}; ${who}'s labels cannot all go back inline while this line is here` })));
    for (const e of sc.entries) {
      if (placedHere?.get(keyOf(e.item, e.candidate)) === e) continue;
      const known = overlay.problems.find((p) => p.file === sc.file && p.line === e.lineIndex + 1);
      if (known) problems.push({ ...known, message: `${known.message}; ${who}'s labels cannot all go back inline while this line is here` });
    }
  }
  const sidecars: SidecarWrite[] = [];
  const existing = new Map((overlay.sidecars?.files ?? []).map((s) => [s.name.toLowerCase(), s.name]));
  let rank: Map<string, number> | undefined;
  const rankOf = (item: string, candidate: string) => {
    if (!rank) {
      rank = new Map();
      let n = 0;
      for (const it of items) for (const c of it.candidates) if (!rank.has(keyOf(it.id, c.id))) rank.set(keyOf(it.id, c.id), n++);
    }
    return rank.get(keyOf(item, candidate));
  };
  // A sidecar going back inline that no line changes (it holds no label) is removed too.
  for (const who of sidecarOf.keys()) if (toInline(who) && !changes.has(who)) changes.set(who, new Map());
  for (const [who, m] of [...changes].sort((a, b) => byName(sidecarFileName(a[0]), sidecarFileName(b[0])))) {
    const sc = sidecarOf.get(who);
    const name = sc?.name ?? sidecarFileName(who);
    const file = `${overlay.sidecars?.folder ?? labelsFolderOf(overlay.file)}/${name}`;
    if (!sc) {
      const clash = existing.get(name.toLowerCase());
      if (clash !== undefined && clash !== name) {
        problems.push({ file, line: 1, code: 'fileName', message: `${who}'s sidecar would be ${name}, which differs from ${clash} only in case: the two are one file on macOS and Windows` });
        continue;
      }
      existing.set(name.toLowerCase(), name);
      const lines = [...m].filter(([, c]) => c !== null).map(([key, c]) => {
        const [item, candidate] = key.split('\u0000');
        return { r: rankOf(item, candidate) ?? Infinity, text: sidecarLineText(item, candidate, c!.index, c!.annotation) };
      });
      lines.sort((a, b) => a.r - b.r);
      if (lines.length) sidecars.push({ name, file, annotator: who, bytes: encodeUtf8(lines.map((l) => `${l.text}\n`).join('')), created: true, linesChanged: lines.length });
      continue;
    }
    const written = rewriteSidecar(sc, overlay.placed.get(who) ?? new Map(), m, rankOf);
    const empty = toInline(who) && /^[\s\uFEFF]*$/.test(decodeUtf8Lossy(written.bytes));
    if (written.linesChanged > 0 || empty) sidecars.push({ name, file, annotator: who, bytes: empty ? null : written.bytes, created: false, linesChanged: written.linesChanged });
  }
  if (problems.length) {
    const seen = new Set<string>();
    throw new LabelWriteError(problems.filter((p) => !seen.has(`${p.file}:${p.line}:${p.field}`) && seen.add(`${p.file}:${p.line}:${p.field}`)));
  }
  return { studyItems, sidecars };
}

/** A sidecar's bytes after changes: lines that do not change keep their bytes; new lines go in the study's order. */
function rewriteSidecar(sc: LabelSidecar, placed: ReadonlyMap<string, SidecarEntry>, m: ReadonlyMap<string, EntryChange>, rankOf: (item: string, candidate: string) => number | undefined): { bytes: Uint8Array; linesChanged: number } {
  const byLine = new Map<number, SidecarEntry>();
  for (const e of placed.values()) byLine.set(e.lineIndex, e);
  const inserts: { r: number; text: string }[] = [];
  for (const [key, c] of m) {
    if (placed.has(key) || c === null) continue;
    const [item, candidate] = key.split('\u0000');
    inserts.push({ r: rankOf(item, candidate) ?? Infinity, text: sidecarLineText(item, candidate, c.index, c.annotation) });
  }
  inserts.sort((a, b) => a.r - b.r);
  const eol = sc.lines.some((l) => l.eol === '\r\n') ? '\r\n' : '\n';
  const parts: Uint8Array[] = [];
  let open = false; // the last part written ends without a line ending
  let next = 0;
  let linesChanged = 0;
  const insert = (text: string) => {
    if (open) parts.push(encodeUtf8(eol));
    parts.push(encodeUtf8(text + eol));
    open = false;
    linesChanged++;
  };
  sc.lines.forEach((raw, i) => {
    const e = byLine.get(i);
    const r = e ? rankOf(e.item, e.candidate) : undefined;
    if (r !== undefined) while (next < inserts.length && inserts[next].r < r) insert(inserts[next++].text);
    const c = e ? m.get(keyOf(e.item, e.candidate)) : undefined;
    if (e && c === null) {
      linesChanged++;
      return;
    }
    if (open) parts.push(encodeUtf8(eol));
    if (e && c) {
      parts.push(encodeUtf8(sidecarLineText(e.item, e.candidate, c.index, c.annotation, e.value) + raw.eol));
      linesChanged++;
    } else if (raw.bytes && raw.byteOffset !== undefined) parts.push(sc.bytes.subarray(raw.byteOffset, raw.byteOffset + raw.bytes.length + raw.eol.length));
    else parts.push(encodeUtf8(raw.text + raw.eol));
    open = raw.eol === '';
  });
  while (next < inserts.length) insert(inserts[next++].text);
  return { bytes: concatBytes(parts), linesChanged };
}
