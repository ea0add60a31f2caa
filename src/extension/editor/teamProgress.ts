/**
 * The team's progress in the dialogue editor's status bar tooltip (issue 44 item 5): when packets of the open study
 * exist (assigned with the CLI or the command), each annotator's labels per dimension against their assignment and
 * the agreement so far, from core's `teamProgress` — the numbers `reflect-eval progress --packets` prints. No
 * `vscode` import.
 */
import { basename, dirname } from 'node:path';
import type { DialogueItem } from '../../core/dialogue/types';
import { dimensionTitle, type Rubric } from '../../core/rubric/rubric';
import { readManifests } from '../../core/team/packetFiles';
import type { PacketManifest } from '../../core/team/packets';
import { teamProgress } from '../../core/team/progress';

/**
 * The manifests of the study's packets: in the study's own folder and in the folders packets were assigned into
 * (remembered by the command), each folder once. A manifest that cannot be read is skipped here (collect names it).
 */
export function teamManifests(studyFile: string, folders: readonly string[]): { folder: string; manifests: PacketManifest[] }[] {
  const out: { folder: string; manifests: PacketManifest[] }[] = [];
  for (const folder of [...new Set([dirname(studyFile), ...folders])]) {
    try {
      const manifests = readManifests(folder, basename(studyFile)).filter((m) => m.annotator);
      if (manifests.length) out.push({ folder, manifests });
    } catch {
      // Not readable: no team line from this folder.
    }
  }
  return out;
}

/**
 * The tooltip lines of the team's progress: per annotator, labelled / assigned per dimension, and Krippendorff's α
 * per dimension where two annotators overlap (`undefined` with why, before that).
 */
export function teamStatusLines(items: readonly DialogueItem[], rubric: Rubric, folders: readonly { folder: string; manifests: PacketManifest[] }[], relative: (path: string) => string = (p) => p): string[] {
  const manifests = folders.flatMap((f) => f.manifests);
  if (manifests.length === 0) return [];
  const p = teamProgress(items, rubric, manifests);
  const title = (name: string) => {
    const d = rubric.dimensions.find((x) => x.name === name);
    return d ? dimensionTitle(d) : name;
  };
  const lines = [`Team: ${manifests.length} packet${manifests.length === 1 ? '' : 's'} (${folders.map((f) => relative(f.folder)).join(', ')})`];
  for (const a of p.annotators) lines.push(`  ${a.annotator}: ${a.labelled}/${a.assigned} · ${a.dimensions.map((d) => `${title(d.dimension)} ${d.labelled}`).join(' · ')}`);
  const agreement = p.agreement.map((g) => `${title(g.dimension)} ${g.alpha === null ? '—' : `α ${g.alpha.toFixed(2)}`} (${g.overlap} shared)`);
  if (agreement.length) lines.push(`  Agreement so far (Krippendorff): ${agreement.join(' · ')}`);
  return lines;
}
