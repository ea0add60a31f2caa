/**
 * A study for a team (issue 44): one **packet** per annotator — a dialogue file holding each assigned item's
 * context and candidates' text and only what that annotator may see — beside the study's rubric and a **manifest**
 * that maps the packet's ids back and ties it to the study. The seeds' protocol has every annotator label the same
 * responses blind to their source and to each other (first study §4.1.2; ACL 2023 §3): a blind packet holds no
 * origin, score, reference, provenance or other annotator's label, and its item and candidate ids reveal nothing, so
 * an annotator who opens it as text, or in another tool, is blind too.
 *
 * Assign never writes to the study: it is a pure function from the study's items to packets; `collect.ts` brings
 * the labels back.
 */
import { createHash } from 'node:crypto';
import seedrandom from 'seedrandom';
import type { Annotation, Candidate, DialogueItem } from '../dialogue/types';
import { blindCandidateId, blindOrder } from '../labels/annotatorView';
import { shuffled } from '../stats/shuffle';
import type { Rubric } from '../rubric/rubric';

/** The manifest's format name and version. */
export const PACKET_FORMAT = 'reflect-eval-packet';
export const PACKET_VERSION = 1;

/** In which order a packet lists its items and an item its candidates. */
export type PacketOrder = 'file' | 'shuffled' | 'plan';

/** What `assign` is asked for. */
export interface AssignOptions {
  /** Annotator ids, distinct; each gets one packet. */
  annotators: readonly string[];
  /** How many annotators label each candidate, 1…n (default: all of them). */
  labelsPerCandidate?: number;
  /** Seed of the assignment and of the shuffled orders (default 0). */
  seed?: number | string;
  /** Hide origins, scores, the reference, provenance and real ids (default true: the seeds' protocol). */
  blind?: boolean;
  /** Item order: the study's (`file`), seeded per annotator (`shuffled`, default), or `plan` (give `planOrder`). */
  order?: PacketOrder;
  /** With `order: plan`: candidate keys `<item id>\u0000<candidate id>` in the labelling plan's order. */
  planOrder?: readonly string[];
  /** Candidates to leave out (e.g. the item's reference, which is never labelled): true to skip. */
  skip?: (item: DialogueItem, candidate: Candidate) => boolean;
}

/** How one packet item maps back to the study. */
export interface PacketItemMap {
  /** The study's item id. */
  item: string;
  /** SHA-256 of the item's context as assigned (speaker and text of each turn), to recognise the study. */
  context: string;
  /** Packet candidate id → the study's candidate id and a SHA-256 of its text as assigned. */
  candidates: Record<string, { id: string; text: string }>;
}

/** The manifest beside a packet (`<packet>.packet.json`): what ties it to the study. */
export interface PacketManifest {
  format: typeof PACKET_FORMAT;
  version: number;
  annotator: string;
  /** The study file's name and a fingerprint of its items and candidate texts at assign time. */
  study: { file: string; fingerprint: string };
  blind: boolean;
  assignment: { annotators: string[]; labelsPerCandidate: number; seed: number | string; order: PacketOrder };
  /** The rubric the packet is labelled with (its name; the rubric itself is the packet's `*.rubric.json`). */
  rubric: string;
  /** Packet item id → the study. */
  items: Record<string, PacketItemMap>;
  /**
   * Packet item id → the packet's item as assign wrote it without its annotations: collect refuses a packet whose
   * content other than the annotator's labels differs from this, naming the field.
   */
  skeletons: Record<string, unknown>;
  createdAt: string;
}

/** One annotator's packet: its items (a dialogue file's lines) and its manifest. */
export interface Packet {
  annotator: string;
  items: DialogueItem[];
  manifest: PacketManifest;
}

const sha = (s: string) => createHash('sha256').update(s).digest('hex');

/** SHA-256 of a context's turns (speaker and text), the part of an item a packet must agree on with the study. */
export function contextFingerprint(item: Pick<DialogueItem, 'context'>): string {
  return sha(JSON.stringify(item.context.map((t) => [t.speaker, t.text])));
}

