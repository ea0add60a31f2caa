/**
 * The team jobs (issue 44; docs/labelling.md, "A study for a team"): `assign` writes one blind packet per annotator
 * into a folder and never touches the study; `collect` brings the packets' labels back, all or nothing. Both programs
 * run them — the CLI's `reflect-eval assign|collect` and the editor's *Assign Packets…* / *Collect Packets…* — so
 * a packet made in one is collected by the other. The work is core/team's; these turn a plan into it.
 */
import { existsSync, readFileSync } from 'node:fs';
import { basename, isAbsolute, resolve } from 'node:path';
import { failFor, isObject, rejectUnknownFields } from '../config';
import { labelPlanRecordPath } from '../planning/planView';
import { planLabels, type LabelPlanRecord } from '../planning/planner';
import { loadRubric } from '../rubric/rubricFile';
import { collectPackets } from '../team/collect';
import { readPacket, writePackets } from '../team/packetFiles';
import { assignPackets, type PacketOrder } from '../team/packets';
import type { DialogueItem } from '../dialogue/types';
import type { ItemSink, JobHost, JobReport, JobTarget } from './host';
import { updatesFor } from './memorySink';

const ORDERS: readonly PacketOrder[] = ['shuffled', 'file', 'plan'];

/** Hand a study to a team: one packet per annotator, its rubric and a manifest, written into `out`. */
export interface AssignPlan {
  job?: 'assign';
  /** Annotator ids, one packet each (at least one, no repeats). */
  annotators: string[];
  /** Annotators per candidate, balanced across annotators (default: all of them). */
  labelsPerCandidate?: number;
  /** Seed of the assignment and the shuffled orders (default "0"). */
  seed?: string;
  /** Hide origins, scores, the reference and real ids (default true). */
  blind?: boolean;
  /** Item order in each packet (default `shuffled`, per annotator; `plan`: the labelling plan beside the study). */
  order?: PacketOrder;
  /** The folder the packets go into (may exist); relative to the host's base folder. */
  out: string;
}

/** Bring labels back from packets: only label fields of each packet's own annotator on the candidates it was given. */
export interface CollectPlan {
  job?: 'collect';
  /** Packet files (`*.jsonl` beside their `*.packet.json` manifests); relative to the host's base folder. */
  packets: string[];
  /** Check and report, apply nothing. */
  dryRun?: boolean;
}

/**
 * Checks an assign plan.
 *
 * @throws ConfigError naming the source and the field
 */
export function validateAssignPlan(value: unknown, source: string): AssignPlan {
  const fail = failFor(source);
  if (!isObject(value)) fail('(root)', 'must be a JSON object like {"annotators": ["E1", "E2", "E3"], "out": "packets"}');
  const v = value as Record<string, unknown>;
  rejectUnknownFields(v, ['job', 'annotators', 'labelsPerCandidate', 'seed', 'blind', 'order', 'out'], '', fail);
  if (v.job !== undefined && v.job !== 'assign') fail('job', 'must be "assign" for an assign plan');
  if (!Array.isArray(v.annotators) || v.annotators.length === 0 || !v.annotators.every((a) => typeof a === 'string' && a.trim() !== '')) fail('annotators', 'must be a non-empty list of annotator ids');
  if (new Set(v.annotators as string[]).size !== (v.annotators as string[]).length) fail('annotators', 'lists an annotator twice');
  if (v.labelsPerCandidate !== undefined && !(Number.isInteger(v.labelsPerCandidate) && (v.labelsPerCandidate as number) >= 1 && (v.labelsPerCandidate as number) <= (v.annotators as string[]).length)) fail('labelsPerCandidate', `must be an integer from 1 to the number of annotators (${(v.annotators as string[]).length})`);
  if (v.seed !== undefined && typeof v.seed !== 'string') fail('seed', 'must be a string');
  if (v.blind !== undefined && typeof v.blind !== 'boolean') fail('blind', 'must be true or false');
  if (v.order !== undefined && !ORDERS.includes(v.order as PacketOrder)) fail('order', `must be one of ${ORDERS.join(', ')}`);
  if (typeof v.out !== 'string' || v.out === '') fail('out', 'must be the folder to write the packets into');
  return value as AssignPlan;
}

/**
 * Checks a collect plan.
 *
 * @throws ConfigError naming the source and the field
 */
export function validateCollectPlan(value: unknown, source: string): CollectPlan {
  const fail = failFor(source);
  if (!isObject(value)) fail('(root)', 'must be a JSON object like {"packets": ["packets/study.E1.jsonl"]}');
  const v = value as Record<string, unknown>;
  rejectUnknownFields(v, ['job', 'packets', 'dryRun'], '', fail);
  if (v.dryRun !== undefined && typeof v.dryRun !== 'boolean') fail('dryRun', 'must be true or false');
  if (v.job !== undefined && v.job !== 'collect') fail('job', 'must be "collect" for a collect plan');
  if (!Array.isArray(v.packets) || v.packets.length === 0 || !v.packets.every((p) => typeof p === 'string' && p !== '')) fail('packets', 'must be a non-empty list of packet files');
  return value as CollectPlan;
}

