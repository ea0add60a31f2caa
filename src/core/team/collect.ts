/**
 * Bringing a team's labels back (issue 44 item 3): only label fields of each packet's own annotator, on candidates
 * the packet was given, land in the study. All or nothing: any other change in a packet, one annotator in two
 * packets of one call, or a packet of another study refuses the whole collect with every problem named by file,
 * line and field, and the study is left as it is. A label for a candidate that has left the study since assign
 * (removed, or its text changed) is reported and not applied; the rest land. Collecting the same packets twice
 * changes nothing; a newer packet of an annotator replaces that annotator's labels on its candidates and says
 * which changed.
 */
import { isDeepStrictEqual } from 'node:util';
import type { Annotation, DialogueItem } from '../dialogue/types';
import type { Rubric } from '../rubric/rubric';
import { labelProblem } from '../rubric/labelValues';
import { contextFingerprint, labelFields, PACKET_FORMAT, PACKET_VERSION, textFingerprint, type PacketManifest } from './packets';

/** One packet handed to collect: its file and parsed lines, and its manifest. */
export interface PacketInput {
  /** The packet file's name, used in problems. */
  file: string;
  /** The packet's items with their 1-based line numbers. */
  items: { line: number; item: DialogueItem }[];
  /** Lines of the packet that are not items (each a problem: a packet is written whole by assign). */
  problemLines?: { line: number; message: string }[];
  manifest: PacketManifest;
  /** The manifest's file name, used in problems. */
  manifestFile: string;
}

/** A problem that refuses the collect. */
export interface CollectProblem {
  file: string;
  line: number;
  field: string;
  message: string;
}

/** A label not applied because its candidate is no longer in the study as assigned. */
export interface LeftCandidate {
  annotator: string;
  item: string;
  candidate: string;
  why: string;
}

/** One candidate whose labels by one annotator changed. */
export interface LabelChange {
  annotator: string;
  item: string;
  candidate: string;
  /** The label fields that differ (added, changed or removed). */
  fields: string[];
}

/** What collect did, or why it refused. */
export interface CollectResult {
  /** Empty when the collect is refused; else the study's items (unchanged ones are the same objects). */
  items: DialogueItem[];
  problems: CollectProblem[];
  left: LeftCandidate[];
  changes: LabelChange[];
}

const BOOKKEEPING = new Set(['updatedAt']);

function labelDiff(before: Annotation | undefined, after: Annotation | undefined): string[] {
  const keys = new Set([...Object.keys(before ?? {}), ...Object.keys(after ?? {})]);
  return [...keys].filter((k) => k !== 'annotator' && !BOOKKEEPING.has(k) && !isDeepStrictEqual(before?.[k], after?.[k])).sort();
}

/** `a.b[0].c` for a path of keys and indexes. */
function fieldOf(path: readonly (string | number)[]): string {
  let out = '';
  for (const p of path) out += typeof p === 'number' ? `[${p}]` : out ? `.${p}` : p;
  return out || '(item)';
}

/** The first path where two JSON values differ, or null when they are equal. */
function firstDifference(a: unknown, b: unknown, path: (string | number)[] = []): (string | number)[] | null {
  if (isDeepStrictEqual(a, b)) return null;
  if (Array.isArray(a) && Array.isArray(b)) {
    for (let i = 0; i < Math.max(a.length, b.length); i++) {
      const d = firstDifference(a[i], b[i], [...path, i]);
      if (d) return d;
    }
    return path;
  }
  if (a && b && typeof a === 'object' && typeof b === 'object' && !Array.isArray(a) && !Array.isArray(b)) {
    for (const k of new Set([...Object.keys(a), ...Object.keys(b)])) {
      const d = firstDifference((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k], [...path, k]);
      if (d) return d;
    }
  }
  return path;
}

/**
 * Collects packets into the study's items (see the module comment). Pure: the caller writes the returned items back
 * (only changed lines), and only when `problems` is empty.
 *
 * @param studyFile - the study's file name (problems and the "another study" check name it)
 */