/** SHA-256 of a candidate's text. */
export function textFingerprint(text: string): string {
  return sha(text);
}

/** A fingerprint of a study's items and candidate texts: ids, contexts and texts, in file order. */
export function studyFingerprint(items: readonly DialogueItem[]): string {
  const h = createHash('sha256');
  for (const it of items) {
    h.update(JSON.stringify([it.id, contextFingerprint(it)]));
    for (const c of it.candidates) h.update(JSON.stringify([c.id, textFingerprint(c.text)]));
  }
  return h.digest('hex');
}

/** The opaque id of a study item in a blind packet: `item-` and 10 hex digits of a hash of annotator and item. */
export function blindItemId(itemId: string, annotator: string): string {
  return `item-${sha(`packet-item\u0000${annotator}\u0000${itemId}`).slice(0, 10)}`;
}

/**
 * Which annotators label each candidate: every candidate goes to `k` of the `n` annotators, chosen greedily in a
 * seeded order of the candidates — the annotators with the fewest candidates so far, then the fewest candidates
 * shared with those already chosen for this one, then a seeded draw — so that each annotator gets ⌊N·k/n⌋ or
 * ⌈N·k/n⌉ candidates and every pair of annotators shares about the same number (what agreement needs).
 *
 * @param keys - candidate keys, in the study's order
 * @returns candidate key → annotator indexes (sorted)
 * @throws RangeError unless 1 ≤ k ≤ n
 */
export function overlapDesign(keys: readonly string[], n: number, k: number, seed: number | string): Map<string, number[]> {
  if (!Number.isInteger(n) || n < 1) throw new RangeError(`need at least one annotator, got ${n}`);
  if (!Number.isInteger(k) || k < 1 || k > n) throw new RangeError(`labels per candidate must be an integer from 1 to ${n} (the number of annotators), got ${k}`);
  const rng = seedrandom(`assign\u0000${seed}`);
  const load = new Array<number>(n).fill(0);
  const shared = Array.from({ length: n }, () => new Array<number>(n).fill(0));
  const out = new Map<string, number[]>();
  for (const key of shuffled(keys, rng)) {
    const chosen: number[] = [];
    while (chosen.length < k) {
      let best = -1;
      let bestKey: [number, number, number] = [Infinity, Infinity, Infinity];
      for (let a = 0; a < n; a++) {
        if (chosen.includes(a)) continue;
        const key3: [number, number, number] = [load[a], chosen.reduce((s, b) => s + shared[a][b], 0), rng()];
        if (key3[0] < bestKey[0] || (key3[0] === bestKey[0] && (key3[1] < bestKey[1] || (key3[1] === bestKey[1] && key3[2] < bestKey[2])))) {
          best = a;
          bestKey = key3;
        }
      }
      for (const b of chosen) {
        shared[best][b]++;
        shared[b][best]++;
      }
      load[best]++;
      chosen.push(best);
    }
    out.set(key, chosen.sort((x, y) => x - y));
  }
  return out;
}

/** The label fields an annotation may carry in a packet: the rubric's dimensions, most-evident fields, and bookkeeping. */
export function labelFields(rubric: Rubric): Set<string> {
  const f = new Set(['annotator', 'updatedAt', 'stashed']);
  for (const d of rubric.dimensions) {
    f.add(d.name);
    if (d.type === 'multiSelect' && d.mostEvident) f.add(d.mostEvident.name);
  }
  return f;
}

/** The annotator's own annotation, reduced to its label fields (what a packet shows and collect brings back). */
function ownLabels(c: Candidate, annotator: string, fields: Set<string>): Annotation[] {
  const a = c.annotations.find((x) => x.annotator === annotator);
  if (!a) return [];
  return [Object.fromEntries(Object.entries(a).filter(([k]) => fields.has(k))) as Annotation];
}

/**
 * Builds one packet per annotator (see the module comment). Items an annotator has no candidate of are left out of
 * their packet. In a blind packet a candidate's origin is `{"kind": "hidden"}`.
 *
 * @param studyFile - the study's file name, recorded in the manifests
 * @throws RangeError for no annotators, a repeated annotator, a bad `labelsPerCandidate`, or `order: plan` without a plan
 */
