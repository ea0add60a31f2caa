/**
 * `reflect-eval assign`, `collect` and `progress`: a study handed to a team as one blind packet per annotator, their
 * labels brought back all or nothing, and the team's progress with the agreement so far (issue 44;
 * src/core/team/; docs/labelling.md, "A study for a team").
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { basename, resolve } from 'node:path';
import type { Command } from 'commander';
import { readStudy, studyProblemMessages, writeStudyBack } from '../../core/format/studyFiles';
import { documentItems } from '../../core/format/jsonl';
import { labelPlanRecordPath } from '../../core/planning/planView';
import { planLabels, type LabelPlanRecord } from '../../core/planning/planner';
import { loadRubric } from '../../core/rubric/rubricFile';
import { collectPackets } from '../../core/team/collect';
import { readPacket, writePackets } from '../../core/team/packetFiles';
import { assignPackets, type PacketManifest, type PacketOrder } from '../../core/team/packets';
import { teamProgress } from '../../core/team/progress';
import { log } from '../common';

function planOrder(file: string, items: ReturnType<typeof documentItems>): string[] {
  const path = labelPlanRecordPath(file);
  if (!existsSync(path)) throw new Error(`--order plan: ${basename(path)} is missing beside the study (start one with reflect-eval plan-labels)`);
  const record = JSON.parse(readFileSync(path, 'utf8')) as LabelPlanRecord;
  // The order comes from the design's draws and the working model; the target only decides when to stop.
  return planLabels(items, record, { target: { halfWidth: 0.1 } }).order.map((e) => `${e.itemId}\u0000${e.candidateId}`);
}

export function registerTeam(program: Command): void {
  program
    .command('assign <study>')
    .description('hand a study to a team: one packet per annotator (a dialogue file with only what that annotator may see), its rubric and a manifest, written into a folder; the study is not changed')
    .requiredOption('--annotators <ids>', 'annotator ids, comma-separated (E1,E2,E3)')
    .option('-k, --labels-per-candidate <k>', 'annotators per candidate, balanced across annotators (default: all)', (v) => Number(v))
    .option('--seed <seed>', 'seed of the assignment and the shuffled orders', '0')
    .option('--no-blind', 'keep origins, scores, the reference and real ids in the packets (default: blind)')
    .option('--order <order>', 'item order in each packet: shuffled (per annotator), file, or plan (the labelling plan beside the study)', 'shuffled')
    .requiredOption('-o, --out <folder>', 'the folder to write the packets into (may exist)')
    .action((study: string, opts: { annotators: string; labelsPerCandidate?: number; seed: string; blind: boolean; order: string; out: string }) => {
      const file = resolve(study);
      const started = Date.now();
      const opened = readStudy(file);
      const { doc, items } = opened;
      for (const m of opened.overlay.problems) log(`${m.file}:${m.line}: ${m.field ? `${m.field}: ` : ''}${m.message}`);
      const { rubric } = loadRubric(file);
      if (!['shuffled', 'file', 'plan'].includes(opts.order)) throw new Error(`--order must be shuffled, file or plan, got ${JSON.stringify(opts.order)}`);
      const annotators = opts.annotators.split(',').map((a) => a.trim()).filter(Boolean);
      const packets = assignPackets(items, rubric, basename(file), {
        annotators,
        labelsPerCandidate: opts.labelsPerCandidate,
        seed: opts.seed,
        blind: opts.blind,
        order: opts.order as PacketOrder,
        planOrder: opts.order === 'plan' ? planOrder(file, items) : undefined,
      });
      const written = writePackets(resolve(opts.out), basename(file), packets, rubric);
      for (const [i, w] of written.entries()) {
        const candidates = Object.values(packets[i].manifest.items).reduce((s, m) => s + Object.keys(m.candidates).length, 0);
        process.stdout.write(`${w.annotator}: ${packets[i].items.length} items, ${candidates} candidates → ${w.packet}\n`);
      }
      log(`assigned ${basename(file)} to ${annotators.length} annotators (${packets[0].manifest.assignment.labelsPerCandidate} per candidate, ${opts.blind ? 'blind' : 'not blind'}) in ${Date.now() - started} ms`);
      if (doc.problems.length) log(`${doc.problems.length} problem line(s) of the study are not items and are not in any packet (the first: line ${doc.problems[0].line}: ${doc.problems[0].message})`);
    });

  program
    .command('collect <study> <packets...>')
    .description('bring the annotators\' labels back from their packets: all or nothing — any change besides labels, an annotator twice, or a packet of another study refuses the whole collect and leaves the study untouched')
    .option('--dry-run', 'check and report, write nothing')
    .action((study: string, packetFiles: string[], opts: { dryRun?: boolean }) => {
      const file = resolve(study);
      const opened = readStudy(file);
      for (const m of studyProblemMessages(opened)) log(m);
      const { rubric } = loadRubric(file);
      const packets = packetFiles.map((p) => readPacket(resolve(p)));
      const result = collectPackets(opened.items, rubric, basename(file), packets);
      if (result.problems.length > 0) {
        for (const p of result.problems) process.stderr.write(`${p.file}:${p.line}: ${p.field}: ${p.message}\n`);
        throw new Error(`collect refused: ${result.problems.length} problem(s) in ${new Set(result.problems.map((p) => p.file)).size} file(s); ${basename(file)} is unchanged`);
      }
      for (const l of result.left) process.stdout.write(`not applied: ${l.annotator}'s label on ${l.item} / ${l.candidate}: ${l.why}\n`);
      const byAnnotator = new Map<string, number>();
      for (const c of result.changes) byAnnotator.set(c.annotator, (byAnnotator.get(c.annotator) ?? 0) + 1);
      for (const c of result.changes) process.stdout.write(`${c.annotator}: ${c.item} / ${c.candidate}: ${c.fields.join(', ')}\n`);
      const written = opts.dryRun ? undefined : writeStudyBack(opened, result.items, file);
      const summary = packets.map((p) => `${p.manifest.annotator} ${byAnnotator.get(p.manifest.annotator) ?? 0}`).join(', ');
      const where = written && opened.labelsFolder ? `, ${written.labelLinesChanged} sidecar line(s) changed in ${written.sidecarsWritten.length} file(s)` : '';
      process.stdout.write(`${result.changes.length} candidate label(s) changed (${summary}); ${result.left.length} not applied; ${written ? `${written.itemsChanged} item line(s) rewritten${where}` : 'dry run, nothing written'}\n`);
    });

  program
    .command('progress <study>')
    .description('the team\'s progress per annotator and dimension, and the agreement so far (Krippendorff\'s alpha) where two annotators overlap')
    .option('--packets <folder>', 'the folder assign wrote, to count each annotator\'s assigned candidates (default: every candidate)')
    .option('--format <format>', 'text or json', 'text')
    .action((study: string, opts: { packets?: string; format: string }) => {
      const file = resolve(study);
      const opened = readStudy(file);
      for (const m of opened.overlay.problems) log(`${m.file}:${m.line}: ${m.field ? `${m.field}: ` : ''}${m.message}`);
      const { items } = opened;
      const { rubric } = loadRubric(file);
      const manifests: PacketManifest[] = [];
      if (opts.packets) {
        const folder = resolve(opts.packets);
        for (const f of readdirSync(folder).filter((f) => f.endsWith('.packet.json')).sort()) {
          const m = JSON.parse(readFileSync(resolve(folder, f), 'utf8')) as PacketManifest;
          if (m.study?.file === basename(file)) manifests.push(m);
        }
        if (manifests.length === 0) throw new Error(`${opts.packets}: no packet manifest of ${basename(file)}`);
      }
      const p = teamProgress(items, rubric, manifests);
      if (opts.format === 'json') {
        process.stdout.write(`${JSON.stringify(p, null, 2)}\n`);
        return;
      }
      const dims = rubric.dimensions.map((d) => d.name);
      const lines = [`${basename(file)}: ${p.candidates} candidates, rubric ${rubric.name}`, ''];
      lines.push(['annotator', 'assigned', ...dims].join('\t'));
      for (const a of p.annotators) lines.push([a.annotator, String(a.assigned), ...a.dimensions.map((d) => String(d.labelled))].join('\t'));
      lines.push('', 'agreement so far (Krippendorff\'s alpha):');
      for (const g of p.agreement) lines.push(`  ${g.dimension} (${g.level}): ${g.alpha === null ? `undefined — ${g.undefinedReason}` : g.alpha.toFixed(3)} on ${g.overlap} candidates labelled by two or more`);
      process.stdout.write(`${lines.join('\n')}\n`);
    });
}