export function collectPackets(study: readonly DialogueItem[], rubric: Rubric, studyFile: string, packets: readonly PacketInput[], now: Date = new Date()): CollectResult {
  const problems: CollectProblem[] = [];
  const left: LeftCandidate[] = [];
  const fields = labelFields(rubric);
  const byAnnotator = new Map<string, string>();
  const studyById = new Map(study.map((it, i) => [it.id, i]));
  /** item index → candidate id → annotator → the packet's annotation (undefined: the packet has none). */
  const updates = new Map<number, Map<string, Map<string, Annotation | undefined>>>();

  for (const p of packets) {
    const m = p.manifest;
    const at = (line: number, field: string, message: string) => problems.push({ file: p.file, line, field, message });
    if (m?.format !== PACKET_FORMAT || m.version !== PACKET_VERSION || typeof m.annotator !== 'string' || !m.items || !m.skeletons) {
      problems.push({ file: p.manifestFile, line: 1, field: 'format', message: `not a packet manifest (format ${PACKET_FORMAT} version ${PACKET_VERSION})` });
      continue;
    }
    const other = byAnnotator.get(m.annotator);
    if (other !== undefined) {
      problems.push({ file: p.manifestFile, line: 1, field: 'annotator', message: `${m.annotator} is also the annotator of ${other}: one packet per annotator in a collect` });
      continue;
    }
    byAnnotator.set(m.annotator, p.file);
    for (const pl of p.problemLines ?? []) at(pl.line, '(line)', pl.message);
    // Is it this study's packet? Every mapped item still in the study must have the context it was assigned with,
    // and at least one must still be there.
    const present = Object.values(m.items).filter((x) => studyById.has(x.item));
    const foreign = present.find((x) => contextFingerprint(study[studyById.get(x.item)!]) !== x.context);
    if (present.length === 0 || foreign) {
      problems.push({
        file: p.manifestFile,
        line: 1,
        field: 'study',
        message: foreign ? `item ${foreign.item} has another context in ${studyFile} than when this packet was assigned: a packet of another study?` : `none of its items is in ${studyFile}: a packet of another study (${m.study?.file})?`,
      });
      continue;
    }
    const seen = new Set<string>();
    for (const { line, item } of p.items) {
      const map = m.items[item.id];
      if (!map) {
        at(line, 'id', `item ${JSON.stringify(item.id)} is not in the packet's manifest`);
        continue;
      }
      if (seen.has(item.id)) {
        at(line, 'id', `item ${JSON.stringify(item.id)} appears twice`);
        continue;
      }
      seen.add(item.id);
      const skeleton = m.skeletons[item.id];
      const stripped = { ...item, candidates: (item.candidates ?? []).map(({ annotations: _, ...c }) => c) };
      const diff = firstDifference(skeleton, stripped);
      if (diff) {
        at(line, fieldOf(diff), 'changed since assign: only the annotator\'s labels may change in a packet');
        continue;
      }
      const i = studyById.get(map.item);
      item.candidates.forEach((c, ci) => {
        const target = map.candidates[c.id];
        const anns = c.annotations ?? [];
        let ok = true;
        anns.forEach((a, ai) => {
          const path = `candidates[${ci}].annotations[${ai}]`;
          if (a.annotator !== m.annotator) {
            at(line, `${path}.annotator`, `only ${m.annotator}'s labels belong in this packet, got ${JSON.stringify(a.annotator)}`);
            ok = false;
            return;
          }
          for (const k of Object.keys(a)) {
            if (!fields.has(k)) {
              at(line, `${path}.${k}`, `not a label of the rubric ${rubric.name}`);
              ok = false;
            }
          }
          for (const d of rubric.dimensions) {
            const problem = labelProblem(a[d.name], d);
            if (problem) {
              at(line, `${path}.${d.name}`, problem);
              ok = false;
            }
          }
        });
        if (anns.length > 1) {
          at(line, `candidates[${ci}].annotations`, `${m.annotator} has ${anns.length} annotations on one candidate`);
          ok = false;
        }
        if (!ok) return;
        const sc = i === undefined ? undefined : study[i].candidates.find((x) => x.id === target.id);
        if (i === undefined || !sc || textFingerprint(sc.text) !== target.text) {
          if (anns.length > 0) left.push({ annotator: m.annotator, item: map.item, candidate: target.id, why: i === undefined ? 'its item is no longer in the study' : !sc ? 'it is no longer in the study' : 'its text changed since assign' });
          return;
        }
        let perItem = updates.get(i);
        if (!perItem) updates.set(i, (perItem = new Map()));
        let perCandidate = perItem.get(sc.id);
        if (!perCandidate) perItem.set(sc.id, (perCandidate = new Map()));
        perCandidate.set(m.annotator, anns[0]);
      });
    }
    for (const id of Object.keys(m.items)) if (!seen.has(id)) at(1, `items.${id}`, `item ${JSON.stringify(id)} of the manifest is missing from the packet`);
  }
  if (problems.length > 0) return { items: [], problems, left, changes: [] };

  const changes: LabelChange[] = [];
  const items = study.map((it, i) => {
    const perItem = updates.get(i);
    if (!perItem) return it;
    let changed = false;
    const candidates = it.candidates.map((c) => {
      const perCandidate = perItem.get(c.id);
      if (!perCandidate) return c;
      let annotations = c.annotations;
      for (const [annotator, fromPacket] of perCandidate) {
        const current = annotations.find((a) => a.annotator === annotator);
        // The study's annotation keeps what is not a label (its group, unknown fields); labels come from the packet.
        const rest = current ? Object.fromEntries(Object.entries(current).filter(([k]) => !fields.has(k) || k === 'annotator')) : {};
        const keepsMore = Object.keys(rest).some((k) => k !== 'annotator' && k !== 'group');
        const next: Annotation | undefined = fromPacket ? { ...rest, ...fromPacket, annotator, ...(fromPacket.updatedAt ? {} : { updatedAt: now.toISOString() }) } : keepsMore ? (rest as Annotation) : undefined;
        const diff = labelDiff(current, next);
        if (diff.length === 0) continue;
        changes.push({ annotator, item: it.id, candidate: c.id, fields: diff });
        annotations = next ? (current ? annotations.map((a) => (a === current ? next : a)) : [...annotations, next]) : annotations.filter((a) => a !== current);
      }
      if (annotations === c.annotations) return c;
      changed = true;
      return { ...c, annotations };
    });
    return changed ? { ...it, candidates } : it;
  });
  return { items, problems, left, changes };
}