export function assignPackets(items: readonly DialogueItem[], rubric: Rubric, studyFile: string, options: AssignOptions, now: Date = new Date()): Packet[] {
  const annotators = [...options.annotators];
  if (annotators.length === 0) throw new RangeError('name at least one annotator');
  const dup = annotators.find((a, i) => annotators.indexOf(a) !== i);
  if (dup !== undefined) throw new RangeError(`annotator ${JSON.stringify(dup)} is named twice`);
  if (annotators.some((a) => !a.trim())) throw new RangeError('an annotator id is empty');
  const k = options.labelsPerCandidate ?? annotators.length;
  const seed = options.seed ?? 0;
  const blind = options.blind ?? true;
  const order = options.order ?? 'shuffled';
  if (order === 'plan' && !options.planOrder) throw new RangeError('order "plan" needs the labelling plan\'s order');
  const keyOf = (it: DialogueItem, c: Candidate) => `${it.id}\u0000${c.id}`;
  const keys = items.flatMap((it) => it.candidates.filter((c) => !options.skip?.(it, c)).map((c) => keyOf(it, c)));
  const design = overlapDesign(keys, annotators.length, k, seed);
  const fields = labelFields(rubric);
  const fingerprint = studyFingerprint(items);
  const planRank = new Map((options.planOrder ?? []).map((key, i) => [key, i]));
  return annotators.map((annotator, a) => {
    const packetItems: DialogueItem[] = [];
    const maps: Record<string, PacketItemMap> = {};
    const skeletons: Record<string, unknown> = {};
    const rank = new Map<string, number>();
    for (const it of items) {
      const mine = it.candidates.filter((c) => design.get(keyOf(it, c))?.includes(a));
      if (mine.length === 0) continue;
      const itemId = blind ? blindItemId(it.id, annotator) : it.id;
      const ids = blind ? blindOrder(it.id, mine.map((c) => c.id), annotator) : order === 'plan' ? [...mine].sort((x, y) => (planRank.get(keyOf(it, x)) ?? Infinity) - (planRank.get(keyOf(it, y)) ?? Infinity)).map((c) => c.id) : mine.map((c) => c.id);
      const byId = new Map(mine.map((c) => [c.id, c]));
      const candidates: Candidate[] = ids.map((id) => {
        const c = byId.get(id)!;
        const pid = blind ? blindCandidateId(it.id, c.id, annotator) : c.id;
        return blind ? { id: pid, text: c.text, origin: { kind: 'hidden' }, annotations: ownLabels(c, annotator, fields), scores: {} } : { ...c, id: pid, annotations: ownLabels(c, annotator, fields) };
      });
      const item: DialogueItem = blind ? { id: itemId, context: it.context, candidates } : { ...it, candidates };
      packetItems.push(item);
      maps[itemId] = {
        item: it.id,
        context: contextFingerprint(it),
        candidates: Object.fromEntries(ids.map((id) => [blind ? blindCandidateId(it.id, id, annotator) : id, { id, text: textFingerprint(byId.get(id)!.text) }])),
      };
      skeletons[itemId] = { ...item, candidates: item.candidates.map(({ annotations: _, ...c }) => c) };
      rank.set(itemId, Math.min(...mine.map((c) => planRank.get(keyOf(it, c)) ?? Infinity)));
    }
    const ordered =
      order === 'shuffled' ? shuffled(packetItems, seedrandom(`packet-order\u0000${seed}\u0000${annotator}`)) : order === 'plan' ? [...packetItems].sort((x, y) => rank.get(x.id)! - rank.get(y.id)!) : packetItems;
    return {
      annotator,
      items: ordered,
      manifest: {
        format: PACKET_FORMAT,
        version: PACKET_VERSION,
        annotator,
        study: { file: studyFile, fingerprint },
        blind,
        assignment: { annotators, labelsPerCandidate: k, seed, order },
        rubric: rubric.name,
        items: maps,
        skeletons,
        createdAt: now.toISOString(),
      },
    };
  });
}
