/**
 * `reflect-eval labels split|join|check <study>`: each annotator's labels in a file of their own beside the study
 * (`<study>.labels/<annotator>.jsonl`), read as if they were inline, so a team committing to one git repository
 * never conflicts (issue 44 item 4; src/core/format/labelSidecars.ts; docs/format.md, "Labels in sidecar files").
 */
import { existsSync } from 'node:fs';
import { basename, isAbsolute, relative, resolve } from 'node:path';
import type { Command } from 'commander';
import { editsFor } from '../../core/format/files';
import { labelsFolderOf, labelWrites, type LabelRouting } from '../../core/format/labelSidecars';
import { readStudy, studyProblemMessages, writeStudyBack, type Study } from '../../core/format/studyFiles';
import { log } from '../common';

const annotatorList = (v: string | undefined) => (v === undefined ? undefined : v.split(',').map((a) => a.trim()).filter(Boolean));

/** Candidates labelled by each annotator: inline in the study, and in their sidecar. */
function whereLabelsAre(study: Study): Map<string, { inline: number; sidecar: number }> {
  const out = new Map<string, { inline: number; sidecar: number }>();
  const at = (who: string) => out.get(who) ?? (out.set(who, { inline: 0, sidecar: 0 }), out.get(who)!);
  for (const it of study.overlay.inline) for (const c of it.candidates) for (const who of new Set(c.annotations.map((a) => a.annotator))) at(who).inline++;
  for (const [who, m] of study.overlay.placed) at(who).sidecar += m.size;
  return new Map([...out].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)));
}

function move(studyArg: string, routing: LabelRouting, dryRun: boolean, verb: string): void {
  const study = readStudy(resolve(studyArg));
  for (const m of studyProblemMessages(study)) log(m);
  const before = whereLabelsAre(study);
  const names = routing.toSidecars ?? routing.inline;
  if (Array.isArray(names)) {
    for (const who of names) {
      const w = before.get(who);
      if (!w || (routing.toSidecars ? w.inline : w.sidecar) === 0) log(`${who} has no labels ${routing.toSidecars ? 'inline' : 'in a sidecar'}: nothing to move`);
    }
  }
  const folder = study.labelsFolder ?? labelsFolderOf(resolve(studyArg));
  const shown = (path: string) => {
    const r = relative(process.cwd(), path);
    return r && !r.startsWith('..') && !isAbsolute(r) ? r : path;
  };
  if (dryRun) {
    const w = labelWrites(study.overlay, study.items, routing);
    for (const s of w.sidecars) process.stdout.write(`${s.file}: ${s.linesChanged} line(s) ${s.created ? 'in a new file' : 'changed'}${s.bytes === null ? ', then the file removed' : ''}\n`);
    const lines = editsFor(study.doc, w.studyItems).length;
    const folderNote = routing.toSidecars && !study.labelsFolder ? `; the labels folder ${shown(folder)}/ would be made` : '';
    process.stdout.write(`dry run: ${verb} would rewrite ${lines} item line(s) of ${basename(study.path)}${folderNote}; nothing written\n`);
    return;
  }
  const r = writeStudyBack(study, study.items, study.path, routing);
  const after = whereLabelsAre(readStudy(study.path));
  for (const [who, w] of after) {
    const b = before.get(who) ?? { inline: 0, sidecar: 0 };
    if (w.inline !== b.inline || w.sidecar !== b.sidecar) process.stdout.write(`${who}: ${b.inline} inline, ${b.sidecar} in a sidecar → ${w.inline} inline, ${w.sidecar} in a sidecar\n`);
  }
  for (const p of r.sidecarsWritten) process.stdout.write(`wrote ${shown(p)}\n`);
  for (const p of r.sidecarsRemoved) process.stdout.write(`removed ${shown(p)}\n`);
  process.stdout.write(`${basename(study.path)}: ${r.itemsChanged} item line(s) rewritten, ${r.labelLinesChanged} sidecar line(s) changed; ${existsSync(folder) ? `labels folder ${shown(folder)}/ in use` : 'no labels folder: every label is inline'}\n`);
}

export function registerLabels(program: Command): void {
  const labels = program
    .command('labels')
    .description('keep each annotator\'s labels in a file of their own beside the study (<study>.labels/<annotator>.jsonl), read as if inline, so a team committing to one git repository never conflicts (docs/format.md, "Labels in sidecar files")');

  labels
    .command('split <study>')
    .description('move inline labels into each annotator\'s sidecar (the labels folder is made if missing: from then on, a new annotator\'s labels go to a sidecar too); only the study\'s lines that held them are rewritten')
    .option('--annotators <ids>', 'comma-separated annotator ids (default: every annotator with inline labels)')
    .option('--dry-run', 'say what would move, write nothing')
    .action((study: string, opts: { annotators?: string; dryRun?: boolean }) => move(study, { toSidecars: annotatorList(opts.annotators) ?? 'all' }, Boolean(opts.dryRun), 'split'));

  labels
    .command('join <study>')
    .description('move labels from sidecars back inline; an emptied sidecar is removed, and the labels folder too when every annotator is joined (refused, nothing written, while a sidecar holds a line that is not a label of the study)')
    .option('--annotators <ids>', 'comma-separated annotator ids (default: every annotator with a sidecar)')
    .option('--dry-run', 'say what would move, write nothing')
    .action((study: string, opts: { annotators?: string; dryRun?: boolean }) => move(study, { inline: annotatorList(opts.annotators) ?? 'all' }, Boolean(opts.dryRun), 'join'));

  labels
    .command('check <study>')
    .description('where each annotator\'s labels are (inline, sidecar) and every problem of the labels; exits non-zero when there is one')
    .action((studyArg: string) => {
      const study = readStudy(resolve(studyArg));
      const lines = [`${basename(study.path)}: ${study.labelsFolder ? `labels inline and in ${basename(study.labelsFolder)}/, read together` : 'every label inline (no labels folder)'}`];
      for (const [who, w] of whereLabelsAre(study)) lines.push(`  ${who}: ${w.inline} inline, ${w.sidecar} in a sidecar`);
      process.stdout.write(`${lines.join('\n')}\n`);
      const problems = studyProblemMessages(study);
      for (const m of problems) process.stdout.write(`${m}\n`);
      if (problems.length) throw new Error(`${problems.length} problem(s)`);
    });
}
