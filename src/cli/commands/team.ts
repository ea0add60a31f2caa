/**
 * `reflect-eval assign`, `collect` and `progress`: a study handed to a team as one blind packet per annotator, their
 * labels brought back all or nothing, and the team's progress with the agreement so far (issue 44;
 * src/core/team/; docs/labelling.md, "A study for a team").
 */
import { readdirSync, readFileSync } from 'node:fs';
import { basename, resolve } from 'node:path';
import type { Command } from 'commander';
import { readStudy } from '../../core/format/studyFiles';
import { runPlanOnFile } from '../../core/jobs/file';
import { validateAssignPlan, validateCollectPlan } from '../../core/jobs/team';
import { loadRubric } from '../../core/rubric/rubricFile';
import type { PacketManifest } from '../../core/team/packets';
import { teamProgress } from '../../core/team/progress';
import { log } from '../common';
import { cliHost } from '../host';

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
    .action(async (study: string, opts: { annotators: string; labelsPerCandidate?: number; seed: string; blind: boolean; order: string; out: string }) => {
      // The assign job (core/jobs/team.ts), as the editor's Assign Packets… runs it.
      const plan = validateAssignPlan(
        { annotators: opts.annotators.split(',').map((a) => a.trim()).filter(Boolean), ...(opts.labelsPerCandidate !== undefined ? { labelsPerCandidate: opts.labelsPerCandidate } : {}), seed: opts.seed, blind: opts.blind, order: opts.order, out: opts.out },
        'flags',
      );
      const report = await runPlanOnFile({ ...plan, job: 'assign' }, resolve(study), cliHost());
      // One line per annotator on stdout; the summary on stderr.
      for (const line of report.lines.slice(0, -1)) process.stdout.write(`${line}\n`);
      log(report.lines.at(-1) as string);
    });

  program
    .command('collect <study> <packets...>')
    .description('bring the annotators\' labels back from their packets: all or nothing — any change besides labels, an annotator twice, or a packet of another study refuses the whole collect and leaves the study untouched')
    .option('--dry-run', 'check and report, write nothing')
    .action(async (study: string, packetFiles: string[], opts: { dryRun?: boolean }) => {
      // The collect job (core/jobs/team.ts), as the editor's Collect Packets… runs it: all or nothing.
      const plan = validateCollectPlan({ packets: packetFiles.map((p) => resolve(p)), ...(opts.dryRun ? { dryRun: true } : {}) }, 'flags');
      const report = await runPlanOnFile({ ...plan, job: 'collect' }, resolve(study), cliHost());
      const last = report.lines.length - 1;
      report.lines.forEach((line, i) => process.stdout.write(`${line}${i === last && !opts.dryRun ? `; ${report.itemsChanged ?? 0} item line(s) rewritten${report.files && report.files.length > 1 ? `, ${report.files.length - 1} sidecar file(s) written` : ''}` : ''}\n`));
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