const inBase = (host: JobHost, path: string) => (isAbsolute(path) ? path : resolve(host.baseDir, path));

/** The labelling plan's order of (item, candidate) beside the study, for `order: "plan"`. */
function planOrderOf(file: string, items: readonly DialogueItem[]): string[] {
  const path = labelPlanRecordPath(file);
  if (!existsSync(path)) throw new Error(`order plan: ${basename(path)} is missing beside the study (start one with reflect-eval plan-labels or Plan Labels…)`);
  const record = JSON.parse(readFileSync(path, 'utf8')) as LabelPlanRecord;
  // The order comes from the design's draws and the working model; the target only decides when to stop.
  return planLabels(items, record, { target: { halfWidth: 0.1 } }).order.map((e) => `${e.itemId}\u0000${e.candidateId}`);
}

/**
 * Writes the packets; the study is not changed.
 *
 * @returns a report with one line per annotator (items, candidates, packet file) and every file written
 * @throws Error from assignPackets (too few candidates, a bad overlap) or a missing plan record for `order: "plan"`
 */
export async function runAssignPlan(plan: AssignPlan, target: JobTarget, host: JobHost, _sink?: ItemSink): Promise<JobReport> {
  const started = Date.now();
  const { rubric } = loadRubric(target.file);
  const order = plan.order ?? 'shuffled';
  const blind = plan.blind ?? true;
  const packets = assignPackets(target.items, rubric, basename(target.file), {
    annotators: plan.annotators,
    labelsPerCandidate: plan.labelsPerCandidate,
    seed: plan.seed ?? '0',
    blind,
    order,
    planOrder: order === 'plan' ? planOrderOf(target.file, target.items) : undefined,
  });
  const written = writePackets(inBase(host, plan.out), basename(target.file), packets, rubric);
  const lines = written.map((w, i) => {
    const candidates = Object.values(packets[i].manifest.items).reduce((s, m) => s + Object.keys(m.candidates).length, 0);
    return `${w.annotator}: ${packets[i].items.length} items, ${candidates} candidates → ${w.packet}`;
  });
  lines.push(`assigned ${basename(target.file)} to ${plan.annotators.length} annotators (${packets[0].manifest.assignment.labelsPerCandidate} per candidate, ${blind ? 'blind' : 'not blind'}) in ${Date.now() - started} ms`);
  return { job: 'assign', lines, warnings: [], files: written.flatMap((w) => [w.packet, w.rubric, w.manifest]) };
}

/**
 * Brings the packets' labels back through the sink (so the editor's undo and the CLI's byte-preserving write, label
 * sidecars included, apply as for every job). All or nothing: any problem refuses the whole collect.
 *
 * @throws Error listing every problem with file, line and field when a packet changed anything besides labels, an
 *   annotator comes twice, or a packet is another study's — nothing is applied then
 */
export async function runCollectPlan(plan: CollectPlan, target: JobTarget, host: JobHost, sink: ItemSink): Promise<JobReport> {
  const { rubric } = loadRubric(target.file);
  const packets = plan.packets.map((p) => readPacket(inBase(host, p)));
  const result = collectPackets(target.items, rubric, basename(target.file), packets);
  if (result.problems.length > 0) {
    const list = result.problems.map((p) => `${p.file}:${p.line}: ${p.field}: ${p.message}`).join('\n');
    throw new Error(`collect refused: ${result.problems.length} problem(s) in ${new Set(result.problems.map((p) => p.file)).size} file(s); ${basename(target.file)} is unchanged\n${list}`);
  }
  const changed = new Set(result.changes.map((c) => c.item));
  const after = new Map(result.items.map((it) => [it.id, it]));
  if (!plan.dryRun) await sink.apply(updatesFor([...changed], (id) => after.get(id)!));
  const byAnnotator = new Map<string, number>();
  for (const c of result.changes) byAnnotator.set(c.annotator, (byAnnotator.get(c.annotator) ?? 0) + 1);
  const lines = [
    ...result.changes.map((c) => `${c.annotator}: ${c.item} / ${c.candidate}: ${c.fields.join(', ')}`),
    ...result.left.map((l) => `not applied: ${l.annotator}'s label on ${l.item} / ${l.candidate}: ${l.why}`),
    `${result.changes.length} candidate label(s) changed (${packets.map((p) => `${p.manifest.annotator} ${byAnnotator.get(p.manifest.annotator) ?? 0}`).join(', ')}); ${result.left.length} not applied${plan.dryRun ? '; dry run, nothing written' : ''}`,
  ];
  return { job: 'collect', lines, warnings: [] };
}
